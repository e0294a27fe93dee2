import type { Route } from '../route';

/**
 * Connector sign-in (issue 12): the `connections` function's rows of the
 * route table (layers/core/http/routes/route-table.ts). Starting and removing a connection change the
 * data source, so they take `configure` (users), as the data source's own
 * writes do; removing one takes Write from keys too. Starting one is a
 * person's consent at the provider, bound to the browser that started it:
 * keys cannot, and a session must send it same-site with its CSRF
 * token although it is a GET. The provider's redirect back is public
 * (the signed state and the browser's flow cookie are its credential, P146).
 * No unversioned twins beside the connectors' paths — the spec's legacy
 * table names none.
 */
export const CONNECTIONS_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/v1/data-sources/{id}/oauth/start',
    family: 'connections',
    operation: 'startConnection',
    access: 'session',
    scope: 'Write',
    role: 'configure',
    changesState: true,
    keyRefusal: {
      message:
        "Connecting a provider account is a person's consent, finished in the browser that started it: sign in and start it from the web application; API keys cannot",
      reason: 'session_required',
    },
    api: 'v1',
  },
  {
    method: 'DELETE',
    path: '/api/v1/data-sources/{id}/connection',
    family: 'connections',
    operation: 'disconnect',
    scope: 'Write',
    role: 'configure',
    api: 'v1',
  },
  {
    method: 'GET',
    path: '/api/oauth/callback',
    family: 'connections',
    operation: 'completeConnection',
    access: 'public',
    api: 'v1',
  },
];
