import { expectNestedError } from '../support/error-shapes';
import { startTestService, type TestService } from '../support/local-service';
import { createTestUser, signedIn, type TestUser, WebSession } from '../support/web-session';

/**
 * P236: in the cloud the console is served by CloudFront, which routes
 * `/api/*` to API Gateway with API Gateway's own `Host`; the browser's
 * `Origin` is the console's. `SVC_CONSOLE_ORIGIN` (set by the stack on every
 * HTTP family) names that origin, and the local runtime takes the same
 * setting, so these requests reach the service as they would through the
 * distribution: the gateway's host, the console's origin.
 */
const CONSOLE_ORIGIN = 'https://console.example.test';
const createAgent = { method: 'POST', body: { name: 'Helper', data_source_ids: [] } } as const;
const fromConsole = { origin: CONSOLE_ORIGIN, 'sec-fetch-site': 'same-origin' } as const;

describe('The console’s own origin behind CloudFront (D12, P236)', () => {
  let service: TestService;
  let user: TestUser;
  beforeAll(async () => {
    service = await startTestService({ env: { SVC_CONSOLE_ORIGIN: CONSOLE_ORIGIN } });
    user = await createTestUser(service, { role: 'configure' });
  });
  afterAll(() => service.end());

  it('signs in and accepts a signed-in change sent from the console’s origin', async () => {
    const browser = new WebSession(service.url);

    const login = await browser.request('/api/v1/auth/login', {
      method: 'POST',
      body: { email: user.email, password: user.password },
      headers: fromConsole,
    });
    const created = await browser.request('/api/v1/agents', {
      ...createAgent,
      headers: fromConsole,
    });

    expect(login.status).toBe(200);
    expect(created.status).toBe(201);
  });

  it('still refuses a foreign origin, and the console’s host over plain http', async () => {
    const browser = await signedIn(service, user);

    const foreign = await browser.request('/api/v1/agents', {
      ...createAgent,
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    const foreignSameSite = await browser.request('/api/v1/agents', {
      ...createAgent,
      headers: { origin: 'https://console.example.test.evil.example' },
    });
    const plainHttp = await browser.request('/api/v1/agents', {
      ...createAgent,
      headers: { origin: 'http://console.example.test' },
    });

    expect(expectNestedError(foreign, 403, 'forbidden').details.reason).toBe('cross_site');
    expect(expectNestedError(foreignSameSite, 403, 'forbidden').details.reason).toBe(
      'foreign_origin',
    );
    expect(expectNestedError(plainHttp, 403, 'forbidden').details.reason).toBe('foreign_origin');
  });

  it('still needs the session’s CSRF token from the console’s origin', async () => {
    const browser = await signedIn(service, user);
    browser.csrfToken = undefined;

    const response = await browser.request('/api/v1/agents', {
      ...createAgent,
      headers: fromConsole,
    });

    expect(expectNestedError(response, 403, 'forbidden').details.reason).toBe('csrf_token_missing');
  });

  it('keeps accepting the API’s own origin', async () => {
    const browser = await signedIn(service, user);

    const response = await browser.request('/api/v1/agents', {
      ...createAgent,
      headers: { origin: service.url, 'sec-fetch-site': 'same-origin' },
    });

    expect(response.status).toBe(201);
  });

  describe('without the setting', () => {
    let plain: TestService;
    beforeAll(async () => {
      plain = await startTestService();
    });
    afterAll(() => plain.end());

    it('refuses the console’s origin like any other', async () => {
      const browser = await signedIn(plain, await createTestUser(plain, { role: 'configure' }));

      const response = await browser.request('/api/v1/agents', {
        ...createAgent,
        headers: fromConsole,
      });

      expect(expectNestedError(response, 403, 'forbidden').details.reason).toBe('foreign_origin');
    });
  });

  it('refuses to start with a setting that is not an origin', async () => {
    await expect(
      startTestService({ env: { SVC_CONSOLE_ORIGIN: 'https://x.example/app/' } }),
    ).rejects.toThrow(/SVC_CONSOLE_ORIGIN/);
  });
});
