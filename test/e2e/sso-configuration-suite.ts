import { TestDnsServer } from '../support/dns-server';
import { json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { createTestUser, signedIn, type TestUser, type WebSession } from '../support/web-session';

/**
 * The setting the SSO-configuration suites share: a test DNS server the
 * service resolves through, a signed-in admin, unique domains verified by
 * their TXT record, and a valid OIDC body.
 */
export function ssoConfigurationSuite() {
  const dns = new TestDnsServer();
  let service: TestService;
  let admin: TestUser;
  let browser: WebSession;
  let orgPath: string;
  let counter = 0;
  const uniqueDomain = () => {
    counter += 1;
    return `acme${counter}-${Date.now()}.example`;
  };

  const oidcBody = (extra: Record<string, unknown> = {}) => ({
    protocol: 'oidc',
    enforce_sso: false,
    oidc: {
      issuer: 'https://idp.example.com',
      client_id: 'svc-client',
      client_secret: 'the client secret value',
    },
    ...extra,
  });

  /** Adds a domain, publishes its TXT record on the test DNS server, verifies it. */
  async function verifiedDomain(session: WebSession, path: string, domain = uniqueDomain()) {
    const added = await session.request(`${path}/sso/domains`, {
      method: 'POST',
      body: { domain },
    });
    expect(added.status).toBe(201);
    const record = json(added).txt_record;
    dns.txt.set(record.name, [record.value]);
    const verified = await session.request(`${path}/sso/domains/${domain}/verify`, {
      method: 'POST',
    });
    expect(verified.status).toBe(200);
    return domain;
  }

  beforeAll(async () => {
    await dns.start();
    service = await startTestService({ env: { SVC_DNS_SERVERS: dns.address } });
    admin = await createTestUser(service, { role: 'admin' });
    browser = await signedIn(service, admin);
    orgPath = `/api/v1/organizations/${service.orgId}`;
  });
  afterAll(async () => {
    await service.end();
    await dns.stop();
  });

  return {
    dns,
    uniqueDomain,
    oidcBody,
    verifiedDomain,
    service: () => service,
    admin: () => admin,
    browser: () => browser,
    orgPath: () => orgPath,
    counter: () => counter,
  };
}
