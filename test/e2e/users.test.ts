import type { DomainEvent } from '../../layers/core/domain/events';
import { expectFlatError, expectNestedError, fieldPaths } from '../support/error-shapes';
import { api, json } from '../support/http-client';
import { unknownId } from '../support/ids';
import { startTestService, type TestService } from '../support/local-service';
import { createTenant } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import {
  WebSession as Browser,
  createTestUser,
  signedIn,
  type TestUser,
  type WebSession,
} from '../support/web-session';

const DAY_MS = 24 * 3600 * 1000;
const PASSWORD = 'a long enough password';

describe('Users (D13) and invitations (P61)', () => {
  const clock = new TestClock();
  let service: TestService;
  let admin: TestUser;
  let browser: WebSession;

  beforeAll(async () => {
    service = await startTestService({ clock });
    admin = await createTestUser(service, { role: 'admin' });
    browser = await signedIn(service, admin);
  });
  afterAll(() => service.end());
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const invite = (body: Record<string, unknown>) =>
    browser.request('/api/v1/users', { method: 'POST', body });
  const pendingEvents = async (): Promise<DomainEvent[]> =>
    (await service.runtime.dependencies.outbox.pending(500)).flatMap((batch) => batch.events);

  it('invites a user: 201, status invited, and a single-use invitation shown once', async () => {
    const response = await invite({ email: 'New.Person@Example.com', name: 'New', role: 'train' });

    expect(response.status).toBe(201);
    const created = json(response);
    expect(created).toMatchObject({
      id: expect.stringMatching(/^usr_[0-9a-z]{26}$/),
      org_id: service.orgId,
      email: 'New.Person@Example.com',
      name: 'New',
      role: 'train',
      status: 'invited',
      last_login_at: null,
      invitation: {
        token: expect.stringMatching(/^svcinv_/),
        accept_path: '/api/v1/auth/invitations/accept',
      },
    });
    expect(Date.parse(created.invitation.expires_at) - clock.now().getTime()).toBeGreaterThan(
      6.9 * DAY_MS,
    );
    const read = await browser.request(`/api/v1/users/${created.id}`);
    expect(json(read).invitation).toBeUndefined();
    expect(json(read).status).toBe('invited');
  });

  it('lets the invitation be accepted once: the password is set and the user signed in', async () => {
    const created = json(
      await invite({ email: 'accept@example.com', name: 'A', role: 'readonly' }),
    );
    const newcomer = new Browser(service.url);

    const accepted = await newcomer.request('/api/v1/auth/invitations/accept', {
      method: 'POST',
      body: { token: created.invitation.token, password: PASSWORD },
    });
    const again = await api(service.url, '/api/v1/auth/invitations/accept', {
      method: 'POST',
      body: { token: created.invitation.token, password: 'another long password' },
    });
    const login = await new Browser(service.url).signIn('ACCEPT@example.com', PASSWORD);

    expect(accepted.status).toBe(200);
    expect(json(accepted).user).toMatchObject({ id: created.id, status: 'active' });
    expect((await newcomer.request('/api/v1/auth/me')).status).toBe(200);
    expect(fieldPaths(expectNestedError(again, 400, 'invalid_request'))).toEqual(['token']);
    expect(login.status).toBe(200);
  });

  it('refuses an expired invitation, and an invited user cannot sign in before accepting', async () => {
    const created = json(await invite({ email: 'late@example.com', name: 'L', role: 'readonly' }));
    const early = await new Browser(service.url).signIn('late@example.com', PASSWORD);

    clock.advance(7 * DAY_MS + 1000);
    const late = await api(service.url, '/api/v1/auth/invitations/accept', {
      method: 'POST',
      body: { token: created.invitation.token, password: PASSWORD },
    });

    expectNestedError(early, 401, 'unauthorized');
    expectNestedError(late, 400, 'invalid_request');
    browser = await signedIn(service, admin);
  });

  it('re-invites: a new token works and the old one no longer does', async () => {
    const created = json(await invite({ email: 'again@example.com', name: 'G', role: 'readonly' }));

    const renewed = await browser.request(`/api/v1/users/${created.id}/invitation`, {
      method: 'POST',
    });
    const old = await api(service.url, '/api/v1/auth/invitations/accept', {
      method: 'POST',
      body: { token: created.invitation.token, password: PASSWORD },
    });
    const fresh = await api(service.url, '/api/v1/auth/invitations/accept', {
      method: 'POST',
      body: { token: json(renewed).token, password: PASSWORD },
    });

    expect(renewed.status).toBe(201);
    expectNestedError(old, 400, 'invalid_request');
    expect(fresh.status).toBe(200);
  });

  it('refuses a password too short for the policy (P62)', async () => {
    const created = json(await invite({ email: 'short@example.com', name: 'S', role: 'readonly' }));

    const response = await api(service.url, '/api/v1/auth/invitations/accept', {
      method: 'POST',
      body: { token: created.invitation.token, password: 'short' },
    });

    expect(fieldPaths(expectNestedError(response, 400, 'invalid_request'))).toEqual(['password']);
  });

  it('keeps emails unique per organization whatever their case (409), but not across organizations', async () => {
    await invite({ email: 'dup@example.com', name: 'D', role: 'readonly' });
    const other = await createTenant(service);
    const otherAdmin = await signedIn(
      service,
      await createTestUser(service, { orgId: other.orgId, role: 'admin' }),
    );

    const again = await invite({ email: ' DUP@Example.com', name: 'D2', role: 'readonly' });
    const elsewhere = await otherAdmin.request('/api/v1/users', {
      method: 'POST',
      body: { email: 'dup@example.com', name: 'D', role: 'readonly' },
    });

    expect(fieldPaths(expectNestedError(again, 409, 'invalid_request'))).toEqual(['email']);
    expect(elsewhere.status).toBe(201);
  });

  it('lists, reads and updates users; a changed email signs in, the old one no longer', async () => {
    const user = await createTestUser(service, { role: 'readonly' });

    const list = await browser.request('/api/v1/users?limit=200');
    const updated = await browser.request(`/api/v1/users/${user.id}`, {
      method: 'PUT',
      body: { name: 'Renamed', email: `moved-${user.email}`, role: 'configure' },
    });
    const oldEmail = await new Browser(service.url).signIn(user.email, user.password);
    const newEmail = await new Browser(service.url).signIn(`moved-${user.email}`, user.password);

    expect(json(list).users.map((listed: { id: string }) => listed.id)).toContain(user.id);
    expect(json(list)).toMatchObject({ limit: 200, offset: 0, total: expect.any(Number) });
    expect(json(updated)).toMatchObject({ name: 'Renamed', role: 'configure' });
    expectNestedError(oldEmail, 401, 'unauthorized');
    expect(newEmail.status).toBe(200);
  });

  it('records each sign-in as last_login_at, which reading and listing return', async () => {
    const user = await createTestUser(service, { role: 'readonly' });
    const before = json(await browser.request(`/api/v1/users/${user.id}`));
    clock.advance(60_000);
    const from = clock.now().getTime();

    await signedIn(service, user);
    const until = clock.now().getTime();
    const read = json(await browser.request(`/api/v1/users/${user.id}`));
    const listed = json(await browser.request('/api/v1/users?limit=200')).users.find(
      (entry: { id: string }) => entry.id === user.id,
    );

    expect(before.last_login_at).toBeNull();
    const at = Date.parse(read.last_login_at);
    expect(at).toBeGreaterThanOrEqual(from);
    expect(at).toBeLessThanOrEqual(until);
    expect(listed.last_login_at).toBe(read.last_login_at);
  });

  it('deactivates a user: their sessions end at once and they cannot sign in; PUT active restores them', async () => {
    const user = await createTestUser(service, { role: 'configure' });
    const theirs = await signedIn(service, user);

    const deactivated = await browser.request(`/api/v1/users/${user.id}`, { method: 'DELETE' });
    const during = await theirs.request('/api/v1/agents');
    const signIn = await new Browser(service.url).signIn(user.email, user.password);
    const read = await browser.request(`/api/v1/users/${user.id}`);
    await browser.request(`/api/v1/users/${user.id}`, {
      method: 'PUT',
      body: { status: 'active' },
    });
    const restored = await new Browser(service.url).signIn(user.email, user.password);

    expect(deactivated.status).toBe(204);
    expectNestedError(during, 401, 'unauthorized');
    expectNestedError(signIn, 401, 'unauthorized');
    expect(json(read).status).toBe('deactivated');
    expect(restored.status).toBe(200);
  });

  it('does not let an administrator demote or deactivate themselves', async () => {
    const demote = await browser.request(`/api/v1/users/${admin.id}`, {
      method: 'PUT',
      body: { role: 'readonly' },
    });
    const deactivate = await browser.request(`/api/v1/users/${admin.id}`, { method: 'DELETE' });

    expectNestedError(demote, 409, 'invalid_request');
    expectNestedError(deactivate, 409, 'invalid_request');
  });

  it('lets an Admin API key manage users, but not give the admin role (P65, P225)', async () => {
    const user = await createTestUser(service, { role: 'readonly' });

    const list = await api(service.url, '/api/v1/users', { key: service.adminKey });
    const read = await api(service.url, `/api/v1/users/${user.id}`, { key: service.adminKey });
    const create = await api(service.url, '/api/v1/users', {
      method: 'POST',
      key: service.adminKey,
      body: { email: 'bykey@example.com', name: 'K', role: 'admin' },
    });
    const change = await api(service.url, `/api/v1/users/${user.id}`, {
      method: 'PUT',
      key: service.adminKey,
      body: { role: 'admin' },
    });
    const allowed = await api(service.url, `/api/v1/users/${user.id}`, {
      method: 'PUT',
      key: service.adminKey,
      body: { role: 'train' },
    });

    expect(list.status).toBe(200);
    expect(read.status).toBe(200);
    for (const refused of [create, change]) {
      expect(expectNestedError(refused, 403, 'forbidden').details).toEqual({
        reason: 'admin_role_needs_session',
      });
    }
    expect(json(allowed).role).toBe('train');
  });

  it("never shows or changes another organization's users", async () => {
    const other = await createTenant(service);
    const theirs = await createTestUser(service, { orgId: other.orgId, role: 'admin' });

    const read = await browser.request(`/api/v1/users/${theirs.id}`);
    const change = await browser.request(`/api/v1/users/${theirs.id}`, {
      method: 'PUT',
      body: { role: 'readonly' },
    });
    const deactivate = await browser.request(`/api/v1/users/${theirs.id}`, { method: 'DELETE' });
    const list = await browser.request('/api/v1/users?limit=200');
    const keyRead = await api(service.url, `/api/v1/users/${admin.id}`, { key: other.key });

    expectNestedError(read, 404, 'not_found');
    expectNestedError(change, 404, 'not_found');
    expectNestedError(deactivate, 404, 'not_found');
    expect(json(list).users.map((user: { id: string }) => user.id)).not.toContain(theirs.id);
    expectNestedError(keyRead, 404, 'not_found');
    expect((await signedIn(service, theirs)).token).toBeDefined();
  });

  it('answers 400 for malformed ids and bodies, 404 for unknown users', async () => {
    const badId = await browser.request('/api/v1/users/agt_123');
    const unknown = await browser.request(`/api/v1/users/${unknownId('usr')}`);
    const badBody = await invite({ email: 'not an email', name: '', role: 'owner', extra: 1 });

    expectNestedError(badId, 400, 'invalid_request');
    expectNestedError(unknown, 404, 'not_found');
    const error = expectNestedError(badBody, 400, 'invalid_request');
    expect(fieldPaths(error).sort()).toEqual(['email', 'name', 'role']);
    expect(error.details.unknown_fields).toEqual(['extra']);
  });

  it('serves the legacy /api/users and /api/user-management/users (D8), camelCase accepted', async () => {
    const created = await browser.request('/api/user-management/users', {
      method: 'POST',
      body: { email: 'legacy@example.com', name: 'Legacy', role: 'readonly' },
    });
    const list = await browser.request('/api/users');
    const byKey = await api(service.url, '/api/user-management/users', {
      method: 'POST',
      key: service.adminKey,
      body: { email: 'legacy2@example.com', name: 'Legacy', role: 'readonly' },
    });
    const refused = await api(service.url, '/api/user-management/users', {
      method: 'POST',
      key: service.adminKey,
      body: { email: 'legacy3@example.com', name: 'Legacy', role: 'admin' },
    });

    expect(created.status).toBe(201);
    expect(created.headers.get('deprecation')).toBe('true');
    expect(created.headers.get('link')).toBe('</api/v1/users>; rel="successor-version"');
    expect(json(list).users.map((user: { id: string }) => user.id)).toContain(json(created).id);
    expect(byKey.status).toBe(201);
    expect(expectFlatError(refused, 403)).toMatchObject({
      code: 'forbidden',
      details: { reason: 'admin_role_needs_session' },
    });
  });

  it('stores user.created and user.updated in the outbox, with no secret in them', async () => {
    const created = json(
      await invite({ email: 'events@example.com', name: 'E', role: 'readonly' }),
    );
    await browser.request(`/api/v1/users/${created.id}`, { method: 'PUT', body: { name: 'Evie' } });

    const events = (await pendingEvents()).filter(
      (event) =>
        (event.data as { id?: string }).id === created.id ||
        (event.data as { user?: { id?: string } }).user?.id === created.id,
    );

    expect(events.map((event) => event.type)).toEqual(['user.created', 'user.updated']);
    expect(events[1]?.data).toMatchObject({
      user: { id: created.id, name: 'Evie' },
      changes: { name: { previous: 'E', current: 'Evie' } },
      // P225: who changed them.
      actor: { kind: 'user', user_id: admin.id },
    });
    expect(events[0]?.data.actor).toEqual({ kind: 'user', user_id: admin.id });
    const serialized = JSON.stringify(events);
    expect(serialized).not.toContain(created.invitation.token);
    expect(serialized).not.toMatch(/scrypt|password|invitation_hash|svcinv_/);
  });
});
