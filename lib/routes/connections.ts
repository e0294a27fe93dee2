import type { Route } from '../../layers/core/http/route';

/**
 * Connector sign-in (D26, issue 12): the `connections` function's rows of the
 * route table (lib/routes.ts). Starting and removing a connection change the
 * data source, so they take Write (keys) or `configure` (users), as the data
 * source's own writes do; the provider's redirect back is public (the signed
 * state is its credential, P146). P156: no unversioned twins beside D26's
 * paths — the spec's legacy table names none.
 */
export const CONNECTIONS_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/v1/data-sources/{id}/oauth/start',
    family: 'connections',
    operation: 'startConnection',
    scope: 'Write',
    role: 'configure',
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
