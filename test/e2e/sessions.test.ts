import { expectFlatError, expectNestedError } from '../support/error-shapes';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { TestClock } from '../support/test-clock';
import { createTestUser, signedIn, type TestUser, WebSession } from '../support/web-session';

const DAY_MS = 24 * 3600 * 1000;

describe('Web sessions (D12)', () => {
  const clock = new TestClock();
  let service: TestService;
  let admin: TestUser;
  beforeAll(async () => {
    service = await startTestService({ clock });
    admin = await createTestUser(service, { role: 'admin' });
  });
  afterAll(() => service.end());

  it('signs in with email and password: an HttpOnly, Secure, SameSite=Lax cookie and a CSRF token', async () => {
    const browser = new WebSession(service.url);

    const response = await browser.signIn(admin.email.toUpperCase(), admin.password);

    expect(response.status).toBe(200);
    const body = json(response);
    expect(body.user).toMatchObject({
      id: admin.id,
      org_id: service.orgId,
      email: admin.email,
      role: 'admin',
      status: 'active',
    });
    expect(body.user.password_hash).toBeUndefined();
    expect(body.csrf_token).toEqual(expect.any(String));
    expect(response.headers.get('x-csrf-token')).toBe(body.csrf_token);
    const cookie = browser.jar.get('svc_session');
    expect(cookie?.attributes).toMatchObject({
      httponly: true,
      secure: true,
      samesite: 'Lax',
      path: '/',
      'max-age': String(7 * 24 * 3600),
    });
    expect(Date.parse(body.session_expires_at) - Date.parse(body.expires_at)).toBe(23 * DAY_MS);
  });

  it('lets the signed-in user read as the API would let a key (me, then a list)', async () => {
    const browser = await signedIn(service, admin);

    const me = await browser.request('/api/v1/auth/me');
    const agents = await browser.request('/api/v1/agents');

    expect(me.status).toBe(200);
    expect(json(me).user.id).toBe(admin.id);
    // P230: the organization's name, for the console's shell whatever the role.
    expect(json(me).organization).toEqual({ id: service.orgId, name: 'Local organization' });
    expect(agents.status).toBe(200);
  });

  it('refuses a wrong password and an unknown email alike', async () => {
    const wrong = await new WebSession(service.url).signIn(admin.email, 'not the password at all');
    const unknown = await new WebSession(service.url).signIn(
      'nobody@example.com',
      'whatever it is',
    );

    const wrongError = expectNestedError(wrong, 401, 'unauthorized');
    const unknownError = expectNestedError(unknown, 401, 'unauthorized');
    expect(wrongError.message).toBe(unknownError.message);
    expect(wrong.headers.getSetCookie()).toEqual([]);
  });

  it('answers legacy /api/auth paths in the flat shape', async () => {
    const response = await api(service.url, '/api/auth/login', {
      method: 'POST',
      body: { email: admin.email, password: 'wrong password!!' },
    });

    expect(expectFlatError(response, 401)).toMatchObject({ error: 'Invalid email or password' });
  });

  it('logs out: the cookie is cleared and the token no longer works anywhere', async () => {
    const browser = await signedIn(service, admin);
    const token = browser.token;

    const out = await browser.request('/api/v1/auth/logout', { method: 'DELETE' });
    const replay = await api(service.url, '/api/v1/auth/me', {
      headers: { cookie: `svc_session=${token}` },
    });

    expect(out.status).toBe(204);
    expect(browser.token).toBeUndefined();
    expectNestedError(replay, 401, 'unauthorized');
  });
});

