import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from '@playwright/test';
import { TestDnsServer } from '../../test/support/dns-server';
import { TestOidcProvider } from '../../test/support/oidc-provider';
import { idpMetadata, readAuthnRequest, samlResponse } from '../../test/support/saml-idp';
import {
  test as base,
  documentScreenshot,
  expect,
  expectAccessible,
  signedIn,
} from './support/fixtures';
import { ApiSession } from './support/http';
import { type ActiveUser, activeUser, signInStatus } from './support/users';

const DOMAIN = 'console.test';
const CLIENT = { client_id: 'console-sso', client_secret: 'a client secret for the console spec' };
const IDP_ENTITY_ID = 'https://idp.console.test/saml';

/**
 * A SAML IdP page on loopback (SP-initiated, P92): it reads the
 * AuthnRequest the service sent and shows a "Continue" button posting a
 * signed response for `email` to the ACS, as an IdP's page would after its
 * own sign-in. The response is signed by test/support/saml-idp.ts.
 */
interface SamlIdpSite {
  readonly ssoUrl: string;
  /** Its metadata (test/support/saml-idp.ts), naming the SSO URL with the HTTP-Redirect binding. */
  readonly metadataUrl: string;
  email: string;
  close(): Promise<void>;
}

const metadataOf = (ssoUrl: string) =>
  idpMetadata({ entityId: IDP_ENTITY_ID, sso: { redirect: ssoUrl } });

async function startSamlIdpSite(): Promise<SamlIdpSite> {
  const site = { email: '' };
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/metadata') {
      response.writeHead(200, { 'Content-Type': 'application/samlmetadata+xml' });
      response.end(metadataOf(`http://127.0.0.1:${port}/sso`));
      return;
    }
    if (url.pathname !== '/sso' || !url.searchParams.has('SAMLRequest')) {
      response.writeHead(404).end();
      return;
    }
    const seen = readAuthnRequest(url.href);
    const xml = samlResponse({
      idpEntityId: IDP_ENTITY_ID,
      inResponseTo: seen.id,
      recipient: seen.acsUrl,
      audience: seen.issuer,
      email: site.email,
    });
    const attr = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(
      `<!doctype html><html lang="en"><title>Test IdP</title><h1>Test IdP</h1><form method="post" action="${attr(seen.acsUrl)}"><input type="hidden" name="SAMLResponse" value="${attr(Buffer.from(xml).toString('base64'))}"><input type="hidden" name="RelayState" value="${attr(seen.relayState)}"><button>Continue as ${attr(site.email)}</button></form>`,
    );
  });
  let port = 0;
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  port = (server.address() as AddressInfo).port;
  return Object.assign(site, {
    ssoUrl: `http://127.0.0.1:${port}/sso`,
    metadataUrl: `http://127.0.0.1:${port}/metadata`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  });
}

// biome-ignore lint/complexity/noBannedTypes: no test-scoped fixtures of its own
const test = base.extend<{}, { dns: TestDnsServer; oidc: TestOidcProvider; samlIdp: SamlIdpSite }>({
  dns: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright's fixture signature
    async ({}, use) => {
      const dns = await new TestDnsServer().start();
      await use(dns);
      await dns.stop();
    },
    { scope: 'worker' },
  ],
  // Domain verification asks the loopback DNS server; the identity providers are on loopback (D35).
  serviceEnv: [
    async ({ dns }, use) => use({ SVC_DNS_SERVERS: dns.address, SVC_ALLOW_PRIVATE_URLS: 'true' }),
    { scope: 'worker' },
  ],
  oidc: [
    async ({ service }, use) => {
      const provider = await new TestOidcProvider().start([
        { ...CLIENT, redirect_uris: [`${service.url}/api/v1/sso/oidc/callback`] },
      ]);
      await use(provider);
      await provider.stop();
    },
    { scope: 'worker', timeout: 30_000 },
  ],
  samlIdp: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright's fixture signature
    async ({}, use) => {
      const site = await startSamlIdpSite();
      await use(site);
      await site.close();
    },
    { scope: 'worker' },
  ],
});

/** The domain verified over HTTP, for the tests that start past step 1. */
async function verifiedDomain(url: string, user: ActiveUser, dns: TestDnsServer) {
  const admin = await ApiSession.signIn(url, user.email, user.password);
  const { organization } = await admin.call<{ organization: { id: string } }>(
    'GET',
    '/api/v1/auth/me',
  );
  const path = `/api/v1/organizations/${organization.id}/sso/domains`;
  const listed = await admin.call<{ domains: { domain: string; status: string }[] }>('GET', path);
  let domain = listed.domains.find((candidate) => candidate.domain === DOMAIN);
  if (!domain) {
    const added = await admin.call<{
      domain: string;
      status: string;
      txt_record: { name: string; value: string };
    }>('POST', path, { domain: DOMAIN });
    dns.txt.set(added.txt_record.name, [added.txt_record.value]);
    domain = added;
  }
  if (domain.status !== 'verified') await admin.call('POST', `${path}/${DOMAIN}/verify`);
  return { admin, orgId: organization.id };
}

