import { createOrganization } from '../../layers/core/use-cases/organizations/organization-use-cases';
import { Browser, type Page } from '../support/browser';
import { TestDnsServer } from '../support/dns-server';
import { json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { base64, IDP_CERT, readAuthnRequest, samlResponse } from '../support/saml-idp';
import { TestClock } from '../support/test-clock';
import { createTestUser, signedIn, type TestUser, type WebSession } from '../support/web-session';

const IDP_ENTITY_ID = 'https://idp.test.example/saml';
const HOUR_MS = 3600 * 1000;

/**
 * P221 over HTTP: verified SSO domains are looked up again about daily by
 * the scheduler's tick (the local runtime's timer, stepped here; the cloud's
 * EventBridge rule). A DNS failure proves nothing and is tried again within
 * the hour; a record that is gone makes the domain `unverified`, which
 * admits no new SSO user (the organization's existing ones still sign in)
 * until it is verified again. The IdP is the SAML test IdP, the DNS a real
 * server on loopback.
 */
describe('SSO domains re-checked daily (P221)', () => {
  const dns = new TestDnsServer();
  const clock = new TestClock();
  let service: TestService;
  let orgId: string;
  let admin: TestUser;
  let member: TestUser;
  let acsUrl: string;
  let record: { name: string; value: string };
  const domain = `recheck-${Date.now()}.example`;

  /** Sessions last less than the days this test skips: a fresh one each time. */
  const adminBrowser = (): Promise<WebSession> => signedIn(service, admin);
  async function domainView() {
    const listed = await (await adminBrowser()).request(
      `/api/v1/organizations/${orgId}/sso/domains`,
    );
    expect(listed.status).toBe(200);
    return json(listed).domains.find((entry: { domain: string }) => entry.domain === domain);
  }
  /** A whole SAML sign-in of `email`: the page the ACS answers. */
  async function samlSignIn(email: string): Promise<Page> {
    const browser = new Browser();
    const started = await browser.request(`${service.url}/api/v1/sso/start?org_id=${orgId}`);
    expect(started.status).toBe(303);
    const request = readAuthnRequest(started.headers.get('location') ?? '');
    const xml = samlResponse({
      idpEntityId: IDP_ENTITY_ID,
      inResponseTo: request.id,
      recipient: request.acsUrl,
      audience: request.issuer,
      email,
    });
    return browser.request(acsUrl, {
      method: 'POST',
      form: { SAMLResponse: base64(xml), RelayState: request.relayState },
      headers: { 'sec-fetch-site': 'cross-site', origin: 'https://idp.test.example' },
    });
  }
  const title = (page: Page) => /<title>(.*)<\/title>/.exec(page.text)?.[1];

  beforeAll(async () => {
    await dns.start();
    service = await startTestService({ env: { SVC_DNS_SERVERS: dns.address }, clock });
    orgId = (
      await createOrganization(service.runtime.dependencies, {
        name: 'Recheck',
        plan: 'enterprise',
      })
    ).id;
    acsUrl = `${service.url}/api/v1/sso/saml/${orgId}`;
    admin = await createTestUser(service, { orgId, role: 'admin', email: `admin@${domain}` });
    member = await createTestUser(service, { orgId, role: 'train', email: `member@${domain}` });
    const browser = await adminBrowser();
    const added = await browser.request(`/api/v1/organizations/${orgId}/sso/domains`, {
      method: 'POST',
      body: { domain },
    });
    record = json(added).txt_record;
    dns.txt.set(record.name, [record.value]);
    const verified = await browser.request(
      `/api/v1/organizations/${orgId}/sso/domains/${domain}/verify`,
      { method: 'POST' },
    );
    expect(verified.status).toBe(200);
    const configured = await browser.request(`/api/v1/organizations/${orgId}/sso`, {
      method: 'PUT',
      body: {
        protocol: 'saml',
        enforce_sso: false,
        saml: {
          idp_entity_id: IDP_ENTITY_ID,
          sso_url: 'https://idp.test.example/sso',
          idp_certificates: [IDP_CERT],
        },
        provision_role: 'readonly',
      },
    });
    expect(configured.status).toBe(200);
  });
  afterAll(async () => {
    await service.end();
    await dns.stop();
  });

  it('provisions new users of the verified domain (before anything changes)', async () => {
    const page = await samlSignIn(`first-newcomer@${domain}`);

    expect(page.status).toBe(303);
  });

  it('leaves a domain alone until a day has passed, then confirms a record still there, once', async () => {
    const before = await domainView();

    const early = await service.runtime.workers.stepDomainChecks();
    clock.advance(25 * HOUR_MS);
    // Two ticks at once (overlapping Lambda invocations): one looks the domain up.
    const runs = await Promise.all([
      service.runtime.workers.stepDomainChecks(),
      service.runtime.workers.stepDomainChecks(),
    ]);
    const after = await domainView();

    expect(early.due).toBe(0);
    expect(runs.map((run) => run.confirmed).sort()).toEqual([0, 1]);
    expect(runs.every((run) => run.unverified === 0 && run.failed === 0)).toBe(true);
    expect(after).toMatchObject({ status: 'verified', last_error: null, unverified_at: null });
    expect(after.checked_at > before.checked_at).toBe(true);
  });

  it('keeps a domain verified when DNS fails, and tries again within the hour', async () => {
    dns.failing = true;
    clock.advance(25 * HOUR_MS);

    // The whole tick, as the timer runs it (syncs first).
    await service.runtime.workers.stepSchedule();
    const after = await domainView();
    const tooSoon = await service.runtime.workers.stepDomainChecks();
    dns.failing = false;

    expect(after).toMatchObject({
      status: 'verified',
      unverified_at: null,
      last_error: expect.stringMatching(/DNS look-up failed/),
    });
    expect(tooSoon.due).toBe(0);
  });

  it('unverifies a domain whose record is gone, with when and why', async () => {
    dns.txt.delete(record.name);
    clock.advance(2 * HOUR_MS);

    const at = clock.now().getTime();
    const run = await service.runtime.workers.stepDomainChecks();
    const after = await domainView();

    expect(run).toMatchObject({ due: 1, unverified: 1 });
    expect(Date.parse(after.unverified_at)).toBeGreaterThanOrEqual(at);
    expect(after).toMatchObject({
      status: 'unverified',
      last_error: expect.stringContaining(`no TXT record ${record.name}`),
    });
    expect(after.checked_at).toBe(after.unverified_at);
    // Nothing left to re-check: the claim was released.
    clock.advance(25 * HOUR_MS);
    expect((await service.runtime.workers.stepDomainChecks()).due).toBe(0);
  });

  it('refuses a new SSO user of the unverified domain, and still signs in an existing one', async () => {
    const newcomer = await samlSignIn(`second-newcomer@${domain}`);
    const existing = await samlSignIn(member.email);

    expect({ status: newcomer.status, title: title(newcomer) }).toEqual({
      status: 403,
      title: 'Unauthorized domain',
    });
    expect(existing.status).toBe(303);
  });

  it('no longer finds the organization by the domain of an email (the claim is released)', async () => {
    const page = await new Browser().request(
      `${service.url}/api/v1/sso/start?email=${encodeURIComponent(member.email)}`,
    );

    expect({ status: page.status, title: title(page) }).toEqual({
      status: 401,
      title: 'Authentication failed',
    });
  });

  it('admits new users again once the domain is verified again', async () => {
    dns.txt.set(record.name, [record.value]);
    const verified = await (await adminBrowser()).request(
      `/api/v1/organizations/${orgId}/sso/domains/${domain}/verify`,
      { method: 'POST' },
    );

    const newcomer = await samlSignIn(`third-newcomer@${domain}`);

    expect(json(verified)).toMatchObject({ status: 'verified', unverified_at: null });
    expect(newcomer.status).toBe(303);
  });
});
