import type { Scope } from '../../layers/core/domain/scopes';
import { ROUTES } from '../../layers/core/http/routes/route-table';
import { expectFlatError, expectNestedError } from '../support/error-shapes';
import { api, json } from '../support/http-client';
import { concretePath } from '../support/ids';
import { startTestService, type TestService } from '../support/local-service';
import { createKey, type TestKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

/**
 * D9, written out from the decision rather than read from the route table, so
 * a route given the wrong scope fails here: Read for every GET on agents and
 * data sources (status included), Write for POST/PUT/DELETE on them (sync
 * included). Admin for webhooks (D30), under /api/v1/webhooks and /api/webhooks.
 * Execute for query, chat, semantic-search and feedback; Read to list
 * interactions; Admin for analytics, for users and groups (P225: what an Admin key may
 * not do to the admin role is in admin-key-provisioning.test.ts), and for reading
 * and changing the organization (the spec's scope table: "organization settings";
 * keys never manage keys, D11). Legacy
 * paths need what their v1 successors need.
 */
const REQUIRED_SCOPE: Readonly<Record<string, Scope>> = {
  'GET /api/v1/agents': 'Read',
  'POST /api/v1/agents': 'Write',
  'GET /api/v1/agents/{id}': 'Read',
  'PUT /api/v1/agents/{id}': 'Write',
  'DELETE /api/v1/agents/{id}': 'Write',
  'GET /api/v1/models': 'Read',
  'GET /api/ai-agent-managers': 'Read',
  'POST /api/ai-agent-managers': 'Write',
  'GET /api/ai-agent-managers/{id}': 'Read',
  'PUT /api/ai-agent-managers/{id}': 'Write',
  'DELETE /api/ai-agent-managers/{id}': 'Write',
  'GET /api/v1/data-sources': 'Read',
  'POST /api/v1/data-sources': 'Write',
  'GET /api/v1/data-sources/{id}': 'Read',
  'PUT /api/v1/data-sources/{id}': 'Write',
  'DELETE /api/v1/data-sources/{id}': 'Write',
  'POST /api/v1/data-sources/{id}/sync': 'Write',
  'GET /api/v1/data-sources/{id}/status': 'Read',
  'POST /api/v1/data-sources/{id}/files': 'Write',
  // P109: the legacy twin of the upload tickets.
  'POST /api/data-specs/{id}/files': 'Write',
  'GET /api/v1/data-sources/{id}/files': 'Read',
  'GET /api/v1/data-sources/{id}/files/{document_id}': 'Read',
  'GET /api/v1/data-sources/{id}/files/{document_id}/content': 'Read',
  'DELETE /api/v1/data-sources/{id}/files/{document_id}': 'Write',
  // A source's documents: listed and previewed with Read; deleted together or indexed again with Write.
  'GET /api/v1/data-sources/{id}/documents': 'Read',
  'GET /api/v1/data-sources/{id}/documents/{document_id}/chunks': 'Read',
  'POST /api/v1/data-sources/{id}/documents/delete': 'Write',
  'POST /api/v1/data-sources/{id}/documents/{document_id}/reindex': 'Write',
  // Issue 12 (P156): disconnecting changes the data source; connecting is a person's, never a key's (P215).
  'DELETE /api/v1/data-sources/{id}/connection': 'Write',
  'GET /api/data-specs': 'Read',
  'POST /api/data-specs': 'Write',
  'POST /api/data-specs/{id}/process': 'Write',
  'GET /api/v1/webhooks': 'Admin',
  'POST /api/v1/webhooks': 'Admin',
  'GET /api/v1/webhooks/{id}': 'Admin',
  'PUT /api/v1/webhooks/{id}': 'Admin',
  'DELETE /api/v1/webhooks/{id}': 'Admin',
  'POST /api/v1/webhooks/{id}/rotate-secret': 'Admin',
  'GET /api/v1/webhooks/{id}/deliveries': 'Admin',
  'GET /api/v1/webhooks/{id}/deliveries/{delivery_id}': 'Admin',
  'POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/retry': 'Admin',
  'POST /api/v1/webhooks/{id}/test': 'Admin',
  'GET /api/webhooks': 'Admin',
  'POST /api/webhooks': 'Admin',
  'GET /api/webhooks/{id}': 'Admin',
  'PUT /api/webhooks/{id}': 'Admin',
  'DELETE /api/webhooks/{id}': 'Admin',
  'POST /api/webhooks/{id}/rotate-secret': 'Admin',
  'GET /api/webhooks/{id}/deliveries': 'Admin',
  'POST /api/webhooks/{id}/deliveries/{delivery_id}/retry': 'Admin',
  'POST /api/webhooks/{id}/test': 'Admin',
  'POST /api/v1/query': 'Execute',
  'POST /api/chat': 'Execute',
  'POST /api/v1/semantic-search': 'Execute',
  'POST /api/semantic-search': 'Execute',
  'GET /api/v1/interactions': 'Read',
  'GET /api/interactions': 'Read',
  'POST /api/v1/interactions/{id}/feedback': 'Execute',
  'POST /api/interactions/feedback': 'Execute',
  'GET /api/v1/conversations': 'Read',
  'GET /api/v1/conversations/{id}': 'Read',
  'GET /api/v1/analytics': 'Admin',
  'GET /api/analytics/charts/dashboard': 'Admin',
  // D9 Admin (the spec lists POST /api/v1/users as Admin); P65, P225: an Admin key manages
  // users, the admin role aside (admin-key-provisioning.test.ts).
  'GET /api/v1/users': 'Admin',
  'POST /api/v1/users': 'Admin',
  'GET /api/v1/users/{id}': 'Admin',
  'PUT /api/v1/users/{id}': 'Admin',
  'DELETE /api/v1/users/{id}': 'Admin',
  'POST /api/v1/users/{id}/invitation': 'Admin',
  'GET /api/users': 'Admin',
  'POST /api/user-management/users': 'Admin',
  'GET /api/v1/organizations/{id}': 'Admin',
  'PUT /api/v1/organizations/{id}': 'Admin',
  'GET /api/organizations/{id}': 'Admin',
  'PUT /api/organizations/{id}': 'Admin',
  // D9 Admin; P82, P225: groups as users, admin-role groups aside.
  'GET /api/v1/groups': 'Admin',
  'POST /api/v1/groups': 'Admin',
  'GET /api/v1/groups/{id}': 'Admin',
  'PUT /api/v1/groups/{id}': 'Admin',
  'DELETE /api/v1/groups/{id}': 'Admin',
  'GET /api/v1/groups/{id}/members': 'Admin',
  'PUT /api/v1/groups/{id}/members/{user_id}': 'Admin',
  'DELETE /api/v1/groups/{id}/members/{user_id}': 'Admin',
  'GET /api/groups': 'Admin',
  'POST /api/groups': 'Admin',
  'GET /api/groups/{id}': 'Admin',
  'PUT /api/groups/{id}': 'Admin',
  'DELETE /api/groups/{id}': 'Admin',
  'GET /api/groups/{id}/members': 'Admin',
  'PUT /api/groups/{id}/members/{user_id}': 'Admin',
  'DELETE /api/groups/{id}/members/{user_id}': 'Admin',
  // D9: GET on kb is Read, POST/PUT/DELETE Write; P121: the legacy table's three.
  'GET /api/v1/kb': 'Read',
  'POST /api/v1/kb': 'Write',
  'GET /api/v1/kb/{id}': 'Read',
  'PUT /api/v1/kb/{id}': 'Write',
  'DELETE /api/v1/kb/{id}': 'Write',
  'GET /api/v1/kb/{id}/versions': 'Read',
  'GET /api/v1/kb/{id}/versions/{version}': 'Read',
  'GET /api/kb': 'Read',
  'POST /api/kb': 'Write',
  'PUT /api/kb/{id}': 'Write',
  // D33, P130: organizations' model keys are Admin only.
  'GET /api/v1/model-keys': 'Admin',
  'POST /api/v1/model-keys': 'Admin',
  'GET /api/v1/model-keys/{id}': 'Admin',
  'DELETE /api/v1/model-keys/{id}': 'Admin',
  // Issue 11 item 5 (P140): evaluations are not named by D9, so Admin.
  'GET /api/v1/evals': 'Admin',
  'POST /api/v1/evals': 'Admin',
  'GET /api/v1/evals/{id}': 'Admin',
  // Asking agents from other tools is asking agents: Execute, as query is, listing what may be asked included.
  'POST /api/v1/mcp': 'Execute',
  'GET /api/v1/openai/models': 'Execute',
  'POST /api/v1/openai/chat/completions': 'Execute',
};

/** Routes that take API keys: all but the session-only (D11: keys, P85: SSO) and public (sign-in) ones. */
const KEY_ROUTES = ROUTES.filter((route) => route.access === undefined);

const SINGLE_SCOPES: readonly Scope[] = ['Read', 'Write', 'Execute'];

/** What an admitted request of `concretePath` with an empty body gets. */
function admittedStatus(method: string, path: string): number {
  // Feedback without a value fails validation before the interaction is looked up.
  if (path.endsWith('/feedback')) return 400;
  // So does a file upload without a file name (D25).
  if (method === 'POST' && path.endsWith('/files')) return 400;
  // And a bulk delete without the ids it deletes.
  if (method === 'POST' && path.endsWith('/documents/delete')) return 400;
  if (path.includes('{id}')) return 404;
  return method === 'GET' ? 200 : 400;
}

describe('Scopes (D9)', () => {
  const clock = new TestClock();
  let service: TestService;
  const keys = new Map<string, TestKey>();

  beforeAll(async () => {
    service = await startTestService({ clock });
    const keySets: Scope[][] = [['Read'], ['Write'], ['Execute'], ['Admin'], ['Read', 'Execute']];
    for (const scopes of keySets) {
      keys.set(scopes.join('+'), await createKey(service, service.orgId, { scopes }));
    }
  });
  afterAll(() => service.end());
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const keyFor = (scopes: string) => keys.get(scopes)?.key ?? '';

  it('knows the scope of every route in the route table that takes keys', () => {
    const routeNames = KEY_ROUTES.map((route) => `${route.method} ${route.path}`).sort();

    expect(routeNames).toEqual(Object.keys(REQUIRED_SCOPE).sort());
  });

  describe.each(KEY_ROUTES.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s',
    (name, route) => {
      const required = REQUIRED_SCOPE[name] ?? 'Admin';
      const send = (key: string) =>
        api(service.url, concretePath(route.path), {
          method: route.method,
          key,
          ...(route.method === 'POST' || route.method === 'PUT' ? { body: {} } : {}),
        });

      it(`refuses keys without the ${required} scope with 403, naming both scope sets`, async () => {
        for (const held of SINGLE_SCOPES.filter((scope) => scope !== required)) {
          const response = await send(keyFor(held));

          if (route.api === 'v1') {
            const error = expectNestedError(response, 403, 'forbidden');
            expect(error.details).toEqual({ required_scope: required, current_scopes: [held] });
          } else {
            expect(expectFlatError(response, 403)).toEqual({
              error: 'Insufficient permissions',
              required_scope: required,
              current_scopes: [held],
              request_id: response.headers.get('x-request-id'),
            });
          }
        }
      });

      it(`admits a key holding ${required}, and an Admin key (Admin implies all)`, async () => {
        for (const key of [keyFor(required), keyFor('Admin')]) {
          const response = await send(key);

          // Admitted: a list answers, an empty create fails validation, an unknown id is 404.
          expect(response.status).toBe(admittedStatus(route.method, route.path));
        }
      });
    },
  );

  /**
   * The other half of the matrix: routes a signed-in person alone may call
   * (D11: keys never manage keys; P85: nor sign-in settings; P215:
   * connecting is a person consenting). Every key is refused, an Admin key
   * too, and the refusal says a session is what the route needs.
   */
  describe.each(
    ROUTES.filter((route) => route.access === 'session').map(
      (route) => [`${route.method} ${route.path}`, route] as const,
    ),
  )('%s (session only)', (_name, route) => {
    it('refuses a key of every scope with 403, an Admin key for want of a session', async () => {
      const refusal = route.access === 'session' ? route.keyRefusal : undefined;
      for (const held of [...SINGLE_SCOPES, 'Admin' as const]) {
        const response = await api(service.url, concretePath(route.path), {
          method: route.method,
          key: keyFor(held),
          ...(route.method === 'POST' || route.method === 'PUT' ? { body: {} } : {}),
        });

        const body = json(response);
        const details = route.api === 'v1' ? body.error?.details : body;
        expect({ held, status: response.status }).toEqual({ held, status: 403 });
        if ((held === 'Admin' || held === route.scope) && route.api === 'legacy') {
          // The flat shape (D5) of this refusal carries its code, not its details.
          expect(body).toMatchObject({ code: 'forbidden', status: 403 });
        } else if (held === 'Admin' || held === route.scope) {
          expect(details).toMatchObject({
            required_credential: 'session',
            ...(refusal ? { reason: refusal.reason } : {}),
          });
        } else {
          expect(details).toMatchObject({ required_scope: route.scope, current_scopes: [held] });
        }
      }
    });
  });

  it('lists every scope a multi-scope key holds in current_scopes', async () => {
    const response = await api(service.url, '/api/v1/agents', {
      method: 'POST',
      key: keyFor('Read+Execute'),
      body: {},
    });

    const error = expectNestedError(response, 403, 'forbidden');
    expect(error.details).toEqual({
      required_scope: 'Write',
      current_scopes: ['Read', 'Execute'],
    });
    expect(error.message).toMatch(/Write/);
  });

  it('lets a Read key read but not write the same resource', async () => {
    const read = keyFor('Read');

    const list = await api(service.url, '/api/v1/data-sources', { key: read });
    const create = await api(service.url, '/api/v1/data-sources', {
      method: 'POST',
      key: read,
      body: { type: 'file', name: 'x' },
    });

    expect(list.status).toBe(200);
    expectNestedError(create, 403, 'forbidden');
  });

  it('lets a Write key write but not read', async () => {
    const write = keyFor('Write');

    const create = await api(service.url, '/api/v1/data-sources', {
      method: 'POST',
      key: write,
      body: { type: 'file', name: 'x' },
    });
    const list = await api(service.url, '/api/v1/data-sources', { key: write });

    expect(create.status).toBe(201);
    expect(expectNestedError(list, 403, 'forbidden').details.required_scope).toBe('Read');
  });

  it('refuses an Execute key on every agent and data source endpoint', async () => {
    const response = await api(service.url, '/api/v1/agents', { key: keyFor('Execute') });

    expect(expectNestedError(response, 403, 'forbidden').details).toEqual({
      required_scope: 'Read',
      current_scopes: ['Execute'],
    });
  });

  it('checks the scope before validating the request (a 403 reveals nothing about the body)', async () => {
    const response = await api(service.url, '/api/v1/agents/not-an-id', {
      method: 'PUT',
      key: keyFor('Read'),
      rawBody: '{broken',
      headers: { 'content-type': 'application/json' },
    });

    expectNestedError(response, 403, 'forbidden');
  });
});