const stepOf = (page: Page, name: string) => page.getByRole('region', { name });

test.describe('Settings › Single sign-on (D14)', () => {
  test('OIDC from nothing: a domain verified, the provider connected, the test sign-in comes back', async ({
    page,
    service,
    dns,
    oidc,
    makeAxeBuilder,
  }) => {
    const admin = await activeUser(service, 'sso-oidc', 'admin');
    await signedIn(page, admin.email, admin.password, '/settings/sso');
    await expect(page.getByRole('heading', { name: 'Single sign-on', level: 2 })).toBeVisible();

    // Step 1: a domain, its TXT record, a failed verification in words, then verified.
    const domains = stepOf(page, '1. Verify your domain');
    await domains.getByLabel('Domain').fill(DOMAIN);
    await domains.getByRole('button', { name: 'Add domain' }).click();
    const item = domains.getByRole('region', { name: DOMAIN });
    await expect(item).toContainText('Not verified yet');
    const code = (index: number) => item.getByRole('definition').nth(index).getByRole('code');
    const recordName = (await code(0).textContent()) ?? '';
    const recordValue = (await code(2).textContent()) ?? '';
    expect(recordName).toBe(`_svc-verification.${DOMAIN}`);
    expect(recordValue).toMatch(/^svc-domain-verification=/);
    await expect(item.getByRole('button', { name: 'Copy record value' })).toBeVisible();

    await item.getByRole('button', { name: 'Verify' }).click();
    await expect(item.getByRole('alert')).toContainText(
      `The DNS has no TXT record _svc-verification.${DOMAIN} with this value yet.`,
    );
    await expect(item.getByRole('alert')).toContainText('Reference: req_');

    dns.txt.set(recordName, [recordValue]);
    await item.getByRole('button', { name: 'Verify' }).click();
    await expect(item).toContainText('Verified on');
    await expect(item.getByRole('button', { name: 'Verify' })).toHaveCount(0);

    // Step 2: the presets fill the issuer; another provider is named by its issuer.
    const provider = stepOf(page, '2. Connect your identity provider');
    await expect(provider.getByRole('definition')).toContainText(
      `${service.url}/api/v1/sso/oidc/callback`,
    );
    await expect(provider.getByRole('button', { name: 'Copy redirect URI' })).toBeVisible();
    await expect(provider.getByLabel('Issuer')).toHaveValue('https://accounts.google.com');
    await expect(
      provider.getByText(
        'Discovery document: https://accounts.google.com/.well-known/openid-configuration',
      ),
    ).toBeVisible();
    await provider.getByLabel('Provider').selectOption({ label: 'Microsoft Entra ID' });
    await provider.getByLabel('Tenant').fill('contoso.onmicrosoft.com');
    await expect(provider.getByLabel('Issuer')).toHaveValue(
      'https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0',
    );
    await provider.getByLabel('Provider').selectOption({ label: 'Another OIDC provider' });
    await provider.getByLabel('Issuer').fill(oidc.issuer);
    await provider.getByLabel('Client ID').fill(CLIENT.client_id);
    await provider.getByLabel('Client secret').fill(CLIENT.client_secret);
    await provider.getByRole('button', { name: 'Save SSO settings' }).click();
    await expect(provider.getByRole('status')).toContainText('Saved. It takes effect at once');
    await expect(provider.getByText('A secret is saved')).toBeVisible();
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'settings-sso-light');

    // Step 3: through the provider and back to this page, signed in by SSO (P262).
    await stepOf(page, '3. Test the sign-in').getByRole('link', { name: 'Test sign-in' }).click();
    await page.getByPlaceholder('Enter any login').fill(admin.email);
    await page.getByPlaceholder('and password').fill('anything');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page).toHaveURL(/\/settings\/sso\?tested=1$/);
    await expect(page.getByRole('status').first()).toHaveText(
      `Back from the test sign-in: you are signed in as ${admin.email} through your identity provider.`,
    );
  });

  test('SAML three ways: by hand (a certificate refused by name), metadata XML from a file, its URL; then a sign-in through the IdP', async ({
    page,
    service,
    dns,
    samlIdp,
  }) => {
    const admin = await activeUser(service, 'sso-saml', 'admin');
    const { orgId } = await verifiedDomain(service.url, admin, dns);
    await signedIn(page, admin.email, admin.password, '/settings/sso');

    const provider = stepOf(page, '2. Connect your identity provider');
    await provider.getByRole('radio', { name: 'SAML 2.0' }).check();
    const sp = `${service.url}/api/v1/sso/saml/${orgId}`;
    for (const [term, copy] of [
      ['ACS URL', 'Copy ACS URL'],
      ['SP entity ID', 'Copy SP entity ID'],
      ['SP metadata URL', 'Copy SP metadata URL'],
    ] as const) {
      await expect(provider.getByText(term, { exact: true })).toBeVisible();
      await expect(provider.getByRole('button', { name: copy })).toBeVisible();
    }
    await expect(provider.getByRole('definition').filter({ hasText: sp })).toHaveCount(3);
    const save = provider.getByRole('button', { name: 'Save SSO settings' });
    const corrections = provider.getByRole('list', { name: 'What to correct' });

    await provider.getByRole('radio', { name: 'By hand' }).check();
    await provider.getByLabel('IdP entity ID').fill(IDP_ENTITY_ID);
    await provider.getByLabel('SSO URL').fill(samlIdp.ssoUrl);
    await provider.getByLabel('Signing certificates').fill('not a certificate');
    await save.click();
    await expect(corrections).toHaveText(
      'Signing certificates (certificate 1): must be a PEM certificate',
    );
    await expect(provider.getByLabel('Signing certificates')).toHaveAttribute(
      'aria-invalid',
      'true',
    );

    // P272: pasted metadata that is not XML is refused by name; a file's is read and saved.
    await provider.getByRole('radio', { name: 'From its metadata XML' }).check();
    await provider.getByRole('textbox', { name: 'Metadata XML' }).fill('<md:EntityDescriptor');
    await save.click();
    await expect(corrections).toContainText('Metadata XML: ');
    await expect(provider.getByRole('textbox', { name: 'Metadata XML' })).toHaveAttribute(
      'aria-invalid',
      'true',
    );
    await provider.getByLabel('Read the XML from a file').setInputFiles({
      name: 'idp-metadata.xml',
      mimeType: 'application/xml',
      buffer: Buffer.from(metadataOf(samlIdp.ssoUrl)),
    });
    await expect(provider.getByRole('textbox', { name: 'Metadata XML' })).toHaveValue(
      /^<md:EntityDescriptor /,
    );
    await save.click();
    await expect(provider.getByRole('status')).toContainText('Saved.');
    const inUse = provider.getByRole('definition');
    await expect(inUse.filter({ hasText: IDP_ENTITY_ID })).toHaveCount(1);
    await expect(inUse.filter({ hasText: samlIdp.ssoUrl })).toHaveCount(1);
    await expect(page.getByText('SAML 2.0 is set up; password sign-in still works.')).toBeVisible();

    await provider.getByRole('radio', { name: 'From its metadata URL' }).check();
    await provider.getByRole('textbox', { name: 'Metadata URL' }).fill(samlIdp.metadataUrl);
    await save.click();
    await expect(inUse.filter({ hasText: samlIdp.metadataUrl })).toHaveCount(1);
    await documentScreenshot(page, 'settings-sso-saml-light');

    samlIdp.email = admin.email;
    await page.getByRole('link', { name: 'Test sign-in' }).click();
    await page.getByRole('button', { name: `Continue as ${admin.email}` }).click();
    await expect(page).toHaveURL(/\/settings\/sso\?tested=1$/);
    await expect(page.getByText('Back from the test sign-in')).toBeVisible();
  });

  test('enforcing SSO says who is signed out and asks first; this session carries on', async ({
    page,
    service,
    dns,
    oidc,
    makeAxeBuilder,
  }) => {
    const admin = await activeUser(service, 'sso-enforce', 'admin');
    const { admin: api, orgId } = await verifiedDomain(service.url, admin, dns);
    await api.call('PUT', `/api/v1/organizations/${orgId}/sso`, {
      protocol: 'oidc',
      oidc: { issuer: oidc.issuer, ...CLIENT },
    });
    const member = await activeUser(service, 'sso-member');
    await signedIn(page, admin.email, admin.password, '/settings/sso');

    const step = stepOf(page, '4. Enforce SSO');
    await step.getByRole('button', { name: 'Enforce SSO…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Enforce SSO?' });
    await expect(dialog).toContainText(`everyone whose email address is at ${DOMAIN}`);
    await expect(dialog).toContainText('signed out within 30 seconds');
    await expect(dialog).toContainText('so does yours in this browser');
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'settings-sso-enforce-light');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
    expect(await signInStatus(service, member.email, member.password)).toBe(200);

    await step.getByRole('button', { name: 'Enforce SSO…' }).click();
    await dialog
      .getByRole('button', { name: 'Enforce SSO and sign out password sessions' })
      .click();
    await expect(step).toContainText('SSO is enforced: password sign-in is refused.');
    expect(await signInStatus(service, member.email, member.password)).toBe(403);
    await page.reload();
    await expect(step).toContainText('SSO is enforced');

    await step.getByRole('button', { name: 'Stop enforcing SSO' }).click();
    await expect(step.getByRole('button', { name: 'Enforce SSO…' })).toBeVisible();
    expect(await signInStatus(service, member.email, member.password)).toBe(200);
  });

  test('refusals in words: a 403 for the plan, a 503 while verifying, a role refused', async ({
    page,
    service,
  }) => {
    const admin = await activeUser(service, 'sso-refused', 'admin');
    await signedIn(page, admin.email, admin.password, '/settings');
    const refuse = (status: number, code: string, details: Record<string, unknown>) => ({
      status,
      contentType: 'application/json',
      headers: (status === 503 ? { 'Retry-After': '30' } : {}) as Record<string, string>,
      body: JSON.stringify({
        error: { code, message: 'No', details },
        request_id: `req_${status}`,
      }),
    });

    await page.route('**/api/v1/organizations/*/sso/domains', (route) =>
      route.fulfill(
        refuse(403, 'forbidden', {
          reason: 'plan_required',
          required_plan: 'enterprise',
          current_plan: 'team',
        }),
      ),
    );
    await page
      .getByRole('navigation', { name: 'Settings' })
      .getByRole('link', { name: 'Single sign-on' })
      .click();
    await expect(page.getByRole('alert')).toContainText(
      'Single sign-on needs the enterprise plan; this organization is on team.',
    );
    await expect(page.getByRole('alert')).toContainText('Reference: req_403');
    await page.unrouteAll();

    await page.route('**/api/v1/organizations/*/sso/domains/*/verify', (route) =>
      route.fulfill(refuse(503, 'service_unavailable', {})),
    );
    await page.reload();
    const domains = stepOf(page, '1. Verify your domain');
    await domains.getByLabel('Domain').fill('refused.example');
    await domains.getByRole('button', { name: 'Add domain' }).click();
    const item = domains.getByRole('region', { name: 'refused.example' });
    await item.getByRole('button', { name: 'Verify' }).click();
    await expect(item.getByRole('alert')).toContainText(
      'The DNS look-up failed, so nothing was decided: try again in 30 s.',
    );

    await page.route('**/api/v1/organizations/*/sso/domains', (route) =>
      route.request().method() === 'POST'
        ? route.fulfill(refuse(403, 'forbidden', { required_role: 'admin' }))
        : route.fallback(),
    );
    await domains.getByLabel('Domain').fill('another.example');
    await domains.getByRole('button', { name: 'Add domain' }).click();
    await expect(domains.getByRole('alert').last()).toContainText(
      'Your role does not allow this (it needs admin).',
    );

    // Removing asks first.
    await page.unrouteAll();
    await item.getByRole('button', { name: 'Remove' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove refused.example?' });
    await dialog.getByRole('button', { name: 'Remove domain' }).click();
    await expect(item).toHaveCount(0);
  });

  test('not shown to other roles; dark and at 390 px nothing scrolls sideways', async ({
    page,
    service,
    dns,
    makeAxeBuilder,
  }) => {
    const configurer = await activeUser(service, 'sso-configurer', 'configure');
    await signedIn(page, configurer.email, configurer.password, '/settings');
    await expect(page.getByRole('link', { name: 'Single sign-on' })).toHaveCount(0);
    await page.goto('/settings/sso');
    await expect(page.getByRole('status')).toContainText(
      'Single sign-on is for people with the admin role',
    );

    const admin = await activeUser(service, 'sso-phone', 'admin');
    await verifiedDomain(service.url, admin, dns);
    await page.context().clearCookies();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 390, height: 844 });
    await signedIn(page, admin.email, admin.password, '/settings/sso');
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    await expect(stepOf(page, '2. Connect your identity provider')).toBeVisible();
    const widths = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }));
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'settings-sso-phone-dark');
    await page.setViewportSize({ width: 1280, height: 800 });
    await documentScreenshot(page, 'settings-sso-dark');
  });
});
