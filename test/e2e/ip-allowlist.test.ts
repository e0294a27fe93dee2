import { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { serviceMetrics } from '../../layers/core/observability/metrics';
import { runCli } from '../../lib/local/admin-cli';
import { expectFlatError, expectNestedError, fieldPaths } from '../support/error-shapes';
import { apiFrom } from '../support/from-address';
import { json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { createKey, createTenant, type TestKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import { createTestUser, signedIn, type WebSession } from '../support/web-session';

/** Longer than a function instance trusts what it read of an organization (P11, P76). */
const POLICY_CACHE_EXPIRY_MS = 31_000;

/** Loopback addresses this machine can send from: the whole of 127/8 is loopback on Linux, and ::1. */
const ADMIN_ADDRESS = '127.0.0.1';
const OTHER_V4 = '127.0.0.2';
const V6 = '::1';

/**
 * D15 IP allowlist, over real sockets: the service listens on `::` (dual
 * stack), so one test can reach it from 127.0.0.1, from 127.0.0.2 and over
 * IPv6 from ::1, and the address judged is always the socket's peer, as
 * API Gateway's `requestContext.identity.sourceIp` is (P76).
 */
describe('IP allowlist (D15, P76, P77)', () => {
  const clock = new TestClock();
  let service: TestService;
  let v4: string;
  let v6: string;
  let admin: WebSession;
  let script: TestKey;

  beforeAll(async () => {
    service = await startTestService({ clock, env: { HOST: '::' } });
    const port = new URL(service.url).port;
    v4 = `http://127.0.0.1:${port}`;
    v6 = `http://[::1]:${port}`;
    const user = await createTestUser(service, { role: 'admin' });
    admin = await signedIn({ ...service, url: v4 }, user);
    script = await createKey(service, service.orgId, { scopes: ['Read', 'Write'] });
  });
  afterAll(() => service.end());
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const organizationPath = () => `/api/v1/organizations/${service.orgId}`;
  const setAllowlist = (ranges: string[]) =>
    admin.request(organizationPath(), {
      method: 'PUT',
      body: { settings: { ip_allowlist: ranges } },
    });
  /** Applies a change everywhere: each function instance re-reads the organization after its cache time. */
  const letPoliciesExpire = () => clock.advance(POLICY_CACHE_EXPIRY_MS);
  const listAgentsFrom = (address: string, base: string, headers: Record<string, string> = {}) =>
    apiFrom(address, base, '/api/v1/agents', { key: script.key, headers });

  afterEach(async () => {
    // Each test starts with no allowlist; the admin is at 127.0.0.1, which the lists below allow.
    await setAllowlist([]);
    letPoliciesExpire();
  });

  it('stores the ranges in canonical form and lets requests from inside them through', async () => {
    const response = await setAllowlist(['127.0.0.1/32', '2001:DB8:0:0::/32', ' ::1/128 ']);
    letPoliciesExpire();

    const inside = await listAgentsFrom(ADMIN_ADDRESS, v4);

    expect(response.status).toBe(200);
    expect(json(response).settings.ip_allowlist).toEqual([
      '127.0.0.1/32',
      '2001:db8::/32',
      '::1/128',
    ]);
    expect(inside.status).toBe(200);
  });

  it('refuses an API key from outside the list with 403 forbidden naming the address', async () => {
    await setAllowlist(['127.0.0.1/32']);
    letPoliciesExpire();

    const outside = await listAgentsFrom(OTHER_V4, v4);
    const legacy = await apiFrom(OTHER_V4, v4, '/api/ai-agent-managers', { key: script.key });

    const error = expectNestedError(outside, 403, 'forbidden');
    expect(error.details).toEqual({ reason: 'ip_not_allowed', source_ip: OTHER_V4 });
    expect(error.message).toContain(OTHER_V4);
    expect(expectFlatError(legacy, 403)).toMatchObject({
      status: 403,
      code: 'forbidden',
      details: { reason: 'ip_not_allowed', source_ip: OTHER_V4 },
    });
    // Refused before any limit counted: no scope bucket is described.
    expect(outside.headers.get('x-ratelimit-remaining')).toBeNull();
  });

  it('logs each refusal with the address and counts it in IpAllowlistRefusals', async () => {
    await setAllowlist(['127.0.0.1/32']);
    letPoliciesExpire();
    // The handlers run in this process, so their logger and metrics can be watched.
    const metadata: Record<string, unknown> = {};
    const refusalMetric = {
      addMetadata: (name: string, value: unknown) => {
        metadata[name] = value;
      },
      addMetric: jest.fn(),
    };
    const singleMetric = jest
      .spyOn(serviceMetrics(), 'singleMetric')
      .mockReturnValue(refusalMetric as unknown as ReturnType<Metrics['singleMetric']>);
    const warn = jest.spyOn(Logger.prototype, 'warn');

    let warnings: unknown[][];
    try {
      await listAgentsFrom(OTHER_V4, v4);
    } finally {
      // Restoring a spy forgets its calls: keep them first.
      warnings = [...warn.mock.calls];
      singleMetric.mockRestore();
      warn.mockRestore();
    }

    expect(refusalMetric.addMetric).toHaveBeenCalledWith('IpAllowlistRefusals', 'Count', 1);
    expect(metadata).toEqual({ source_ip: OTHER_V4, org_id: service.orgId });
    expect(warnings).toContainEqual([
      'request refused by the IP allowlist',
      expect.objectContaining({
        source_ip: OTHER_V4,
        org_id: service.orgId,
        key_id: script.keyId,
        request_id: expect.stringMatching(/^req_/),
      }),
    ]);
  });

  it('ignores X-Forwarded-For, X-Real-IP and Forwarded: only the connection counts', async () => {
    await setAllowlist(['127.0.0.1/32']);
    letPoliciesExpire();

    const spoofed = await listAgentsFrom(OTHER_V4, v4, {
      'x-forwarded-for': ADMIN_ADDRESS,
      'x-real-ip': ADMIN_ADDRESS,
      forwarded: `for=${ADMIN_ADDRESS}`,
      'true-client-ip': ADMIN_ADDRESS,
    });
    const spoofedOut = await listAgentsFrom(ADMIN_ADDRESS, v4, { 'x-forwarded-for': OTHER_V4 });

    expect(expectNestedError(spoofed, 403, 'forbidden').details.source_ip).toBe(OTHER_V4);
    expect(spoofedOut.status).toBe(200);
  });

  it('matches IPv6 sources against IPv6 ranges, and IPv4 ranges against IPv4 only', async () => {
    await setAllowlist(['127.0.0.0/8', '::1/128']);
    letPoliciesExpire();
    const both = await listAgentsFrom(V6, v6);

    await setAllowlist(['127.0.0.0/8']);
    letPoliciesExpire();
    const v4Only = await listAgentsFrom(V6, v6);
    const v4Client = await listAgentsFrom(OTHER_V4, v4);

    await setAllowlist(['127.0.0.1/32', '::/0']);
    letPoliciesExpire();
    const anyV6 = await listAgentsFrom(V6, v6);

    expect(both.status).toBe(200);
    expect(expectNestedError(v4Only, 403, 'forbidden').details.source_ip).toBe('::1');
    expect(v4Client.status).toBe(200);
    expect(anyV6.status).toBe(200);
  });

  it('applies to sessions too, and a refused request does not extend the session', async () => {
    await setAllowlist(['127.0.0.1/32']);
    letPoliciesExpire();
    const cookie = admin.jar.header() ?? '';

    const outside = await apiFrom(OTHER_V4, v4, '/api/v1/auth/me', { headers: { cookie } });
    const inside = await apiFrom(ADMIN_ADDRESS, v4, '/api/v1/auth/me', { headers: { cookie } });

    expect(expectNestedError(outside, 403, 'forbidden').details.reason).toBe('ip_not_allowed');
    expect(outside.headers.get('set-cookie')).toBeNull();
    expect(inside.status).toBe(200);
  });

  it('keeps other organizations unaffected', async () => {
    const other = await createTenant(service);
    await setAllowlist(['127.0.0.1/32']);
    letPoliciesExpire();

    const response = await apiFrom(OTHER_V4, v4, '/api/v1/agents', { key: other.key });

    expect(response.status).toBe(200);
  });

  it('tells a signed-in person the address their requests are judged by (P277)', async () => {
    const fromV6 = await signedIn({ ...service, url: v6 }, await createTestUser(service));

    const overV4 = await admin.request('/api/v1/auth/me');
    const overV6 = await fromV6.request('/api/v1/auth/me');
    const spoofed = await admin.request('/api/v1/auth/me', {
      headers: { 'x-forwarded-for': OTHER_V4 },
    });

    expect(json(overV4).source_ip).toBe(ADMIN_ADDRESS);
    expect(json(overV6).source_ip).toBe(V6);
    expect(json(spoofed).source_ip).toBe(ADMIN_ADDRESS);
  });

  it('refuses a list that would shut out the administrator making it (P77), and keeps the old list', async () => {
    await setAllowlist(['127.0.0.1/32']);

    const response = await setAllowlist(['10.0.0.0/8', '::1/128']);
    const current = await admin.request(organizationPath());

    const error = expectNestedError(response, 400, 'invalid_request');
    expect(fieldPaths(error)).toEqual(['settings.ip_allowlist']);
    expect(error.details.source_ip).toBe(ADMIN_ADDRESS);
    expect(error.message).toContain(ADMIN_ADDRESS);
    expect(json(current).settings.ip_allowlist).toEqual(['127.0.0.1/32']);
  });

  it('names every bad range in one 400 and stores nothing (D15, P79)', async () => {
    const bad = [
      '10.1.2.3/8',
      '127.1/8',
      '203.0.113.7',
      '::ffff:127.0.0.1/128',
      'fe80::1%eth0/64',
      '1.2.3.4/33',
      '2001:db8::/129',
      '010.0.0.0/8',
      'not an address',
      '1.2.3.4/08',
    ];

    const response = await setAllowlist(['127.0.0.1/32', ...bad]);
    const current = await admin.request(organizationPath());

    const error = expectNestedError(response, 400, 'invalid_request');
    expect(fieldPaths(error)).toEqual(bad.map((_, index) => `settings.ip_allowlist.${index + 1}`));
    expect(error.message).toContain('10.0.0.0/8');
    expect(error.message).toContain('203.0.113.7/32');
    expect(json(current).settings.ip_allowlist).toEqual([]);
  });

  it('needs the enterprise plan to set a list, never to clear one (D15, P79)', async () => {
    const pro = await createTenant(service, { plan: 'pro' });
    const proAdmin = await signedIn(
      { ...service, url: v4 },
      await createTestUser(service, { orgId: pro.orgId, role: 'admin' }),
    );
    const path = `/api/v1/organizations/${pro.orgId}`;

    const set = await proAdmin.request(path, {
      method: 'PUT',
      body: { settings: { ip_allowlist: ['127.0.0.1/32'] } },
    });
    const clear = await proAdmin.request(path, {
      method: 'PUT',
      body: { settings: { ip_allowlist: [] } },
    });

    expect(expectNestedError(set, 403, 'forbidden').details).toMatchObject({
      reason: 'plan_required',
      required_plan: 'enterprise',
      current_plan: 'pro',
    });
    expect(clear.status).toBe(200);
  });

  it('lets the operator change the plan, and needs something to change (P74)', async () => {
    const tenant = await createTenant(service, { plan: 'pro' });
    const env = { SVC_DYNAMODB_PORT: new URL(service.runtime.dynamoDbEndpoint).port };
    const lines: string[] = [];
    const out = (line: string) => lines.push(line);

    const nothing = await runCli(['orgs', 'update', '--org', tenant.orgId], { out, env });
    const changed = await runCli(
      ['orgs', 'update', '--org', tenant.orgId, '--plan', 'free', '--name', 'Downgraded'],
      { out, env },
    );
    const stored = await service.runtime.dependencies.organizations.get(tenant.orgId);

    expect(nothing).toBe(2);
    expect(changed).toBe(0);
    expect(stored).toMatchObject({ plan: 'free', name: 'Downgraded' });
    expect(lines.join('\n')).toContain(
      `Updated organization ${tenant.orgId} (Downgraded, plan free`,
    );
  });

  it('lets the operator clear a list with `svc orgs update --clear-ip-allowlist` (P77)', async () => {
    await setAllowlist(['127.0.0.1/32']);
    letPoliciesExpire();
    const before = await listAgentsFrom(OTHER_V4, v4);
    const lines: string[] = [];

    const code = await runCli(
      ['orgs', 'update', '--org', service.orgId, '--clear-ip-allowlist', '--json'],
      {
        out: (line) => lines.push(line),
        env: { SVC_DYNAMODB_PORT: new URL(service.runtime.dynamoDbEndpoint).port },
      },
    );
    letPoliciesExpire();
    const after = await listAgentsFrom(OTHER_V4, v4);

    expect(before.status).toBe(403);
    expect(code).toBe(0);
    expect(JSON.parse(lines.join('\n')).settings.ip_allowlist).toEqual([]);
    expect(after.status).toBe(200);
  });
});
