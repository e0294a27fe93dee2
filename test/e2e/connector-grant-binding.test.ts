import { ConfluenceEmulator } from '../support/confluence-emulator';
import { connectorSteps } from '../support/connector-sign-in';
import { expectNestedError } from '../support/error-shapes';
import { createDataSource } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { createTenant } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import { parseSetCookie, type WebSession } from '../support/web-session';

const FLOW_COOKIE = 'svc_oauth_flow';

/**
 * A connector grant belongs to the person who started it (issue 20 item 3;
 * P215, P216), over real HTTP against a loopback Atlassian: the callback
 * connects only in the browser whose `oauth/start` set the flow cookie —
 * any other browser gets the page a tampered state gets and the code is
 * never exchanged; `oauth/start` takes a signed-in person (no API keys) and
 * is refused to a cross-site or token-less navigation, so a foreign page
 * can neither start nor replace a flow.
 */
describe('Connector sign-in bound to the starting browser (issue 20)', () => {
  const clock = new TestClock();
  let emulator: ConfluenceEmulator;
  let service: TestService;

  beforeAll(async () => {
    emulator = await new ConfluenceEmulator(clock).start();
    service = await startTestService({
      clock,
      env: {
        SVC_ALLOW_PRIVATE_URLS: 'true',
        SVC_CONFLUENCE_CLIENT_ID: emulator.clientId,
        SVC_CONFLUENCE_CLIENT_SECRET: emulator.clientSecret,
        SVC_ATLASSIAN_AUTH_URL: emulator.origin,
        SVC_ATLASSIAN_API_URL: emulator.origin,
      },
    });
  });
  afterAll(async () => {
    await service.end();
    await emulator.close();
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const { browser, start, consentAndCallback, connect, sourceOf } = connectorSteps(
    () => service,
    [],
  );

  const confluenceSource = () =>
    createDataSource(service, service.adminKey, {
      type: 'confluence',
      name: 'Wiki',
      config: { base_url: 'https://acme.atlassian.net', space_keys: ['ENG'] },
      sync_frequency: 'manual',
    });
  const codeExchanges = () =>
    emulator.requests().filter((request) => request.url === '/oauth/token').length;

  /** What a forged state gets: the page every refused callback must look like. */
  async function tamperedStatePage(authorizationUrl: string) {
    const state = new URL(authorizationUrl).searchParams.get('state') ?? '';
    const response = await fetch(
      `${service.url}/api/oauth/callback?code=anything&state=${encodeURIComponent(`${state.slice(0, -4)}AAAA`)}`,
    );
    return { status: response.status, text: await response.text() };
  }

  it('sets the flow cookie at the start and connects in that browser, clearing it', async () => {
    const source = await confluenceSource();

    const started = await start(source.id);

    expect(started.status).toBe(302);
    const flow = started.browser.jar.get(FLOW_COOKIE);
    expect(flow?.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(flow?.attributes).toEqual({
      'max-age': '600',
      path: '/api/oauth',
      httponly: true,
      secure: true,
      samesite: 'Lax',
    });
    // The session the request continued is re-issued beside it (D12).
    expect(started.browser.jar.get('svc_session')).toBeDefined();
    const page = await consentAndCallback(started.location ?? '', started.browser);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Connected');
    // P249: the page sends the browser back to the source in the console, and links there.
    const back = `${service.url}/data-sources/${source.id}?connected=1`;
    expect(page.text).toContain(`<meta http-equiv="refresh" content="0; url=${back}">`);
    expect(page.text).toContain(`<a href="${back}">Back to Wiki</a>`);
    expect(page.setCookie.map(parseSetCookie)).toContainEqual(
      expect.objectContaining({
        name: FLOW_COOKIE,
        value: '',
        attributes: expect.objectContaining({ 'max-age': '0', path: '/api/oauth' }),
      }),
    );
    expect((await sourceOf(source.id)).connection_status).toBe('Connected');
  });

  it('refuses the callback in a browser without the flow cookie, as a tampered state, and spends the flow', async () => {
    const source = await confluenceSource();
    const started = await start(source.id);
    const tampered = await tamperedStatePage(started.location ?? '');
    const exchanges = codeExchanges();

    // Someone else opens the sign-in link and consents with their own account.
    const elsewhere = await consentAndCallback(started.location ?? '');

    expect(tampered.status).toBe(400);
    expect({ status: elsewhere.status, text: elsewhere.text }).toEqual(tampered);
    // P249: a failure keeps its words and links to the console's data sources, without moving on by itself.
    expect(tampered.text).toContain('<h1>Connection failed</h1>');
    expect(tampered.text).toContain(
      `<a href="${service.url}/data-sources">Back to data sources</a>`,
    );
    expect(tampered.text).not.toContain('http-equiv');
    expect(codeExchanges()).toBe(exchanges);
    expect((await sourceOf(source.id)).connection_status).toBe('Disconnected');
    // As SSO's (P90): a flow tried in another browser is spent; its starter begins again.
    const late = await consentAndCallback(started.location ?? '', started.browser);
    expect(late.status).toBe(400);
    expect((await sourceOf(source.id)).connection_status).toBe('Disconnected');
    expect((await connect(source.id, started.browser)).status).toBe(200);
    expect((await sourceOf(source.id)).connection_status).toBe('Connected');
  });

  it("refuses the callback in a browser holding another flow's cookie", async () => {
    const victims = await confluenceSource();
    const started = await start(victims.id);
    // Another signed-in person starts a sign-in of their own: their browser has a flow cookie too.
    const other = await start((await confluenceSource()).id);
    expect(other.browser.jar.get(FLOW_COOKIE)?.value).not.toBe(
      started.browser.jar.get(FLOW_COOKIE)?.value,
    );
    const tampered = await tamperedStatePage(started.location ?? '');

    const page = await consentAndCallback(started.location ?? '', other.browser);

    expect({ status: page.status, text: page.text }).toEqual(tampered);
    expect((await sourceOf(victims.id)).connection_status).toBe('Disconnected');
  });

  it('refuses a cross-site navigation to oauth/start, which neither starts nor replaces a flow', async () => {
    const source = await confluenceSource();
    const person = await browser();
    const started = await start(source.id, person);
    const cookies = person.jar.header(`/api/v1/data-sources/${source.id}/oauth/start`) ?? '';

    // A link on another site: the browser sends its Lax session cookie, never the CSRF token.
    const crossSite = await api(service.url, `/api/v1/data-sources/${source.id}/oauth/start`, {
      headers: { cookie: cookies, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' },
      redirect: 'manual',
    });
    // Typed in the address bar, or a same-site link: no token either.
    const noToken = await api(service.url, `/api/v1/data-sources/${source.id}/oauth/start`, {
      headers: { cookie: cookies, 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' },
      redirect: 'manual',
    });

    expect(expectNestedError(crossSite, 403, 'forbidden').details).toEqual({
      reason: 'cross_site',
    });
    expect(crossSite.headers.getSetCookie().join()).not.toContain(FLOW_COOKIE);
    expect(expectNestedError(noToken, 403, 'forbidden').details).toEqual({
      reason: 'csrf_token_missing',
    });
    expect(noToken.headers.getSetCookie().join()).not.toContain(FLOW_COOKIE);
    // The person's own sign-in, started before, still completes.
    const page = await consentAndCallback(started.location ?? '', person);
    expect(page.status).toBe(200);
    expect((await sourceOf(source.id)).connection_status).toBe('Connected');
  });

  it('refuses API keys: connecting is a signed-in person consenting (P215)', async () => {
    const source = await confluenceSource();
    const other = await createTenant(service);

    for (const key of [service.adminKey, other.key]) {
      const response = await api(service.url, `/api/v1/data-sources/${source.id}/oauth/start`, {
        key,
        redirect: 'manual',
      });
      const error = expectNestedError(response, 403, 'forbidden');
      expect(error.details).toEqual({ reason: 'session_required', required_credential: 'session' });
      expect(error.message).toMatch(/consent/);
      expect(response.headers.get('location')).toBeNull();
    }
    expect((await sourceOf(source.id)).connection_status).toBe('Disconnected');
  });

  it('answers the web application, which asks for JSON, with 200 and the URL to navigate to (P216)', async () => {
    const source = await confluenceSource();
    const person: WebSession = await browser();

    const response = await person.request(`/api/v1/data-sources/${source.id}/oauth/start`, {
      headers: {
        accept: 'application/json',
        'x-csrf-token': person.csrfToken ?? '',
        'sec-fetch-site': 'same-origin',
      },
      redirect: 'manual',
    });

    expect(response.status).toBe(200);
    expect(response.headers.get('location')).toBeNull();
    expect(json(response)).toEqual({
      authorization_url: expect.stringContaining(`${emulator.origin}/authorize?`),
      expires_at: expect.any(String),
    });
    expect(person.jar.get(FLOW_COOKIE)).toBeDefined();
    const page = await consentAndCallback(json(response).authorization_url, person);
    expect(page.status).toBe(200);
    expect((await sourceOf(source.id)).connection_status).toBe('Connected');
  });
});
