import { LOGIN_THROTTLE } from '../../layers/core/domain/login-throttle';
import { expectNestedError } from '../support/error-shapes';
import { apiFrom } from '../support/from-address';
import { json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { createKey, type TestKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

/** Longer than a function instance trusts what it read of an organization (P11, P76). */
const POLICY_CACHE_EXPIRY_MS = 31_000;

/** What the console's distribution sends (P242): here the local runtime is told it, as a proxy's. */
const ORIGIN_SECRET = 'Zq8mN3vR5tY7wB2xC4kL6pD9fG1hJ0sAeUiOoPaSdFgHjKlZxCvBnMqWeRtYuIoP';

/** Loopback addresses this machine can send from (the whole of 127/8 on Linux). */
const ADMIN = '127.0.0.1';
/** Stands in for a CloudFront edge: the socket peer of console traffic. */
const EDGE = '127.0.0.2';
const STRANGER = '127.0.0.3';
/** Viewers' addresses, only ever sent in a header. */
const OFFICE_VIEWER = '198.51.100.9';
const HOME_VIEWER = '203.0.113.50';

const throughConsole = (viewer: string) => ({
  'x-svc-origin-verify': ORIGIN_SECRET,
  'x-svc-viewer-address': viewer,
});

/**
 * P242 over HTTP: a request proving it came through the console's
 * distribution (its origin secret) is judged by the viewer's address
 * CloudFront wrote; every other request by its socket's, whatever headers
 * it carries. The local runtime is started with the secret configured, as
 * a proxy in front of it would be; started without one it trusts no header.
 */
describe('The viewer address behind the console distribution (P242)', () => {
  const clock = new TestClock();
  let service: TestService;
  let script: TestKey;

  beforeAll(async () => {
    service = await startTestService({ clock, env: { SVC_ORIGIN_VERIFY_SECRET: ORIGIN_SECRET } });
    script = await createKey(service, service.orgId, { scopes: ['Read', 'Write'] });
  });
  afterAll(() => service.end());
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const organizationPath = () => `/api/v1/organizations/${service.orgId}`;
  const setAllowlistFrom = (
    address: string,
    ranges: string[],
    headers: Record<string, string> = {},
  ) =>
    apiFrom(address, service.url, organizationPath(), {
      method: 'PUT',
      key: service.adminKey,
      headers,
      body: { settings: { ip_allowlist: ranges } },
    });
  const letPoliciesExpire = () => clock.advance(POLICY_CACHE_EXPIRY_MS);
  const listAgentsFrom = (address: string, headers: Record<string, string> = {}) =>
    apiFrom(address, service.url, '/api/v1/agents', { key: script.key, headers });

  describe('IP allowlist (D15)', () => {
    afterEach(async () => {
      expect((await setAllowlistFrom(ADMIN, [])).status).toBe(200);
      letPoliciesExpire();
    });

    it('judges a request with the right secret by the viewer address, not the edge it came from', async () => {
      await setAllowlistFrom(ADMIN, ['127.0.0.1/32', '198.51.100.0/24']);
      letPoliciesExpire();

      const officeViewer = await listAgentsFrom(EDGE, throughConsole(OFFICE_VIEWER));
      const homeViewer = await listAgentsFrom(EDGE, throughConsole(HOME_VIEWER));

      expect(officeViewer.status).toBe(200);
      const error = expectNestedError(homeViewer, 403, 'forbidden');
      expect(error.details).toMatchObject({ reason: 'ip_not_allowed', source_ip: HOME_VIEWER });
    });

    it('judges a request by its socket address when the secret is wrong or missing', async () => {
      await setAllowlistFrom(ADMIN, ['127.0.0.1/32', '198.51.100.0/24']);
      letPoliciesExpire();

      const wrongSecret = await listAgentsFrom(EDGE, {
        'x-svc-origin-verify': `${ORIGIN_SECRET.slice(0, -1)}x`,
        'x-svc-viewer-address': OFFICE_VIEWER,
      });
      const noSecret = await listAgentsFrom(EDGE, { 'x-svc-viewer-address': OFFICE_VIEWER });

      for (const response of [wrongSecret, noSecret]) {
        const error = expectNestedError(response, 403, 'forbidden');
        expect(error.details).toMatchObject({ reason: 'ip_not_allowed', source_ip: EDGE });
      }
    });

    it('is never moved by headers a client writes itself, CloudFront-Viewer-Address included', async () => {
      await setAllowlistFrom(ADMIN, ['127.0.0.1/32', '198.51.100.0/24']);
      letPoliciesExpire();

      const forged = await listAgentsFrom(STRANGER, {
        'x-svc-viewer-address': OFFICE_VIEWER,
        'cloudfront-viewer-address': `${OFFICE_VIEWER}:52325`,
        'x-forwarded-for': OFFICE_VIEWER,
        'x-real-ip': OFFICE_VIEWER,
      });
      // From inside the list, a forged viewer header does not take the caller out of it either.
      const insideWithForgery = await listAgentsFrom(ADMIN, {
        'x-svc-viewer-address': HOME_VIEWER,
      });

      const error = expectNestedError(forged, 403, 'forbidden');
      expect(error.details.source_ip).toBe(STRANGER);
      expect(insideWithForgery.status).toBe(200);
    });

    it('holds a console administrator to their own viewer address (P77)', async () => {
      const locksOut = await setAllowlistFrom(
        ADMIN,
        ['127.0.0.1/32'],
        throughConsole(OFFICE_VIEWER),
      );
      const keepsIn = await setAllowlistFrom(
        ADMIN,
        ['127.0.0.1/32', '198.51.100.0/24'],
        throughConsole(OFFICE_VIEWER),
      );

      const error = expectNestedError(locksOut, 400, 'invalid_request');
      expect(JSON.stringify(error)).toContain(OFFICE_VIEWER);
      expect(keepsIn.status).toBe(200);
      expect(json(keepsIn).settings.ip_allowlist).toEqual(['127.0.0.1/32', '198.51.100.0/24']);
    });
  });

  describe('Sign-in throttle per address (P62, P212)', () => {
    // Thirty scrypt checks take seconds: time stands still, so no token comes back meanwhile.
    beforeEach(() => clock.freeze());
    afterEach(() => clock.resume());

    const signInFrom = (address: string, email: string, headers: Record<string, string> = {}) =>
      apiFrom(address, service.url, '/api/v1/auth/login', {
        method: 'POST',
        headers,
        body: { email, password: 'Summer2026!!guess' },
      });

    it("counts the console's failed sign-ins per viewer, so one viewer's guesses do not slow another behind the same edge", async () => {
      for (let i = 0; i < LOGIN_THROTTLE.address.burst; i += 1) {
        const response = await signInFrom(
          EDGE,
          `viewer-spray${i}@example.com`,
          throughConsole(HOME_VIEWER),
        );
        expect(response.status).toBe(401);
      }

      const sameViewer = await signInFrom(
        EDGE,
        'one-more@example.com',
        throughConsole(HOME_VIEWER),
      );
      const otherViewer = await signInFrom(
        EDGE,
        'one-more@example.com',
        throughConsole(OFFICE_VIEWER),
      );

      expect(expectNestedError(sameViewer, 429, 'rate_limit_exceeded').details.reason).toBe(
        'login_attempts',
      );
      expect(otherViewer.status).toBe(401);
    });

    it('counts by socket when the viewer header comes without the secret: changing it escapes nothing', async () => {
      for (let i = 0; i < LOGIN_THROTTLE.address.burst; i += 1) {
        const response = await signInFrom(STRANGER, `forger${i}@example.com`, {
          'x-svc-viewer-address': `198.51.100.${i + 1}`,
        });
        expect(response.status).toBe(401);
      }

      const next = await signInFrom(STRANGER, 'forger-next@example.com', {
        'x-svc-viewer-address': '192.0.2.200',
      });

      expect(expectNestedError(next, 429, 'rate_limit_exceeded').details.reason).toBe(
        'login_attempts',
      );
    });
  });
});

/** On one machine without a proxy (the default), the headers mean nothing. */
describe('The local runtime without an origin secret (P242)', () => {
  const clock = new TestClock();
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService({ clock });
  });
  afterAll(() => service.end());

  it('judges every request by its socket, even one carrying a would-be secret and viewer address', async () => {
    const admin = (ranges: string[], headers: Record<string, string> = {}) =>
      apiFrom(ADMIN, service.url, `/api/v1/organizations/${service.orgId}`, {
        method: 'PUT',
        key: service.adminKey,
        headers,
        body: { settings: { ip_allowlist: ranges } },
      });
    await admin(['127.0.0.1/32']);
    clock.advance(POLICY_CACHE_EXPIRY_MS);

    const fromEdge = await apiFrom(EDGE, service.url, '/api/v1/agents', {
      key: service.adminKey,
      headers: throughConsole(ADMIN),
    });
    // The own-address check sees the socket too: the admin's header-borne address changes nothing.
    const ownAddress = await admin(['127.0.0.1/32'], throughConsole(OFFICE_VIEWER));

    const error = expectNestedError(fromEdge, 403, 'forbidden');
    expect(error.details.source_ip).toBe(EDGE);
    expect(ownAddress.status).toBe(200);
    await admin([]);
  });

  it('refuses an origin secret too short to be one at start', async () => {
    await expect(startTestService({ env: { SVC_ORIGIN_VERIFY_SECRET: 'short' } })).rejects.toThrow(
      /SVC_ORIGIN_VERIFY_SECRET/,
    );
  });
});
