import fc from 'fast-check';
import { TestDnsServer } from '../support/dns-server';
import { type FuzzBody, fuzzBody } from '../support/http-arbitraries';
import { type ApiResponse, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { IDP_CERT } from '../support/saml-idp';
import { createTestUser, signedIn, type WebSession } from '../support/web-session';

/** Never a 5xx, always D5's nested shape for a refusal. */
function expectWellFormed(response: ApiResponse): void {
  expect(response.status).toBeLessThan(500);
  expect(response.headers.get('x-request-id')).toMatch(/^req_[0-9a-z]{26}$/);
  if (response.status < 400) return;
  const body = json(response);
  expect(Object.keys(body).sort()).toEqual(['error', 'request_id']);
  expect(typeof body.error.code).toBe('string');
}

/**
 * Property-based fuzzing of D14's bodies over real HTTP: the SSO
 * configuration and a domain to verify. Malformed, hostile or half-valid
 * bodies get a 4xx in the right shape, and a refusal stores nothing.
 */
describe('Fuzzing SSO configuration bodies (D14)', () => {
  const dns = new TestDnsServer();
  let service: TestService;
  let browser: WebSession;
  let orgPath: string;
  const domain = `fuzz-${Date.now()}.example`;
  beforeAll(async () => {
    await dns.start();
    service = await startTestService({ env: { SVC_DNS_SERVERS: dns.address } });
    browser = await signedIn(service, await createTestUser(service, { role: 'admin' }));
    orgPath = `/api/v1/organizations/${service.orgId}`;
    const added = await browser.request(`${orgPath}/sso/domains`, {
      method: 'POST',
      body: { domain },
    });
    const record = json(added).txt_record;
    dns.txt.set(record.name, [record.value]);
    await browser.request(`${orgPath}/sso/domains/${domain}/verify`, { method: 'POST' });
  });
  afterAll(async () => {
    await service.end();
    await dns.stop();
  });

  const raw = (body: FuzzBody) => ({
    ...(body.text !== undefined ? { rawBody: body.text } : {}),
    headers: (body.contentType ? { 'content-type': body.contentType } : {}) as Record<
      string,
      string
    >,
  });

  it('answers every configuration body well, and stores one only when it says 200', async () => {
    const bodies = fuzzBody([
      {
        protocol: 'oidc',
        enforce_sso: true,
        oidc: { issuer: 'https://idp.example.com', client_id: 'c', client_secret: 's' },
      },
      {
        protocol: 'oidc',
        oidc: { preset: 'microsoft', tenant: 'contoso', client_id: 'c', client_secret: 's' },
        attribute_mapping: { email: 'upn' },
        provision_role: 'readonly',
      },
      {
        protocol: 'saml',
        enforce_sso: false,
        saml: {
          idp_entity_id: 'https://idp.example/saml',
          sso_url: 'https://idp.example/sso',
          idp_certificates: [IDP_CERT],
        },
      },
    ]);
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        await service.runtime.dependencies.ssoRepository.deleteConfiguration(service.orgId);
        const response = await browser.request(`${orgPath}/sso`, { method: 'PUT', ...raw(body) });

        expectWellFormed(response);
        const stored = await service.runtime.dependencies.ssoRepository.getConfiguration(
          service.orgId,
        );
        expect(stored !== null).toBe(response.status === 200);
      }),
      { numRuns: 60 },
    );
  });

  it('answers every ACS post well (P92): never a 5xx, never a session', async () => {
    const acs = `/api/v1/sso/saml/${service.orgId}`;
    const forms = fc.oneof(
      fc.record({
        SAMLResponse: fc.oneof(
          fc.string(),
          fc.base64String(),
          fc.string().map((x) => Buffer.from(`<samlp:Response>${x}`).toString('base64')),
        ),
        RelayState: fc.option(fc.string({ maxLength: 300 }), { nil: undefined }),
      }),
      fc.dictionary(fc.string({ maxLength: 20 }), fc.string({ maxLength: 50 })),
    );
    await fc.assert(
      fc.asyncProperty(forms, async (form) => {
        const fields = Object.fromEntries(
          Object.entries(form).filter((entry): entry is [string, string] => entry[1] !== undefined),
        );
        const response = await fetch(`${service.url}${acs}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            'sec-fetch-site': 'cross-site',
          },
          body: new URLSearchParams(fields).toString(),
          redirect: 'manual',
        });
        await response.text();

        expect(response.status).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
        expect(response.headers.getSetCookie().join()).not.toMatch(/svc_session=[^;]/);
      }),
      { numRuns: 60 },
    );
  });

  it('answers every domain body well, and adds a domain only when it says 201', async () => {
    const bodies = fuzzBody([{ domain: 'fuzzed.example' }, { domain: 'xn--bcher-kva.example' }]);
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        const before = await service.runtime.dependencies.ssoRepository.listDomains(service.orgId);
        const response = await browser.request(`${orgPath}/sso/domains`, {
          method: 'POST',
          ...raw(body),
        });

        expectWellFormed(response);
        const after = await service.runtime.dependencies.ssoRepository.listDomains(service.orgId);
        expect(after.length - before.length).toBe(response.status === 201 ? 1 : 0);
        if (response.status === 201) {
          await service.runtime.dependencies.ssoRepository.deleteDomain(
            service.orgId,
            json(response).domain,
          );
        }
      }),
      { numRuns: 60 },
    );
  });
});
