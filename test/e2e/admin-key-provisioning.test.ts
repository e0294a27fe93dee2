import { Logger } from '@aws-lambda-powertools/logger';
import type { DomainEvent } from '../../layers/core/domain/events';
import type { Route } from '../../layers/core/http/route';
import { USERS_ROUTES } from '../../layers/core/http/routes/users';
import { expectFlatError, expectNestedError } from '../support/error-shapes';
import { type ApiResponse, api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { createKey, type TestKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import {
  WebSession as Browser,
  createTestUser,
  signedIn,
  type WebSession,
} from '../support/web-session';

/**
 * Issue 24 (P225): an Admin API key provisions people as the spec's tables
 * promise (users, invitations, groups, memberships), the way a directory
 * script onboards a team, but never gives or takes the `admin` role nor
 * touches an administrator: those stay with a signed-in administrator.
 */
describe('Provisioning people with an Admin API key (P225)', () => {
  const clock = new TestClock();
  let service: TestService;
  let script: TestKey;
  let readKey: TestKey;
  let writeKey: TestKey;
  let admin: WebSession;
  let counter = 0;

  beforeAll(async () => {
    service = await startTestService({ clock });
    script = await createKey(service, service.orgId, { scopes: ['Admin'], name: 'directory' });
    readKey = await createKey(service, service.orgId, { scopes: ['Read'] });
    writeKey = await createKey(service, service.orgId, { scopes: ['Write'] });
    admin = await signedIn(service, await createTestUser(service, { role: 'admin' }));
  });
  afterAll(() => service.end());
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const PASSWORD = 'a long enough password';
  const email = (name: string) => {
    counter += 1;
    return `${name}-${counter}@example.com`;
  };
  const withKey = (key: TestKey, path: string, request: { method?: string; body?: unknown } = {}) =>
    api(service.url, path, { ...request, key: key.key });
  const asAdmin = (path: string, request: { method?: string; body?: unknown } = {}) =>
    admin.request(path, request);
  const created = async (response: Promise<ApiResponse>): Promise<{ id: string }> => {
    const answer = await response;
    if (answer.status !== 201) throw new Error(`expected 201: ${answer.status} ${answer.text}`);
    return { id: String(json(answer).id) };
  };
  const pendingEvents = async (): Promise<DomainEvent[]> =>
    (await service.runtime.dependencies.outbox.pending(1000)).flatMap((batch) => batch.events);
  const refusedReason = (response: ApiResponse, route: Pick<Route, 'api'>) =>
    route.api === 'v1'
      ? expectNestedError(response, 403, 'forbidden').details.reason
      : expectFlatError(response, 403).details?.reason;

  it('invites a readonly user who signs in from the invitation, and puts them in a configure group', async () => {
    const invited = await withKey(script, '/api/v1/users', {
      method: 'POST',
      body: { email: email('newcomer'), name: 'Newcomer', role: 'readonly' },
    });
    const user = json(invited);
    const newcomer = new Browser(service.url);
    const accepted = await newcomer.request('/api/v1/auth/invitations/accept', {
      method: 'POST',
      body: { token: user.invitation.token, password: PASSWORD },
    });
    const group = await created(
      withKey(script, '/api/v1/groups', {
        method: 'POST',
        body: { name: 'Builders', role: 'configure' },
      }),
    );
    const joined = await withKey(script, `/api/v1/groups/${group.id}/members/${user.id}`, {
      method: 'PUT',
    });
    const me = await newcomer.request('/api/v1/auth/me');
    const configures = await newcomer.request('/api/v1/data-sources', {
      method: 'POST',
      body: { type: 'file', name: 'Manuals' },
    });

    expect(invited.status).toBe(201);
    expect(user).toMatchObject({ role: 'readonly', status: 'invited' });
    expect(accepted.status).toBe(200);
    expect(joined.status).toBe(204);
    expect(json(me).user).toMatchObject({ id: user.id, role: 'readonly', status: 'active' });
    expect(json(me).access).toMatchObject({ role: 'configure', group_ids: [group.id] });
    expect(configures.status).toBe(201);
  });

  it("changes a user's name, role and status, and invites them again", async () => {
    const user = await created(
      withKey(script, '/api/v1/users', {
        method: 'POST',
        body: { email: email('changing'), name: 'Changing', role: 'readonly' },
      }),
    );

    const renamed = await withKey(script, `/api/v1/users/${user.id}`, {
      method: 'PUT',
      body: { name: 'Changed', role: 'train' },
    });
    const reinvited = await withKey(script, `/api/v1/users/${user.id}/invitation`, {
      method: 'POST',
    });
    const deactivated = await withKey(script, `/api/v1/users/${user.id}`, { method: 'DELETE' });

    expect(json(renamed)).toMatchObject({ name: 'Changed', role: 'train' });
    expect(json(reinvited).token).toMatch(/^svcinv_/);
    expect(deactivated.status).toBe(204);
    expect(json(await withKey(script, `/api/v1/users/${user.id}`)).status).toBe('deactivated');
  });

  it('refuses to invite an admin, raise a user to admin or put a user into an admin group', async () => {
    const user = await created(
      withKey(script, '/api/v1/users', {
        method: 'POST',
        body: { email: email('bounded'), name: 'Bounded', role: 'readonly' },
      }),
    );
    const admins = await created(
      asAdmin('/api/v1/groups', { method: 'POST', body: { name: 'Admins', role: 'admin' } }),
    );
    const adminEmail = email('would-be-admin');

    const inviteAdmin = await withKey(script, '/api/v1/users', {
      method: 'POST',
      body: { email: adminEmail, name: 'Admin', role: 'admin' },
    });
    const raise = await withKey(script, `/api/v1/users/${user.id}`, {
      method: 'PUT',
      body: { role: 'admin' },
    });
    const join = await withKey(script, `/api/v1/groups/${admins.id}/members/${user.id}`, {
      method: 'PUT',
    });

    for (const response of [inviteAdmin, raise, join]) {
      expect(expectNestedError(response, 403, 'forbidden').details).toEqual({
        reason: 'admin_role_needs_session',
      });
    }
    expect(json(await withKey(script, `/api/v1/users/${user.id}`)).role).toBe('readonly');
    expect(json(await asAdmin(`/api/v1/groups/${admins.id}/members`)).total).toBe(0);
    const everyone = json(await withKey(script, '/api/v1/users?limit=200')).users;
    expect(everyone.map((known: { email: string }) => known.email)).not.toContain(adminEmail);
  });

  it('refuses the same with a Read or a Write key, as before (D9)', async () => {
    const user = await createTestUser(service, { role: 'readonly' });
    const group = await created(
      asAdmin('/api/v1/groups', { method: 'POST', body: { name: 'Keyless', role: 'configure' } }),
    );
    const attempts = (key: TestKey) => [
      withKey(key, '/api/v1/users', {
        method: 'POST',
        body: { email: email('by-read'), name: 'R', role: 'readonly' },
      }),
      withKey(key, `/api/v1/users/${user.id}`, { method: 'PUT', body: { name: 'R' } }),
      withKey(key, '/api/v1/groups', { method: 'POST', body: { name: 'R', role: 'readonly' } }),
      withKey(key, `/api/v1/groups/${group.id}/members/${user.id}`, { method: 'PUT' }),
    ];

    for (const key of [readKey, writeKey]) {
      for (const response of await Promise.all(attempts(key))) {
        expect(expectNestedError(response, 403, 'forbidden').details).toEqual({
          required_scope: 'Admin',
          current_scopes: key === readKey ? ['Read'] : ['Write'],
        });
      }
    }
  });

  it('names the key as the actor in user.created and user.updated, and the user for a session change or an acceptance', async () => {
    // The handlers run in this process, so their logger can be watched.
    const info = jest.spyOn(Logger.prototype, 'info');
    let lines: unknown[][] = [];
    const user = await (async () => {
      const invited = json(
        await withKey(script, '/api/v1/users', {
          method: 'POST',
          body: { email: email('attributed'), name: 'Attributed', role: 'readonly' },
        }),
      );
      await withKey(script, `/api/v1/users/${invited.id}`, {
        method: 'PUT',
        body: { name: 'By key' },
      });
      await asAdmin(`/api/v1/users/${invited.id}`, { method: 'PUT', body: { name: 'By admin' } });
      await api(service.url, '/api/v1/auth/invitations/accept', {
        method: 'POST',
        body: { token: invited.invitation.token, password: PASSWORD },
      });
      return invited;
    })().finally(() => {
      // Restoring a spy forgets its calls: keep them first.
      lines = [...info.mock.calls];
      info.mockRestore();
    });
    const adminId = json(await asAdmin('/api/v1/auth/me')).user.id;

    const events = (await pendingEvents()).filter(
      (event) =>
        (event.data as { id?: string }).id === user.id ||
        (event.data as { user?: { id?: string } }).user?.id === user.id,
    );

    expect(events.map((event) => [event.type, event.data.actor])).toEqual([
      ['user.created', { kind: 'api_key', key_id: script.keyId }],
      ['user.updated', { kind: 'api_key', key_id: script.keyId }],
      ['user.updated', { kind: 'user', user_id: adminId }],
      ['user.updated', { kind: 'user', user_id: user.id }],
    ]);
    const changes = lines.filter(([message]) => message === 'people changed');
    expect(changes).toEqual([
      [
        'people changed',
        expect.objectContaining({
          operation: 'createUser',
          actor: script.keyId,
          user_id: user.id,
          org_id: service.orgId,
        }),
      ],
      [
        'people changed',
        expect.objectContaining({ operation: 'updateUser', actor: script.keyId, user_id: user.id }),
      ],
      [
        'people changed',
        expect.objectContaining({ operation: 'updateUser', actor: adminId, user_id: user.id }),
      ],
    ]);
    expect(JSON.stringify(changes)).not.toContain(user.invitation.token);
  });

  /**
   * Every route that changes people, with what a key may not do through it.
   * Each attempt is refused for the key with nothing changed, and allowed
   * for a signed-in administrator: the bound is the key's alone.
   */
  interface Attempt {
    readonly what: string;
    /** Builds what the attempt needs (as the operator and a signed-in administrator). */
    prepare(): Promise<{
      readonly params: Record<string, string>;
      readonly body?: Record<string, unknown>;
      /** What must read the same after the key's refusal. */
      readonly unchanged: readonly string[];
    }>;
    readonly allowedStatus: number;
  }

  const userOf = async (role: 'admin' | 'readonly', groupId?: string) => {
    const user = await createTestUser(service, { role });
    if (groupId) {
      await asAdmin(`/api/v1/groups/${groupId}/members/${user.id}`, { method: 'PUT' });
    }
    return user.id;
  };
  const groupOf = async (role: 'admin' | 'configure') =>
    (await created(asAdmin('/api/v1/groups', { method: 'POST', body: { name: role, role } }))).id;
  const userPaths = (id: string) => [`/api/v1/users/${id}`];
  const groupPaths = (id: string) => [`/api/v1/groups/${id}`, `/api/v1/groups/${id}/members`];

  const ATTEMPTS: Readonly<Record<string, readonly Attempt[]>> = {
    createUser: [
      {
        what: 'invite an admin',
        prepare: async () => ({
          params: {},
          body: { email: email('invite-admin'), name: 'A', role: 'admin' },
          unchanged: ['/api/v1/users?limit=1'],
        }),
        allowedStatus: 201,
      },
    ],
    updateUser: [
      {
        what: 'raise a user to admin',
        prepare: async () => {
          const id = await userOf('readonly');
          return { params: { id }, body: { role: 'admin' }, unchanged: userPaths(id) };
        },
        allowedStatus: 200,
      },
      {
        what: 'rename an admin',
        prepare: async () => {
          const id = await userOf('admin');
          return { params: { id }, body: { name: 'Renamed' }, unchanged: userPaths(id) };
        },
        allowedStatus: 200,
      },
      {
        what: 'deactivate a member of an admin group',
        prepare: async () => {
          const id = await userOf('readonly', await groupOf('admin'));
          return { params: { id }, body: { status: 'deactivated' }, unchanged: userPaths(id) };
        },
        allowedStatus: 200,
      },
    ],
    deactivateUser: [
      {
        what: 'deactivate an admin',
        prepare: async () => {
          const id = await userOf('admin');
          return { params: { id }, unchanged: userPaths(id) };
        },
        allowedStatus: 204,
      },
    ],
    reinviteUser: [
      {
        what: 'invite an admin again',
        prepare: async () => {
          const { id } = await created(
            asAdmin('/api/v1/users', {
              method: 'POST',
              body: { email: email('invited-admin'), name: 'I', role: 'admin' },
            }),
          );
          return { params: { id }, unchanged: userPaths(id) };
        },
        allowedStatus: 201,
      },
    ],
    createGroup: [
      {
        what: 'make an admin group',
        prepare: async () => ({
          params: {},
          body: { name: 'Admins by key', role: 'admin' },
          unchanged: ['/api/v1/groups?limit=1'],
        }),
        allowedStatus: 201,
      },
    ],
    updateGroup: [
      {
        what: "raise a group's role to admin",
        prepare: async () => {
          const id = await groupOf('configure');
          return { params: { id }, body: { role: 'admin' }, unchanged: groupPaths(id) };
        },
        allowedStatus: 200,
      },
      {
        what: "lower an admin group's role",
        prepare: async () => {
          const id = await groupOf('admin');
          return { params: { id }, body: { role: 'readonly' }, unchanged: groupPaths(id) };
        },
        allowedStatus: 200,
      },
      {
        what: 'rename an admin group',
        prepare: async () => {
          const id = await groupOf('admin');
          return { params: { id }, body: { name: 'Renamed' }, unchanged: groupPaths(id) };
        },
        allowedStatus: 200,
      },
    ],
    deleteGroup: [
      {
        what: 'delete an admin group',
        prepare: async () => {
          const id = await groupOf('admin');
          const member = await userOf('readonly', id);
          return { params: { id }, unchanged: [...groupPaths(id), `/api/v1/users/${member}`] };
        },
        allowedStatus: 204,
      },
    ],
    addGroupMember: [
      {
        what: 'add a user to an admin group',
        prepare: async () => {
          const id = await groupOf('admin');
          const user_id = await userOf('readonly');
          return { params: { id, user_id }, unchanged: groupPaths(id) };
        },
        allowedStatus: 204,
      },
      {
        what: 'add an admin to a group',
        prepare: async () => {
          const id = await groupOf('configure');
          const user_id = await userOf('admin');
          return { params: { id, user_id }, unchanged: groupPaths(id) };
        },
        allowedStatus: 204,
      },
    ],
    removeGroupMember: [
      {
        what: 'take a user out of an admin group',
        prepare: async () => {
          const id = await groupOf('admin');
          const user_id = await userOf('readonly', id);
          return { params: { id, user_id }, unchanged: groupPaths(id) };
        },
        allowedStatus: 204,
      },
      {
        what: 'take an admin out of a group',
        prepare: async () => {
          const id = await groupOf('configure');
          const user_id = await userOf('admin', id);
          return { params: { id, user_id }, unchanged: groupPaths(id) };
        },
        allowedStatus: 204,
      },
    ],
  };

  // Signing a user out everywhere takes a session (P222): keys never reach it.
  const CHANGING_ROUTES = USERS_ROUTES.filter(
    (route) => route.method !== 'GET' && route.access !== 'session',
  );

  it('has an attempt for every route that changes people', () => {
    const operations = new Set(CHANGING_ROUTES.map((route) => route.operation));

    expect([...operations].sort()).toEqual(Object.keys(ATTEMPTS).sort());
  });

  describe.each(
    CHANGING_ROUTES.flatMap((route) =>
      (ATTEMPTS[route.operation] ?? []).map(
        (attempt) => [`${route.method} ${route.path}: ${attempt.what}`, route, attempt] as const,
      ),
    ),
  )('%s', (_, route, attempt) => {
    it('is refused for an Admin key with nothing changed, and done for a signed-in admin', async () => {
      const { params, body, unchanged } = await attempt.prepare();
      const path = route.path.replace(/\{(\w+)\}/g, (_match, name: string) => params[name] ?? '');
      const request = { method: route.method, ...(body ? { body } : {}) };
      const read = () =>
        Promise.all(unchanged.map(async (watched) => json(await asAdmin(watched))));
      const before = await read();

      const byKey = await withKey(script, path, request);
      const after = await read();
      const bySession = await asAdmin(path, request);

      expect(refusedReason(byKey, route)).toBe('admin_role_needs_session');
      expect(after).toEqual(before);
      expect(bySession.status).toBe(attempt.allowedStatus);
    });
  });
});
