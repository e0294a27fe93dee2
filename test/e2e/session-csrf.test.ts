import { expectFlatError, expectNestedError } from '../support/error-shapes';
import { api } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { createTestUser, signedIn, type TestUser, WebSession } from '../support/web-session';

const createAgent = { method: 'POST', body: { name: 'Helper', data_source_ids: [] } } as const;

describe('Cross-site request forgery (D12)', () => {
  let service: TestService;
  let user: TestUser;
  let origin: string;
  beforeAll(async () => {
    service = await startTestService();
    user = await createTestUser(service, { role: 'configure' });
    origin = service.url;
  });
  afterAll(() => service.end());

  it('accepts a state change carrying the session’s X-CSRF-Token, from the same origin', async () => {
    const browser = await signedIn(service, user);

    const plain = await browser.request('/api/v1/agents', createAgent);
    const sameOrigin = await browser.request('/api/v1/agents', {
      ...createAgent,
      headers: { origin, 'sec-fetch-site': 'same-origin' },
    });

    expect(plain.status).toBe(201);
    expect(sameOrigin.status).toBe(201);
  });

  it('refuses a cookie-authenticated change without the token', async () => {
    const browser = await signedIn(service, user);
    browser.csrfToken = undefined;

    const response = await browser.request('/api/v1/agents', createAgent);

    const error = expectNestedError(response, 403, 'forbidden');
    expect(error.details).toEqual({ reason: 'csrf_token_missing' });
  });

  it('refuses a wrong token, and the token of another session', async () => {
    const browser = await signedIn(service, user);
    const other = await signedIn(service, await createTestUser(service, { role: 'configure' }));

    const wrong = await browser.request('/api/v1/agents', {
      ...createAgent,
      headers: { 'x-csrf-token': 'x'.repeat(43) },
    });
    const borrowed = await browser.request('/api/v1/agents', {
      ...createAgent,
      headers: { 'x-csrf-token': other.csrfToken ?? '' },
    });

    expect(expectNestedError(wrong, 403, 'forbidden').details.reason).toBe('csrf_token_mismatch');
    expect(expectNestedError(borrowed, 403, 'forbidden').details.reason).toBe(
      'csrf_token_mismatch',
    );
  });

  it('refuses Sec-Fetch-Site: cross-site and a foreign Origin, even with the right token', async () => {
    const browser = await signedIn(service, user);

    const crossSite = await browser.request('/api/v1/agents', {
      ...createAgent,
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    const foreign = await browser.request('/api/v1/agents', {
      ...createAgent,
      headers: { origin: 'https://evil.example' },
    });
    const nullOrigin = await browser.request('/api/v1/agents', {
      ...createAgent,
      headers: { origin: 'null' },
    });

    expect(expectNestedError(crossSite, 403, 'forbidden').details.reason).toBe('cross_site');
    expect(expectNestedError(foreign, 403, 'forbidden').details.reason).toBe('foreign_origin');
    expect(expectNestedError(nullOrigin, 403, 'forbidden').details.reason).toBe('foreign_origin');
  });

  it('guards logout and refresh too (they change the session)', async () => {
    const browser = await signedIn(service, user);
    browser.csrfToken = undefined;

    const logout = await browser.request('/api/v1/auth/logout', { method: 'DELETE' });
    const refresh = await browser.request('/api/v1/auth/refresh', { method: 'POST' });

    expectNestedError(logout, 403, 'forbidden');
    expectNestedError(refresh, 403, 'forbidden');
    expect((await browser.request('/api/v1/auth/me')).status).toBe(200);
  });

  it('refuses a cross-site sign-in (no login CSRF)', async () => {
    const browser = new WebSession(service.url);

    const response = await browser.request('/api/v1/auth/login', {
      method: 'POST',
      body: { email: user.email, password: user.password },
      headers: { 'sec-fetch-site': 'cross-site' },
    });

    expectNestedError(response, 403, 'forbidden');
    expect(browser.token).toBeUndefined();
  });

  it('lets reads through without a token: a GET changes nothing', async () => {
    const browser = await signedIn(service, user);
    browser.csrfToken = undefined;

    const response = await browser.request('/api/v1/agents', {
      headers: { 'sec-fetch-site': 'cross-site' },
    });

    expect(response.status).toBe(200);
  });

  it('leaves API keys alone: a bearer key is not a cookie a browser sends by itself', async () => {
    const response = await api(service.url, '/api/v1/agents', {
      ...createAgent,
      key: service.adminKey,
      headers: { origin: 'https://elsewhere.example', 'sec-fetch-site': 'cross-site' },
    });

    expect(response.status).toBe(201);
  });

  it('answers legacy paths in the flat shape', async () => {
    const browser = await signedIn(service, user);
    browser.csrfToken = undefined;

    const response = await browser.request('/api/ai-agent-managers', createAgent);

    expect(expectFlatError(response, 403)).toMatchObject({
      status: 403,
      code: 'forbidden',
      details: { reason: 'csrf_token_missing' },
    });
  });
});
