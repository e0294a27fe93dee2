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

const NEW_PASSWORD = 'a brand new passphrase';

/**
 * Sessions that end stay ended (issue 20 item 5, P222, P224): deactivation,
 * an administrator's "sign out everywhere" and a password change end a
 * user's sessions for good, over HTTP; a sliding refresh cannot revive
 * them, and a new sign-in works. Invitation links (issue 21, P61).
 */
describe('Sessions that end stay ended (P222, P224)', () => {
  const clock = new TestClock();
  let service: TestService;
  let admin: TestUser;
  let adminBrowser: WebSession;

  beforeAll(async () => {
    service = await startTestService({ clock });
    admin = await createTestUser(service, { role: 'admin' });
    adminBrowser = await signedIn(service, admin);
  });
  afterAll(() => service.end());
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  /** A request carrying exactly this session token, as a copied cookie would. */
  const withToken = (token: string | undefined, path = '/api/v1/agents') =>
    api(service.url, path, { headers: { cookie: `svc_session=${token ?? ''}` } });
  const revokeSessions = (userId: string, browser: WebSession = adminBrowser) =>
    browser.request(`/api/v1/users/${userId}/sessions/revoke`, { method: 'POST' });
  const changePassword = (browser: WebSession, body: Record<string, unknown>) =>
    browser.request('/api/v1/auth/password', { method: 'PUT', body });

  describe('deactivation', () => {
    it('keeps the old cookie refused when the user is restored', async () => {
      const user = await createTestUser(service, { role: 'configure' });
      const theirs = await signedIn(service, user);
      const before = theirs.token;

      await adminBrowser.request(`/api/v1/users/${user.id}`, { method: 'DELETE' });
      const restored = await adminBrowser.request(`/api/v1/users/${user.id}`, {
        method: 'PUT',
        body: { status: 'active' },
      });
      const oldCookie = await withToken(before);
      const signInAgain = await signedIn(service, user);

      expect(restored.status).toBe(200);
      expectNestedError(oldCookie, 401, 'unauthorized');
      expect(oldCookie.headers.getSetCookie()[0]).toMatch(/^svc_session=; Max-Age=0/);
      expect((await signInAgain.request('/api/v1/agents')).status).toBe(200);
    });
  });

  describe('sign out everywhere (POST /api/v1/users/:id/sessions/revoke)', () => {
    it('ends every session of the user, in every browser, while a new sign-in works', async () => {
      const user = await createTestUser(service, { role: 'readonly' });
      const laptop = await signedIn(service, user);
      const phone = await signedIn(service, user);

      const revoked = await revokeSessions(user.id);
      const fromLaptop = await laptop.request('/api/v1/agents');
      const fromPhone = await phone.request('/api/v1/auth/me');
      const again = await signedIn(service, user);

      expect(revoked.status).toBe(204);
      expect(revoked.text).toBe('');
      expectNestedError(fromLaptop, 401, 'unauthorized');
      expectNestedError(fromPhone, 401, 'unauthorized');
      expect((await again.request('/api/v1/agents')).status).toBe(200);
      expect((await adminBrowser.request('/api/v1/agents')).status).toBe(200);
    });

    it('lets no sliding refresh revive an ended session: neither a token refreshed before, nor refresh after', async () => {
      const user = await createTestUser(service, { role: 'readonly' });
      const browser = await signedIn(service, user);
      const signInToken = browser.token;
      clock.advance(2000);
      const refreshedBefore = await browser.request('/api/v1/auth/refresh', { method: 'POST' });
      const continuedToken = browser.token;

      await revokeSessions(user.id);
      const refreshAfter = await browser.request('/api/v1/auth/refresh', { method: 'POST' });
      const withSignInToken = await withToken(signInToken);
      const withContinuedToken = await withToken(continuedToken);

      expect(refreshedBefore.status).toBe(200);
      expect(continuedToken).not.toBe(signInToken);
      expectNestedError(refreshAfter, 401, 'unauthorized');
      expectNestedError(withSignInToken, 401, 'unauthorized');
      expectNestedError(withContinuedToken, 401, 'unauthorized');
    });

    it("signs the administrator themselves out everywhere, this browser's cookie cleared", async () => {
      const other = await createTestUser(service, { role: 'admin' });
      const browser = await signedIn(service, other);
      const elsewhere = await signedIn(service, other);

      const revoked = await revokeSessions(other.id, browser);
      const after = await elsewhere.request('/api/v1/agents');

      expect(revoked.status).toBe(204);
      expect(browser.token).toBeUndefined();
      expectNestedError(after, 401, 'unauthorized');
    });

    it("answers 404 for another organization's user and an unknown one, and leaves their sessions alone", async () => {
      const tenant = await createTenant(service);
      const theirs = await createTestUser(service, { orgId: tenant.orgId, role: 'admin' });
      const theirBrowser = await signedIn(service, theirs);

      const foreign = await revokeSessions(theirs.id);
      const unknown = await revokeSessions(unknownId('usr'));
      const malformed = await revokeSessions('agt_123');

      expectNestedError(foreign, 404, 'not_found');
      expectNestedError(unknown, 404, 'not_found');
      expectNestedError(malformed, 400, 'invalid_request');
      expect((await theirBrowser.request('/api/v1/agents')).status).toBe(200);
    });

    it('takes a signed-in admin: 403 for a lesser role and for an API key (P65)', async () => {
      const user = await createTestUser(service, { role: 'readonly' });
      const configure = await signedIn(
        service,
        await createTestUser(service, { role: 'configure' }),
      );

      const byRole = await revokeSessions(user.id, configure);
      const byKey = await api(service.url, `/api/v1/users/${user.id}/sessions/revoke`, {
        method: 'POST',
        key: service.adminKey,
      });

      expectNestedError(byRole, 403, 'forbidden');
      expect(expectNestedError(byKey, 403, 'forbidden').details).toEqual({
        required_credential: 'session',
      });
    });
  });

  describe('password change (PUT /api/v1/auth/password)', () => {
    it("ends the user's other sessions; this browser continues with a new cookie and CSRF token", async () => {
      const user = await createTestUser(service, { role: 'train' });
      const browser = await signedIn(service, user);
      const other = await signedIn(service, user);
      const before = { token: browser.token, csrf: browser.csrfToken };

      const changed = await changePassword(browser, {
        current_password: user.password,
        new_password: NEW_PASSWORD,
      });
      const fromOther = await other.request('/api/v1/agents');
      const withOldToken = await withToken(before.token);
      const own = await browser.request('/api/v1/agents');
      const ownChange = await browser.request('/api/v1/auth/refresh', { method: 'POST' });
      const oldPassword = await new Browser(service.url).signIn(user.email, user.password);
      const newPassword = await new Browser(service.url).signIn(user.email, NEW_PASSWORD);

      expect(changed.status).toBe(200);
      expect(json(changed).user).toMatchObject({ id: user.id, status: 'active' });
      expect(json(changed).csrf_token).toEqual(expect.any(String));
      expect(changed.headers.get('x-csrf-token')).toBe(json(changed).csrf_token);
      expect(browser.token).not.toBe(before.token);
      expect(browser.csrfToken).not.toBe(before.csrf);
      expectNestedError(fromOther, 401, 'unauthorized');
      expectNestedError(withOldToken, 401, 'unauthorized');
      expect(own.status).toBe(200);
      expect(ownChange.status).toBe(200);
      expectNestedError(oldPassword, 401, 'unauthorized');
      expect(newPassword.status).toBe(200);
      expect(JSON.stringify(changed.body)).not.toMatch(/scrypt|password_hash/);
    });

    it('refuses a wrong current password (400 naming it) and a new one outside P62, changing nothing', async () => {
      const user = await createTestUser(service, { role: 'readonly' });
      const browser = await signedIn(service, user);

      const wrong = await changePassword(browser, {
        current_password: 'not the password at all',
        new_password: NEW_PASSWORD,
      });
      const short = await changePassword(browser, {
        current_password: user.password,
        new_password: 'short',
      });
      const missing = await changePassword(browser, { new_password: NEW_PASSWORD });
      const still = await browser.request('/api/v1/agents');
      const oldPassword = await new Browser(service.url).signIn(user.email, user.password);

      expect(fieldPaths(expectNestedError(wrong, 400, 'invalid_request'))).toEqual([
        'current_password',
      ]);
      expect(fieldPaths(expectNestedError(short, 400, 'invalid_request'))).toEqual([
        'new_password',
      ]);
      expect(fieldPaths(expectNestedError(missing, 400, 'invalid_request'))).toEqual([
        'current_password',
      ]);
      expect(still.status).toBe(200);
      expect(oldPassword.status).toBe(200);
    });

    it("slows down guesses at the current password as sign-ins are (P62's 10, then 429)", async () => {
      const user = await createTestUser(service, { role: 'readonly' });
      const browser = await signedIn(service, user);
      const guess = () =>
        changePassword(browser, { current_password: 'a wrong guess!', new_password: NEW_PASSWORD });

      const guesses = [];
      for (let attempt = 0; attempt < 10; attempt += 1) guesses.push((await guess()).status);
      const throttled = await guess();
      const right = await changePassword(browser, {
        current_password: user.password,
        new_password: NEW_PASSWORD,
      });

      expect(guesses).toEqual(Array(10).fill(400));
      expect(expectNestedError(throttled, 429, 'rate_limit_exceeded').details).toMatchObject({
        reason: 'login_attempts',
      });
      expect(throttled.headers.get('retry-after')).toEqual(expect.stringMatching(/^\d+$/));
      // Throttled means throttled, even for the right password, until the bucket refills.
      expect(right.status).toBe(429);
    });

    it('is refused to a user without a password (403 no_password) and to API keys', async () => {
      const ssoOnly = await createTestUser(service, { role: 'readonly' });
      const browser = await signedIn(service, ssoOnly);
      const stored = await service.runtime.dependencies.users.getWithCredentials(
        ssoOnly.orgId,
        ssoOnly.id,
      );
      // As SSO provisioning (P88) creates a user: no password at all.
      await service.runtime.dependencies.users.update(
        ssoOnly.orgId,
        ssoOnly.id,
        { updated_at: new Date().toISOString() },
        {
          expectedVersion: stored?.version ?? 0,
          events: [],
          credentials: { passwordHash: null },
          now: Date.now(),
        },
      );

      const refused = await changePassword(browser, {
        current_password: ssoOnly.password,
        new_password: NEW_PASSWORD,
      });
      const byKey = await api(service.url, '/api/v1/auth/password', {
        method: 'PUT',
        key: service.adminKey,
        body: { current_password: 'x', new_password: NEW_PASSWORD },
      });

      expect(expectNestedError(refused, 403, 'forbidden').details).toEqual({
        reason: 'no_password',
      });
      expectNestedError(byKey, 403, 'forbidden');
    });
  });

  describe('invitation links (issue 21)', () => {
    const accept = (url: string) => new URL(url);

    it('answers invitation_url, the console page with the token in its fragment, v1, re-invite and legacy', async () => {
      const created = await adminBrowser.request('/api/v1/users', {
        method: 'POST',
        body: { email: `invited-${Date.now()}@example.com`, name: 'I', role: 'readonly' },
      });
      const reinvited = await adminBrowser.request(`/api/v1/users/${json(created).id}/invitation`, {
        method: 'POST',
      });
      const legacy = await adminBrowser.request('/api/user-management/users', {
        method: 'POST',
        body: { email: `legacy-${Date.now()}@example.com`, name: 'L', role: 'readonly' },
      });

      for (const invitation of [
        json(created).invitation,
        json(reinvited),
        json(legacy).invitation,
      ]) {
        const url = accept(invitation.invitation_url);
        expect(url.origin).toBe(service.url);
        expect(url.pathname).toBe('/invitations/accept');
        expect(url.search).toBe('');
        expect(url.hash).toBe(`#token=${invitation.token}`);
      }
      expect(json(reinvited).token).not.toBe(json(created).invitation.token);
    });

    it('accepts the token the link carries, and the new user is signed in', async () => {
      const created = await adminBrowser.request('/api/v1/users', {
        method: 'POST',
        body: { email: `linked-${Date.now()}@example.com`, name: 'L', role: 'readonly' },
      });
      const token = new URLSearchParams(
        accept(json(created).invitation.invitation_url).hash.slice(1),
      ).get('token');

      const browser = new Browser(service.url);
      const accepted = await browser.request('/api/v1/auth/invitations/accept', {
        method: 'POST',
        body: { token, password: NEW_PASSWORD },
      });

      expect(accepted.status).toBe(200);
      expect((await browser.request('/api/v1/auth/me')).status).toBe(200);
    });
  });

  it('answers the legacy flat shape on a legacy path after a session ended', async () => {
    const user = await createTestUser(service, { role: 'readonly' });
    const browser = await signedIn(service, user);
    await revokeSessions(user.id);

    const legacy = await browser.request('/api/auth/me');

    expect(expectFlatError(legacy, 401)).toMatchObject({
      error: 'Invalid session',
      message: 'This session has ended: sign in again',
    });
  });
});
