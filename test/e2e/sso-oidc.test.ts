import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOrganization } from '../../layers/core/use-cases/organizations/organization-use-cases';
import { Browser, type Page } from '../support/browser';
import { TestDnsServer } from '../support/dns-server';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { type IdTokenAttack, TestOidcProvider } from '../support/oidc-provider';
import { createTenant } from '../support/tenants';
import { createTestUser, signedIn, type TestUser, type WebSession } from '../support/web-session';

const CALLBACK_PATH = '/api/v1/sso/oidc/callback';
const CLIENT = { client_id: 'agent-query-service', client_secret: 'a client secret for tests' };

/**
 * D14 OIDC sign-in, end to end over HTTP: a browser (cookies, redirects,
 * forms) goes from the service to a real OpenID Provider on loopback
 * (oidc-provider, in its own process), signs in there, and comes back with
 * an authorization code (PKCE, state, nonce); the service verifies the ID
 * token against the provider's JWKS and sets `svc_session`. Then the
 * attacks: wrong state, another browser, replayed code and callback, wrong
 * nonce, tampered or foreign-signed tokens, another audience, expired,
 * `alg: none`, HS256 with the client secret.
 */
describe('OIDC sign-in (D14)', () => {
  const dns = new TestDnsServer();
  const provider = new TestOidcProvider();
  let service: TestService;
  let orgId: string;
  let admin: TestUser;
  let adminBrowser: WebSession;
  const domain = `acme-${Date.now()}.example`;

  const isCallback = (next: URL) => next.pathname === CALLBACK_PATH;

  /** The browser's way out and through the provider, stopping just before the callback. */
  async function throughProvider(
    browser: Browser,
    email: string,
    start = `/api/v1/sso/start?org_id=${orgId}`,
  ): Promise<string> {
    // A browser with a session at the provider comes straight back; otherwise login, then consent.
    let last = await browser.navigate(`${service.url}${start}`, { stopAt: isCallback });
    for (let step = 0; step < 3 && last.status === 200; step += 1) {
      expect(last.url.startsWith(provider.issuer)).toBe(true);
      last = await browser.submitForm(
        last,
        { login: email, password: 'anything' },
        { stopAt: isCallback },
      );
    }
    const location = last.headers.get('location');
    if (!location || !isCallback(new URL(location, last.url))) {
      throw new Error(`no callback: ${browser.history.join('\n')}\n${last.text.slice(0, 500)}`);
    }
    return new URL(location, last.url).href;
  }

  /** A full sign-in as an API client makes it: `next` names the session (`me`, P262), followed there. */
  async function signInWithSso(browser: Browser, email: string): Promise<Page> {
    const callback = await throughProvider(
      browser,
      email,
      `/api/v1/sso/start?org_id=${orgId}&next=${encodeURIComponent('/api/v1/auth/me')}`,
    );
    return browser.navigate(callback);
  }

  async function configure(extra: Record<string, unknown> = {}) {
    const response = await adminBrowser.request(`/api/v1/organizations/${orgId}/sso`, {
      method: 'PUT',
      body: {
        protocol: 'oidc',
        enforce_sso: false,
        oidc: { issuer: provider.issuer, ...CLIENT },
        ...extra,
      },
    });
    expect(response.status).toBe(200);
    return response;
  }

  beforeAll(async () => {
    await dns.start();
    service = await startTestService({
      // D35: the provider is on loopback, which only tests and local runs may reach.
      env: { SVC_DNS_SERVERS: dns.address, SVC_ALLOW_PRIVATE_URLS: 'true' },
    });
    await provider.start([{ ...CLIENT, redirect_uris: [`${service.url}${CALLBACK_PATH}`] }]);
    const org = await createOrganization(service.runtime.dependencies, {
      name: 'Acme',
      plan: 'enterprise',
    });
    orgId = org.id;
    admin = await createTestUser(service, { orgId, role: 'admin', email: `admin@${domain}` });
    adminBrowser = await signedIn(service, admin);
    const added = await adminBrowser.request(`/api/v1/organizations/${orgId}/sso/domains`, {
      method: 'POST',
      body: { domain },
    });
    const record = json(added).txt_record;
    dns.txt.set(record.name, [record.value]);
    await adminBrowser.request(`/api/v1/organizations/${orgId}/sso/domains/${domain}/verify`, {
      method: 'POST',
    });
    const configured = await configure();
    expect(json(configured).redirect_uri).toBe(`${service.url}${CALLBACK_PATH}`);
  });
  afterAll(async () => {
    await service.end();
    await provider.stop();
    await dns.stop();
  });
  afterEach(() => configure());

  describe('the flow', () => {
    it('signs a known user in through the provider: the same svc_session as a password sign-in', async () => {
      const member = await createTestUser(service, {
        orgId,
        role: 'configure',
        email: `member@${domain}`,
      });
      const browser = new Browser();

      const callback = await throughProvider(browser, member.email.toUpperCase());
      const landed = await browser.request(callback);
      const me = await browser.request(`${service.url}/api/v1/auth/me`);

      const params = new URL(callback).searchParams;
      expect(params.get('code')).toEqual(expect.any(String));
      expect(params.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(landed.status).toBe(303);
      // P262: a start that names no `next` lands on the console's start page.
      expect(landed.headers.get('location')).toBe(`${service.url}/`);
      const cookies = landed.headers.getSetCookie();
      expect(cookies.find((c) => c.startsWith('svc_session='))).toMatch(
        /; Path=\/; HttpOnly; Secure; SameSite=Lax$/,
      );
      expect(me.status).toBe(200);
      const body = JSON.parse(me.text);
      expect(body.user).toMatchObject({ id: member.id, org_id: orgId, role: 'configure' });
      expect(body.csrf_token).toEqual(expect.any(String));
      const agents = await browser.request(`${service.url}/api/v1/agents`);
      expect(agents.status).toBe(200);
    });

    it('lands where the start said (`next`, P262): a console page, or the session for an API client', async () => {
      const member = await createTestUser(service, {
        orgId,
        role: 'train',
        email: `next-${Date.now()}@${domain}`,
      });
      const landings: (string | null)[] = [];

      for (const next of ['/agents?page=2#top', '/api/v1/auth/me']) {
        const browser = new Browser();
        const start = `/api/v1/sso/start?org_id=${orgId}&next=${encodeURIComponent(next)}`;
        const landed = await browser.request(await throughProvider(browser, member.email, start));
        landings.push(landed.headers.get('location'));
      }
      const me = await signInWithSso(new Browser(), member.email);

      expect(landings).toEqual([
        `${service.url}/agents?page=2#top`,
        `${service.url}/api/v1/auth/me`,
      ]);
      expect(JSON.parse(me.text).user).toMatchObject({ id: member.id });
    });

    it.each([
      ['another origin', 'https://elsewhere.example/'],
      ['a scheme-relative address', '//elsewhere.example/x'],
      ['a backslash (read as another host)', '/\\elsewhere.example'],
      ['a relative path', 'agents'],
      ['a space', '/a b'],
      ['more than 500 characters', `/${'a'.repeat(500)}`],
    ])(
      'refuses a `next` that is %s with a 400 naming it, before leaving (P262)',
      async (_, next) => {
        const browser = new Browser();

        const refused = await browser.request(
          `${service.url}/api/v1/sso/start?org_id=${orgId}&next=${encodeURIComponent(next)}`,
        );

        expect(refused.status).toBe(400);
        expect(JSON.stringify(JSON.parse(refused.text).error.details)).toContain('next');
        expect(refused.headers.getSetCookie()).toEqual([]);
      },
    );

    it('sent the provider PKCE (S256), state and nonce, and a redirect URI at the service', async () => {
      const browser = new Browser();

      const toProvider = await browser.request(`${service.url}/api/v1/sso/start?org_id=${orgId}`);

      expect(toProvider.status).toBe(303);
      const authorize = new URL(toProvider.headers.get('location') ?? '');
      expect(authorize.origin).toBe(provider.issuer);
      expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
        response_type: 'code',
        client_id: CLIENT.client_id,
        redirect_uri: `${service.url}${CALLBACK_PATH}`,
        scope: 'openid email profile',
        code_challenge_method: 'S256',
        code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        nonce: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      });
      expect(toProvider.headers.getSetCookie()[0]).toMatch(
        /^svc_sso_flow=[A-Za-z0-9_-]{43}; Max-Age=600; Path=\/api\/v1\/sso; HttpOnly; Secure; SameSite=Lax$/,
      );
    });

    it('finds the organization by the email of a verified domain', async () => {
      const member = await createTestUser(service, { orgId, role: 'readonly' });
      const browser = new Browser();

      const callback = await throughProvider(
        browser,
        `someone@${domain}`,
        `/api/v1/sso/start?email=${encodeURIComponent(`x@${domain.toUpperCase()}`)}`,
      );

      expect(new URL(callback).searchParams.get('code')).toEqual(expect.any(String));
      expect(member.orgId).toBe(orgId);
    });

    it('refuses an unknown user unless provisioning is on, then creates them with its role (P88)', async () => {
      const email = `newcomer-${Date.now()}@${domain}`;

      const refused = await signInWithSso(new Browser(), email);
      await configure({ provision_role: 'train' });
      const provisioned = await signInWithSso(new Browser(), email);

      expect(refused.status).toBe(401);
      expect(refused.text).toContain('Authentication failed');
      expect(provisioned.status).toBe(200);
      expect(JSON.parse(provisioned.text).user).toMatchObject({
        email,
        role: 'train',
        status: 'active',
      });
    });

    it('folds a look-alike address from the provider into the existing user, never a second account (P213)', async () => {
      await configure({ provision_role: 'readonly' });
      const member = await createTestUser(service, {
        orgId,
        role: 'train',
        email: `lookalike-${Date.now()}@${domain}`,
      });
      // Fullwidth letters: NFKC folds each into the ASCII letter it looks like.
      const fullwidth = member.email.replace(/[a-z]/g, (letter) =>
        String.fromCharCode(letter.charCodeAt(0) + 0xfee0),
      );

      const page = await signInWithSso(new Browser(), fullwidth);

      expect(page.status).toBe(200);
      expect(JSON.parse(page.text).user).toMatchObject({ id: member.id, email: member.email });
    });

    it('shows "Unauthorized domain" for an email outside the verified domains', async () => {
      await configure({ provision_role: 'readonly' });

      const page = await signInWithSso(new Browser(), 'someone@elsewhere.example');

      expect(page.status).toBe(403);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.text).toContain('<title>Unauthorized domain</title>');
      expect(page.text).not.toContain('elsewhere.example');
    });

    it('refuses a deactivated user', async () => {
      const member = await createTestUser(service, {
        orgId,
        role: 'readonly',
        email: `leaving@${domain}`,
      });
      const deleted = await adminBrowser.request(`/api/v1/users/${member.id}`, {
        method: 'DELETE',
      });
      expect(deleted.status).toBe(204);

      const page = await signInWithSso(new Browser(), member.email);

      expect(page.status).toBe(401);
      expect(page.text).toContain('Authentication failed');
    });

    it('signs in with SSO while enforce_sso refuses the same user their password (P89)', async () => {
      const member = await createTestUser(service, {
        orgId,
        role: 'readonly',
        email: `enforced@${domain}`,
      });
      await configure({ enforce_sso: true });

      const password = await api(service.url, '/api/v1/auth/login', {
        method: 'POST',
        body: { email: member.email, password: member.password },
      });
      const sso = await signInWithSso(new Browser(), member.email);

      expect(password.status).toBe(403);
      expect(sso.status).toBe(200);
      expect(JSON.parse(sso.text).user.id).toBe(member.id);
    });

    it('makes an invited user active by their SSO sign-in, and their invitation unusable (P205)', async () => {
      const invited = await adminBrowser.request('/api/v1/users', {
        method: 'POST',
        body: { email: `invited@${domain}`, name: 'Invited', role: 'train' },
      });
      expect(invited.status).toBe(201);
      const created = json(invited);
      await configure({ enforce_sso: true });

      const accept = await api(service.url, '/api/v1/auth/invitations/accept', {
        method: 'POST',
        body: { token: created.invitation.token, password: 'a long enough password' },
      });
      const sso = await signInWithSso(new Browser(), `invited@${domain}`);
      const user = await adminBrowser.request(`/api/v1/users/${created.id}`);
      await configure();
      const acceptLater = await api(service.url, '/api/v1/auth/invitations/accept', {
        method: 'POST',
        body: { token: created.invitation.token, password: 'a long enough password' },
      });

      // Refused under enforce_sso, and not used up by the refusal.
      expect(accept.status).toBe(403);
      expect(json(accept).error.details).toEqual({
        reason: 'sso_required',
        sso_start_url: `/api/v1/sso/start?org_id=${orgId}`,
      });
      expect(accept.headers.getSetCookie()).toEqual([]);
      expect(sso.status).toBe(200);
      expect(JSON.parse(sso.text).user).toMatchObject({ id: created.id, role: 'train' });
      expect(json(user)).toMatchObject({ status: 'active' });
      // SSO took the invitation's place: it cannot set a password afterwards.
      expect(acceptLater.status).toBe(400);
    });

    it("ends password sessions when enforce_sso turns on, and keeps them ended; SSO sessions and the acting admin's continue (P223)", async () => {
      const stamp = Date.now();
      const member = await createTestUser(service, {
        orgId,
        role: 'readonly',
        email: `pw-${stamp}@${domain}`,
      });
      const contractor = await createTestUser(service, {
        orgId,
        role: 'readonly',
        email: `contractor-${stamp}@elsewhere.example`,
      });
      const tenant = await createTenant(service);
      // P89: the domain's address in another organization is covered as well.
      const elsewhere = await createTestUser(service, {
        orgId: tenant.orgId,
        role: 'admin',
        email: `pw-${stamp}@${domain}`,
      });
      const bystander = await createTestUser(service, { orgId: tenant.orgId, role: 'admin' });
      const passwordBrowsers = await Promise.all(
        [member, contractor, elsewhere].map((user) => signedIn(service, user)),
      );
      const bystanderBrowser = await signedIn(service, bystander);
      const ssoMember = await createTestUser(service, {
        orgId,
        role: 'readonly',
        email: `sso-${stamp}@${domain}`,
      });
      const ssoBrowser = new Browser();
      expect((await signInWithSso(ssoBrowser, ssoMember.email)).status).toBe(200);
      const agentsBy = (browser: Browser) => browser.request(`${service.url}/api/v1/agents`);

      await configure({ enforce_sso: true });
      const during = await Promise.all(
        passwordBrowsers.map((browser) => browser.request('/api/v1/agents')),
      );
      const ssoDuring = await agentsBy(ssoBrowser);
      const adminDuring = await adminBrowser.request('/api/v1/agents');
      const bystanderDuring = await bystanderBrowser.request('/api/v1/agents');
      await configure();
      const afterwards = await Promise.all(
        passwordBrowsers.map((browser) => browser.request('/api/v1/agents')),
      );
      const signInAgain = await signedIn(service, member);

      expect(during.map((response) => response.status)).toEqual([401, 401, 401]);
      expect(ssoDuring.status).toBe(200);
      expect(adminDuring.status).toBe(200);
      expect(bystanderDuring.status).toBe(200);
      expect(afterwards.map((response) => response.status)).toEqual([401, 401, 401]);
      expect((await signInAgain.request('/api/v1/agents')).status).toBe(200);
    });

    it('ends the password sessions of a domain verified while enforce_sso is on (P223)', async () => {
      const second = `second-${Date.now()}.example`;
      const tenant = await createTenant(service);
      const user = await createTestUser(service, {
        orgId: tenant.orgId,
        role: 'admin',
        email: `someone@${second}`,
      });
      const browser = await signedIn(service, user);
      await configure({ enforce_sso: true });
      const domains = `/api/v1/organizations/${orgId}/sso/domains`;
      const added = await adminBrowser.request(domains, {
        method: 'POST',
        body: { domain: second },
      });
      const record = json(added).txt_record;
      dns.txt.set(record.name, [record.value]);

      const before = await browser.request('/api/v1/agents');
      const verified = await adminBrowser.request(`${domains}/${second}/verify`, {
        method: 'POST',
      });
      const after = await browser.request('/api/v1/agents');
      await adminBrowser.request(`${domains}/${second}`, { method: 'DELETE' });

      expect(before.status).toBe(200);
      expect(verified.status).toBe(200);
      expect(after.status).toBe(401);
    });

    it('shows "Authentication failed" for an organization without SSO', async () => {
      const other = await createOrganization(service.runtime.dependencies, {
        name: 'No SSO',
        plan: 'enterprise',
      });

      const page = await new Browser().request(
        `${service.url}/api/v1/sso/start?org_id=${other.id}`,
      );

      expect(page.status).toBe(401);
      expect(page.text).toContain('<title>Authentication failed</title>');
    });
  });

  describe('attacks', () => {
    let member: TestUser;
    beforeAll(async () => {
      member = await createTestUser(service, { orgId, role: 'admin', email: `victim@${domain}` });
    });

    const expectFailed = (page: Page) => {
      expect({ status: page.status, title: /<title>(.*)<\/title>/.exec(page.text)?.[1] }).toEqual({
        status: 401,
        title: 'Authentication failed',
      });
      expect(page.headers.getSetCookie().some((c) => c.startsWith('svc_session=ey'))).toBe(false);
    };

    it('refuses a callback with a wrong state', async () => {
      const browser = new Browser();
      const callback = new URL(await throughProvider(browser, member.email));
      callback.searchParams.set('state', 'A'.repeat(43));

      expectFailed(await browser.request(callback.href));
    });

    it('refuses a callback without state, and one with an error from the provider', async () => {
      const browser = new Browser();
      const callback = new URL(await throughProvider(browser, member.email));
      const noState = new URL(callback);
      noState.searchParams.delete('state');
      const withError = new URL(callback);
      withError.searchParams.set('error', 'access_denied');

      expectFailed(await browser.request(noState.href));
      expectFailed(await browser.request(withError.href));
    });

    it('refuses a callback finished in another browser (the flow cookie binds it, P90)', async () => {
      const victim = new Browser();
      const callback = await throughProvider(victim, member.email);

      expectFailed(await new Browser().request(callback));
      // And the flow is spent: the right browser cannot use it afterwards either.
      expectFailed(await victim.request(callback));
    });

    it('refuses a replayed callback, and a replayed code in a new flow', async () => {
      const browser = new Browser();
      const callback = await throughProvider(browser, member.email);
      const first = await browser.request(callback);
      const replayed = await browser.request(callback);
      const second = new URL(await throughProvider(browser, member.email));
      const oldCode = new URL(callback).searchParams.get('code') ?? '';
      second.searchParams.set('code', oldCode);

      expect(first.status).toBe(303);
      expectFailed(replayed);
      expectFailed(await browser.request(second.href));
    });

    describe('discovery documents (P220, D35)', () => {
      let discovery: Server;
      let origin = '';
      let issuer = '';
      let document: Record<string, unknown> = {};
      const fetched: string[] = [];

      beforeAll(async () => {
        // A provider whose discovery document says whatever the test wants, under any path.
        discovery = createServer((request, response) => {
          fetched.push(request.url ?? '');
          response.setHeader('content-type', 'application/json');
          response.end(JSON.stringify(document));
        });
        await new Promise<void>((resolve) => discovery.listen(0, '127.0.0.1', resolve));
        origin = `http://127.0.0.1:${(discovery.address() as AddressInfo).port}`;
      });
      afterAll(() => new Promise<void>((resolve) => discovery.close(() => resolve())));

      /** A fresh issuer per test: the relying party keeps a document it accepted for 10 minutes. */
      async function provide(endpoints: Record<string, unknown> = {}) {
        issuer = `${origin}/issuer-${fetched.length}-${Date.now()}`;
        document = {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          ...endpoints,
        };
        await configure({ oidc: { issuer, ...CLIENT } });
        fetched.length = 0;
      }
      const start = () => new Browser().request(`${service.url}/api/v1/sso/start?org_id=${orgId}`);

      it('leaves for the authorization endpoint the document names when every address passes', async () => {
        await provide();

        const page = await start();

        expect(page.status).toBe(303);
        expect(page.headers.get('location')?.startsWith(`${issuer}/authorize?`)).toBe(true);
      });

      const hostile: Array<[string, string, string]> = [
        ['authorization_endpoint', 'http://10.0.0.7/authorize', 'plain http off this machine'],
        ['token_endpoint', 'http://169.254.169.254/latest/meta-data/', 'the metadata address'],
        ['jwks_uri', 'http://192.168.1.10/jwks', 'a private address over http'],
        ['token_endpoint', 'ftp://127.0.0.1/token', 'another scheme'],
        ['jwks_uri', 'https://user:secret@localhost/jwks', 'user info'],
        ['authorization_endpoint', 'not a URL', 'not a URL'],
      ];
      it.each(hostile)('refuses a document whose %s is %s (%s)', async (name, url) => {
        await provide({ [name]: url });

        expectFailed(await start());
        // Only the document was read; nothing it names was fetched.
        expect(fetched).toEqual([`${new URL(issuer).pathname}/.well-known/openid-configuration`]);
      });
    });

    const attacks: Array<[IdTokenAttack, string]> = [
      ['wrong-nonce', 'an ID token with a nonce of another sign-in'],
      ['tampered', 'an ID token whose payload was changed after signing'],
      ['foreign-key', 'an ID token signed by another key under the same kid'],
      ['other-audience', 'an ID token for another client'],
      ['expired', 'an expired ID token'],
      ['alg-none', 'an unsigned ID token (alg: none)'],
      ['hs256', 'an ID token signed HS256 with the client secret'],
    ];
    it.each(attacks)('refuses %s: %s', async (mode) => {
      const browser = new Browser();
      const callback = await throughProvider(browser, member.email);
      await provider.attackNextIdToken(mode);

      expectFailed(await browser.request(callback));
    });
  });
});
