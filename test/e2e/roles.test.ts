import { ROLES, type Role } from '../../layers/core/domain/user';
import { ROUTES } from '../../layers/core/http/routes/route-table';
import { expectFlatError, expectNestedError } from '../support/error-shapes';
import { concretePath } from '../support/ids';
import { startTestService, type TestService } from '../support/local-service';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import { createTestUser, signedIn, type WebSession } from '../support/web-session';

/**
 * D13, written out from the decision rather than read from the route table,
 * so a route given the wrong role fails here: `readonly` views (every GET,
 * asking agents — by query, MCP or OpenAI-compatible chat — and searching, analytics); `train` adds feedback and KB
 * editing; `configure` adds agents, data sources and webhooks;
 * `admin` adds users, groups, keys, the organization, its IP allowlist and
 * SSO (and model keys, not built). Signing in, refreshing, `me` and logging
 * out are for everyone. Legacy paths need what their v1 successors need.
 * Connecting a data source to its provider changes it (`configure`, P156),
 * though it is a GET (sent with the CSRF token, P216). Evaluations (P140): reading is a view, starting one
 * is `configure` (the default rule below). The `admin` role itself is given,
 * taken and changed only by a signed-in `admin`, never by an Admin key
 * (P225): admin-key-provisioning.test.ts tries each such change both ways.
 */
function requiredRole(method: string, path: string): Role {
  if (/users|groups|organizations|keys|\/sso/.test(path)) return 'admin';
  if (/webhooks|oauth\/start/.test(path)) return 'configure';
  if (/feedback/.test(path)) return 'train';
  if (/\/kb(\/|$)/.test(path)) return method === 'GET' ? 'readonly' : 'train';
  if (/auth|query|chat|semantic-search|analytics|mcp/.test(path)) return 'readonly';
  return method === 'GET' ? 'readonly' : 'configure';
}

/** Every route a session may call: all but sign-in and accepting an invitation; logout is tested apart. */
const SESSION_ROUTES = ROUTES.filter(
  (route) => route.access !== 'public' && route.operation !== 'logout',
);

/** What an admitted request of `concretePath` with an empty body gets. */
function admittedStatus(method: string, path: string): number {
  if (path.endsWith('/feedback')) return 400;
  if (method === 'POST' && path.endsWith('/files')) return 400;
  // A bulk delete needs the ids it deletes, checked before the data source is looked up.
  if (method === 'POST' && path.endsWith('/documents/delete')) return 400;
  // The SSO configuration and a new domain need a body, checked before the organization is looked up.
  if (method === 'PUT' && path.endsWith('/sso')) return 400;
  if (method === 'POST' && path.endsWith('/sso/domains')) return 400;
  // A password change needs the current and the new password (P224).
  if (method === 'PUT' && path.endsWith('/auth/password')) return 400;
  if (path.includes('{id}')) return 404;
  if (/auth/.test(path)) return 200;
  return method === 'GET' ? 200 : 400;
}

describe('Roles (D13) over every route a session can call', () => {
  const clock = new TestClock();
  let service: TestService;
  const browsers = new Map<Role, WebSession>();

  beforeAll(async () => {
    service = await startTestService({ clock });
    for (const role of ROLES) {
      browsers.set(role, await signedIn(service, await createTestUser(service, { role })));
    }
  });
  afterAll(() => service.end());
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const browserOf = (role: Role): WebSession => {
    const browser = browsers.get(role);
    if (!browser) throw new Error(`no ${role} session`);
    return browser;
  };

  describe.each(SESSION_ROUTES.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s',
    (_, route) => {
      const required = requiredRole(route.method, route.path);
      const send = (role: Role) =>
        browserOf(role).request(concretePath(route.path), {
          method: route.method,
          ...(route.method === 'POST' || route.method === 'PUT' ? { body: {} } : {}),
          // P216: a GET that changes state carries the CSRF token as the other changes do.
          ...(route.changesState
            ? { headers: { 'x-csrf-token': browserOf(role).csrfToken ?? '' } }
            : {}),
        });

      it(`is given the ${required} role in the route table`, () => {
        expect(route.role).toBe(required);
      });

      it(`refuses roles below ${required} with 403, naming both roles`, async () => {
        for (const role of ROLES.slice(0, ROLES.indexOf(required))) {
          const response = await send(role);

          if (route.api === 'v1') {
            const error = expectNestedError(response, 403, 'forbidden');
            expect(error.details).toEqual({ required_role: required, current_role: role });
          } else {
            expect(expectFlatError(response, 403)).toEqual({
              error: 'Insufficient permissions',
              required_role: required,
              current_role: role,
              request_id: response.headers.get('x-request-id'),
            });
          }
        }
      });

      it(`admits ${required} and every role above it`, async () => {
        for (const role of ROLES.slice(ROLES.indexOf(required))) {
          const response = await send(role);

          expect({ role, status: response.status }).toEqual({
            role,
            status: admittedStatus(route.method, route.path),
          });
        }
      });
    },
  );

  it('applies a changed role at the next request, without signing in again', async () => {
    const user = await createTestUser(service, { role: 'readonly' });
    const browser = await signedIn(service, user);
    const admin = browserOf('admin');

    const before = await browser.request('/api/v1/data-sources', {
      method: 'POST',
      body: { type: 'file', name: 'Manuals' },
    });
    await admin.request(`/api/v1/users/${user.id}`, {
      method: 'PUT',
      body: { role: 'configure' },
    });
    const after = await browser.request('/api/v1/data-sources', {
      method: 'POST',
      body: { type: 'file', name: 'Manuals' },
    });

    expectNestedError(before, 403, 'forbidden');
    expect(after.status).toBe(201);
  });

  it('draws session requests from per-user buckets sized like the scope buckets (D16)', async () => {
    const browser = browserOf('readonly');

    const response = await browser.request('/api/v1/agents');

    expect(response.headers.get('x-ratelimit-limit')).toBe('200');
    expect(response.headers.get('ratelimit-policy')).toBe('"read";q=200;w=60;burst=250');
  });
});
