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