describe('Session expiry (D12: 7 days sliding, 30 days at most)', () => {
  const clock = new TestClock();
  let service: TestService;
  let user: TestUser;
  beforeAll(async () => {
    service = await startTestService({ clock });
    user = await createTestUser(service, { role: 'readonly' });
  });
  afterAll(() => service.end());
  afterEach(() => clock.resume());

  const expiryOf = (browser: WebSession) =>
    Number(browser.jar.get('svc_session')?.attributes['max-age']);

  it('re-issues the cookie on every authenticated request, 7 days from that request', async () => {
    const browser = await signedIn(service, user);
    const first = browser.token;

    clock.advance(6 * DAY_MS);
    const later = await browser.request('/api/v1/agents');

    expect(later.status).toBe(200);
    expect(browser.token).not.toBe(first);
    expect(expiryOf(browser)).toBe(7 * 24 * 3600);
    // Six more days: past the first cookie's 7 days, within the re-issued one's.
    clock.advance(6 * DAY_MS);
    expect((await browser.request('/api/v1/auth/me')).status).toBe(200);
  });

  it('expires after 7 days without a request', async () => {
    const browser = await signedIn(service, user);

    clock.advance(7 * DAY_MS + 1000);
    const response = await browser.request('/api/v1/auth/me');

    expectNestedError(response, 401, 'unauthorized');
    // The dead cookie is cleared rather than sent again.
    expect(browser.token).toBeUndefined();
  });

  it('never lives past 30 days from sign-in, however active', async () => {
    // Frozen on a whole second: tokens count in whole seconds, so a second
    // boundary passing between sign-in and a request would shift the cap by one.
    clock.freeze();
    clock.advanceTo(new Date(Math.ceil(clock.now().getTime() / 1000) * 1000));
    const browser = await signedIn(service, user);
    const signedInAt = clock.now().getTime();

    for (let day = 6; day < 30; day += 6) {
      clock.advanceTo(new Date(signedInAt + day * DAY_MS));
      expect((await browser.request('/api/v1/auth/me')).status).toBe(200);
    }
    // Day 24: the re-issued cookie stops at day 30, not day 31.
    expect(expiryOf(browser)).toBe(6 * 24 * 3600);
    clock.advanceTo(new Date(signedInAt + 29 * DAY_MS));
    const lastDay = await browser.request('/api/v1/auth/me');
    expect(Date.parse(json(lastDay).expires_at)).toBe(signedInAt + 30 * DAY_MS);
    clock.advanceTo(new Date(signedInAt + 30 * DAY_MS + 1000));

    expectNestedError(await browser.request('/api/v1/auth/me'), 401, 'unauthorized');
  });

  it('refreshes explicitly: a new cookie 7 days on, the same session and CSRF token', async () => {
    const browser = await signedIn(service, user);
    const csrf = browser.csrfToken;
    clock.advance(3 * DAY_MS);

    const refreshed = await browser.request('/api/v1/auth/refresh', { method: 'POST' });

    expect(refreshed.status).toBe(200);
    expect(json(refreshed).csrf_token).toBe(csrf);
    expect(Date.parse(json(refreshed).refresh_after)).toBe(
      Date.parse(json(refreshed).expires_at) - 3600 * 1000,
    );
    expect(expiryOf(browser)).toBe(7 * 24 * 3600);
  });

  it('rotates the session at sign-in: the earlier session ends and the CSRF token changes', async () => {
    const browser = await signedIn(service, user);
    const earlierToken = browser.token;
    const earlierCsrf = browser.csrfToken;

    const again = await browser.signIn(user.email, user.password);
    const replay = await api(service.url, '/api/v1/auth/me', {
      headers: { cookie: `svc_session=${earlierToken}` },
    });

    expect(again.status).toBe(200);
    expect(browser.token).not.toBe(earlierToken);
    expect(browser.csrfToken).not.toBe(earlierCsrf);
    expectNestedError(replay, 401, 'unauthorized');
    expect((await browser.request('/api/v1/auth/me')).status).toBe(200);
  });

  it('keeps other sessions of the same user when one logs out', async () => {
    const laptop = await signedIn(service, user);
    const phone = await signedIn(service, user);

    await laptop.request('/api/v1/auth/logout', { method: 'DELETE' });

    expect((await phone.request('/api/v1/auth/me')).status).toBe(200);
    expect((await laptop.request('/api/v1/auth/me')).status).toBe(401);
  });

  it('keeps a logged-out token refused until it would have expired anyway', async () => {
    const browser = await signedIn(service, user);
    const token = browser.token;
    await browser.request('/api/v1/auth/logout', { method: 'DELETE' });

    clock.advance(6 * DAY_MS);
    const replay = await api(service.url, '/api/v1/auth/me', {
      headers: { cookie: `svc_session=${token}` },
    });

    expectNestedError(replay, 401, 'unauthorized');
  });
});
