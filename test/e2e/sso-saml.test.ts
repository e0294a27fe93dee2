import { createOrganization } from '../../layers/core/use-cases/organizations/organization-use-cases';
import { Browser, type Page } from '../support/browser';
import { TestDnsServer } from '../support/dns-server';
import { expectNestedError } from '../support/error-shapes';
import { json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import {
  type AuthnRequestSeen,
  base64,
  IDP_CERT,
  type ResponseOptions,
  readAuthnRequest,
  samlResponse,
} from '../support/saml-idp';
import { createTestUser, signedIn, type TestUser, type WebSession } from '../support/web-session';

const IDP_ENTITY_ID = 'https://idp.test.example/saml';
const IDP_SSO_URL = 'https://idp.test.example/sso';

/**
 * D14 SAML 2.0, SP-initiated, over HTTP against the real local runtime: the
 * browser leaves with an AuthnRequest (HTTP-Redirect), the test IdP signs a
 * response with its test key (xml-crypto), and the browser posts it to the
 * organization's ACS cross-site, as an IdP's page does (HTTP-POST). The
 * service verifies it with @node-saml/node-saml (P92). Then the attacks:
 * tampered, another issuer (P219), unsigned, wrong audience, wrong recipient, expired, replayed,
 * answering another request, finished in another browser.
 */
describe('SAML sign-in (D14, P92)', () => {
  const dns = new TestDnsServer();
  let service: TestService;
  let orgId: string;
  let acsUrl: string;
  let adminBrowser: WebSession;
  let member: TestUser;
  const domain = `saml-${Date.now()}.example`;

  async function configure(extra: Record<string, unknown> = {}) {
    const response = await adminBrowser.request(`/api/v1/organizations/${orgId}/sso`, {
      method: 'PUT',
      body: {
        protocol: 'saml',
        enforce_sso: false,
        saml: {
          idp_entity_id: IDP_ENTITY_ID,
          sso_url: IDP_SSO_URL,
          idp_certificates: [IDP_CERT],
        },
        ...extra,
      },
    });
    expect(response.status).toBe(200);
    return response;
  }

  /** Leaves for the IdP: what it receives. */
  async function leave(browser: Browser, query = ''): Promise<AuthnRequestSeen> {
    const response = await browser.request(
      `${service.url}/api/v1/sso/start?org_id=${orgId}${query}`,
    );
    expect(response.status).toBe(303);
    const location = response.headers.get('location') ?? '';
    expect(location.startsWith(`${IDP_SSO_URL}?SAMLRequest=`)).toBe(true);
    return readAuthnRequest(location);
  }

  /** The IdP page's auto-submitted form: a cross-site POST to the ACS. */
  function post(browser: Browser, xml: string, relayState: string): Promise<Page> {
    return browser.request(acsUrl, {
      method: 'POST',
      form: { SAMLResponse: base64(xml), RelayState: relayState },
      headers: { 'sec-fetch-site': 'cross-site', origin: 'https://idp.test.example' },
    });
  }

  const answer = (
    request: AuthnRequestSeen,
    overrides: Partial<ResponseOptions> = {},
  ): ResponseOptions => ({
    idpEntityId: IDP_ENTITY_ID,
    inResponseTo: request.id,
    recipient: request.acsUrl,
    audience: request.issuer,
    email: member.email,
    ...overrides,
  });

  beforeAll(async () => {
    await dns.start();
    service = await startTestService({ env: { SVC_DNS_SERVERS: dns.address } });
    const org = await createOrganization(service.runtime.dependencies, {
      name: 'Saml Corp',
      plan: 'enterprise',
    });
    orgId = org.id;
    acsUrl = `${service.url}/api/v1/sso/saml/${orgId}`;
    const admin = await createTestUser(service, { orgId, role: 'admin', email: `admin@${domain}` });
    member = await createTestUser(service, { orgId, role: 'train', email: `member@${domain}` });
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
    expect(json(configured)).toMatchObject({
      protocol: 'saml',
      oidc: null,
      saml: { idp_entity_id: IDP_ENTITY_ID, sso_url: IDP_SSO_URL },
      attribute_mapping: { email: 'nameID' },
      saml_service_provider: { entity_id: acsUrl, acs_url: acsUrl },
    });
  });
  afterAll(async () => {
    await service.end();
    await dns.stop();
  });

  const expectFailed = (page: Page) => {
    expect({ status: page.status, title: /<title>(.*)<\/title>/.exec(page.text)?.[1] }).toEqual({
      status: 401,
      title: 'Authentication failed',
    });
    expect(page.headers.getSetCookie().some((c) => c.startsWith('svc_session=ey'))).toBe(false);
  };

  it('sends an AuthnRequest naming our entity id and ACS, and signs in on a signed response', async () => {
    const browser = new Browser();

    const request = await leave(browser);
    const landed = await post(browser, samlResponse(answer(request)), request.relayState);
    const me = await browser.request(`${service.url}/api/v1/auth/me`);

    expect(request).toMatchObject({ issuer: acsUrl, acsUrl, id: expect.stringMatching(/^_/) });
    expect(landed.status).toBe(303);
    // P262: no `next`, so the console's start page.
    expect(landed.headers.get('location')).toBe(`${service.url}/`);
    expect(me.status).toBe(200);
    expect(JSON.parse(me.text).user).toMatchObject({ id: member.id, role: 'train' });
  });

  it('lands on the `next` the start named, kept with the flow across the IdP (P262)', async () => {
    const browser = new Browser();

    const request = await leave(browser, `&next=${encodeURIComponent('/api/v1/auth/me')}`);
    const landed = await post(browser, samlResponse(answer(request)), request.relayState);
    const me = await browser.navigate(landed.headers.get('location') ?? '');

    expect(landed.headers.get('location')).toBe(`${service.url}/api/v1/auth/me`);
    expect(JSON.parse(me.text).user).toMatchObject({ id: member.id });
  });

  it('serves our SP metadata at the entity id', async () => {
    const response = await new Browser().request(acsUrl);

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/samlmetadata+xml');
    expect(response.text).toContain(`entityID="${acsUrl}"`);
    expect(response.text).toContain(`Location="${acsUrl}"`);
  });

  it('refuses a certificate that is not one (400 naming the field)', async () => {
    const response = await adminBrowser.request(`/api/v1/organizations/${orgId}/sso`, {
      method: 'PUT',
      body: {
        protocol: 'saml',
        enforce_sso: false,
        saml: {
          idp_entity_id: IDP_ENTITY_ID,
          sso_url: IDP_SSO_URL,
          idp_certificates: ['not a certificate'],
        },
      },
    });

    expect(expectNestedError(response, 400, 'invalid_request').details.fields[0].path).toBe(
      'saml.idp_certificates.0',
    );
  });

  it('shows "Unauthorized domain" for a NameID outside the verified domains', async () => {
    const browser = new Browser();
    const request = await leave(browser);

    const page = await post(
      browser,
      samlResponse(answer(request, { email: 'someone@elsewhere.example' })),
      request.relayState,
    );

    expect(page.status).toBe(403);
    expect(page.text).toContain('<title>Unauthorized domain</title>');
  });

  describe('attacks', () => {
    it('refuses an assertion changed after signing', async () => {
      const browser = new Browser();
      const request = await leave(browser);
      const signed = samlResponse(answer(request, { email: `member@${domain}` }));
      const admin = `admin@${domain}`;

      expectFailed(
        await post(browser, signed.replace(`>member@${domain}<`, `>${admin}<`), request.relayState),
      );
    });

    it('refuses an assertion signed with the IdP certificate under another issuer (P219)', async () => {
      const browser = new Browser();
      const request = await leave(browser);

      expectFailed(
        await post(
          browser,
          samlResponse(answer(request, { assertionIssuer: 'https://other-idp.example/saml' })),
          request.relayState,
        ),
      );
    });

    it('refuses a response whose own Issuer is another IdP, the assertion aside (P219)', async () => {
      const browser = new Browser();
      const request = await leave(browser);

      expectFailed(
        await post(
          browser,
          samlResponse(answer(request, { responseIssuer: 'https://other-idp.example/saml' })),
          request.relayState,
        ),
      );
    });

    it('accepts a response without an Issuer of its own (optional, SAML Core 3.2.2)', async () => {
      const browser = new Browser();
      const request = await leave(browser);

      const landed = await post(
        browser,
        samlResponse(answer(request, { responseIssuer: null })),
        request.relayState,
      );

      expect(landed.status).toBe(303);
    });

    it('refuses an unsigned response', async () => {
      const browser = new Browser();
      const request = await leave(browser);

      expectFailed(
        await post(browser, samlResponse(answer(request, { signed: false })), request.relayState),
      );
    });

    it('refuses an assertion for another audience', async () => {
      const browser = new Browser();
      const request = await leave(browser);

      expectFailed(
        await post(
          browser,
          samlResponse(answer(request, { audience: 'https://other-sp.example/saml' })),
          request.relayState,
        ),
      );
    });

    it('refuses an assertion for another recipient', async () => {
      const browser = new Browser();
      const request = await leave(browser);

      expectFailed(
        await post(
          browser,
          samlResponse(answer(request, { recipient: 'https://other-sp.example/acs' })),
          request.relayState,
        ),
      );
    });

    it('refuses an expired assertion', async () => {
      const browser = new Browser();
      const request = await leave(browser);

      expectFailed(
        await post(
          browser,
          samlResponse(answer(request, { validForSeconds: -600 })),
          request.relayState,
        ),
      );
    });

    it('refuses a replayed response', async () => {
      const browser = new Browser();
      const request = await leave(browser);
      const signed = samlResponse(answer(request));

      const first = await post(browser, signed, request.relayState);
      const replayed = await post(browser, signed, request.relayState);

      expect(first.status).toBe(303);
      expectFailed(replayed);
    });

    it('refuses a response to another request (InResponseTo), even signed', async () => {
      const browser = new Browser();
      const first = await leave(browser);
      const second = await leave(browser);

      expectFailed(
        await post(
          browser,
          samlResponse(answer(second, { inResponseTo: first.id })),
          second.relayState,
        ),
      );
    });

    it('refuses an unsolicited response (no RelayState: IdP-initiated)', async () => {
      const browser = new Browser();
      const request = await leave(browser);

      expectFailed(await post(browser, samlResponse(answer(request)), ''));
    });

    it('refuses a response posted from another browser', async () => {
      const victim = new Browser();
      const request = await leave(victim);

      expectFailed(await post(new Browser(), samlResponse(answer(request)), request.relayState));
    });

    it('remembers accepted assertion ids (the ledger refuses a second use)', async () => {
      const ledger = service.runtime.dependencies.samlAssertions;
      const until = Math.floor(Date.now() / 1000) + 600;

      const first = await ledger.remember(IDP_ENTITY_ID, '_assertion-1', until);
      const again = await ledger.remember(IDP_ENTITY_ID, '_assertion-1', until);
      const otherIssuer = await ledger.remember('https://other-idp.example', '_assertion-1', until);

      expect([first, again, otherIssuer]).toEqual([true, false, true]);
    });
  });
});
