import { expectFlatError, expectNestedError, expectSecurityHeaders } from '../support/error-shapes';
import { type ApiResponse, api } from '../support/http-client';
import { unknownId } from '../support/ids';
import { startTestService, type TestService } from '../support/local-service';
import { createKey, createTenant, type TestKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

/** Spec, Limits: Write refills 10 tokens a minute (one every 6 s) and holds 15. */
const WRITE = { perMinute: 10, burst: 15, intervalMs: 6_000 } as const;

/**
 * D16: a token bucket per key and scope (the scope the endpoint requires), and
 * the organization's plan per minute; headers describe the scope bucket. The
 * clock is frozen in each test, so the buckets only refill when a test says so.
 */
describe('Rate limits (D16)', () => {
  const clock = new TestClock();
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService({ clock });
  });
  afterAll(() => service.end());
  beforeEach(() => {
    clock.resume();
    clock.advance(REFILL_ALL_BUCKETS_MS);
    clock.freeze();
  });

  /** Write scope; answers 404 when admitted, so it stores nothing. */
  const writeRequest = (key: string, path = `/api/v1/data-sources/${unknownId('ds')}/sync`) =>
    api(service.url, path, { method: 'POST', key });

  const header = (response: ApiResponse, name: string) => response.headers.get(name);
  const numberHeader = (response: ApiResponse, name: string) => Number(header(response, name));

  async function exhaustWriteBucket(key: string): Promise<ApiResponse[]> {
    const admitted: ApiResponse[] = [];
    for (let i = 0; i < WRITE.burst; i += 1) admitted.push(await writeRequest(key));
    return admitted;
  }

  const freshKey = (scopes: Array<'Read' | 'Write' | 'Execute' | 'Admin'>): Promise<TestKey> =>
    createKey(service, service.orgId, { scopes });

  it('describes the scope bucket on a success: limit, remaining, reset, used and the IETF headers', async () => {
    const { key } = await freshKey(['Write']);
    const now = clock.now().getTime();

    const response = await writeRequest(key);

    expect(response.status).toBe(404);
    expect(header(response, 'x-ratelimit-limit')).toBe('10');
    expect(header(response, 'x-ratelimit-remaining')).toBe('14');
    expect(header(response, 'x-ratelimit-used')).toBe('0');
    // After one request the bucket is full again one interval later.
    expect(numberHeader(response, 'x-ratelimit-reset')).toBe(
      Math.ceil((now + WRITE.intervalMs) / 1000),
    );
    expect(header(response, 'ratelimit-policy')).toBe('"write";q=10;w=60;burst=15');
    expect(header(response, 'ratelimit')).toMatch(/^"write";r=14;t=\d+$/);
  });

  it('admits exactly the burst of 15 Write requests, counting down, then answers 429', async () => {
    const { key } = await freshKey(['Write']);
    const now = clock.now().getTime();

    const admitted = await exhaustWriteBucket(key);
    const refused = await writeRequest(key);

    expect(admitted.map((response) => response.status)).toEqual(Array(15).fill(404));
    const remaining = admitted.map((response) => numberHeader(response, 'x-ratelimit-remaining'));
    expect(remaining).toEqual([14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    for (const response of admitted) {
      const left = numberHeader(response, 'x-ratelimit-remaining');
      expect(numberHeader(response, 'x-ratelimit-used')).toBe(Math.max(0, WRITE.perMinute - left));
    }

    const error = expectNestedError(refused, 429, 'rate_limit_exceeded');
    const fullAt = now + WRITE.burst * WRITE.intervalMs;
    expect(error.details).toEqual({
      reason: 'scope_rate',
      limit: 10,
      reset_at: new Date(fullAt).toISOString(),
      retry_after: 6,
    });
    expect(header(refused, 'retry-after')).toBe('6');
    expect(header(refused, 'x-ratelimit-limit')).toBe('10');
    expect(header(refused, 'x-ratelimit-remaining')).toBe('0');
    expect(header(refused, 'x-ratelimit-used')).toBe('10');
    expect(numberHeader(refused, 'x-ratelimit-reset')).toBe(Math.ceil(fullAt / 1000));
    expect(header(refused, 'ratelimit-policy')).toBe('"write";q=10;w=60;burst=15');
    expect(header(refused, 'ratelimit')).toMatch(/^"write";r=0;t=\d+$/);
    expectSecurityHeaders(refused);
  });

  it('answers the same exhaustion on a legacy path in the flat shape', async () => {
    const { key } = await freshKey(['Write']);
    await exhaustWriteBucket(key);

    const refused = await writeRequest(key, `/api/data-specs/${unknownId('ds')}/process`);

    const body = expectFlatError(refused, 429);
    expect(body).toMatchObject({ error: 'Rate limit exceeded', limit: 10 });
    expect(new Date(body.reset_at).toISOString()).toBe(body.reset_at);
    expect(header(refused, 'retry-after')).toBe('6');
    expect(header(refused, 'x-ratelimit-remaining')).toBe('0');
    expect(header(refused, 'deprecation')).toBe('true');
  });

  it('counts refused requests against nothing: waiting one interval admits exactly one more', async () => {
    const { key } = await freshKey(['Write']);
    await exhaustWriteBucket(key);
    for (let i = 0; i < 5; i += 1) expect((await writeRequest(key)).status).toBe(429);

    clock.advance(WRITE.intervalMs);
    const admitted = await writeRequest(key);
    const refused = await writeRequest(key);

    expect(admitted.status).toBe(404);
    expect(header(admitted, 'x-ratelimit-remaining')).toBe('0');
    expect(refused.status).toBe(429);
  });

  it('refills the whole bucket once the clock has moved on long enough', async () => {
    const { key } = await freshKey(['Write']);
    await exhaustWriteBucket(key);
    expect((await writeRequest(key)).status).toBe(429);

    clock.advance(WRITE.burst * WRITE.intervalMs);
    const again = await exhaustWriteBucket(key);

    expect(header(again[0] as ApiResponse, 'x-ratelimit-remaining')).toBe('14');
    expect(again.map((response) => response.status)).toEqual(Array(15).fill(404));
    expect((await writeRequest(key)).status).toBe(429);
  });

  it("draws an Admin key's reads from its Read bucket (limit 200) and writes from its Write bucket", async () => {
    const { key } = await freshKey(['Admin']);

    const read = await api(service.url, '/api/v1/agents', { key });
    const write = await writeRequest(key);

    expect(read.status).toBe(200);
    expect(header(read, 'x-ratelimit-limit')).toBe('200');
    expect(header(read, 'x-ratelimit-remaining')).toBe('249');
    expect(header(read, 'ratelimit-policy')).toBe('"read";q=200;w=60;burst=250');
    expect(header(write, 'x-ratelimit-limit')).toBe('10');
    expect(header(write, 'x-ratelimit-remaining')).toBe('14');
  });

  it('keeps scopes apart: an exhausted Write bucket does not stop reads', async () => {
    const { key } = await freshKey(['Admin']);
    await exhaustWriteBucket(key);

    const read = await api(service.url, '/api/v1/data-sources', { key });

    expect((await writeRequest(key)).status).toBe(429);
    expect(read.status).toBe(200);
    expect(header(read, 'x-ratelimit-limit')).toBe('200');
  });

  it('keeps keys apart: another key of the same organization has its own bucket', async () => {
    const first = await freshKey(['Write']);
    const second = await freshKey(['Write']);
    await exhaustWriteBucket(first.key);

    const response = await writeRequest(second.key);

    expect(response.status).toBe(404);
    expect(header(response, 'x-ratelimit-remaining')).toBe('14');
  });

  it('does not rate-limit requests refused for authentication or scope', async () => {
    const { key } = await freshKey(['Read']);
    for (let i = 0; i < WRITE.burst + 5; i += 1) {
      expect((await writeRequest(key)).status).toBe(403);
    }

    const refused = await writeRequest(key);

    expect(refused.status).toBe(403);
    expect(header(refused, 'x-ratelimit-limit')).toBeNull();
  });

  describe('plan limits', () => {
    it("refuses a free organization's 21st request in a minute with plan_rate, though its Read bucket is not empty", async () => {
      const tenant = await createTenant(service, { plan: 'free', scopes: ['Read'] });
      const now = clock.now().getTime();
      const windowEnd = (Math.floor(now / 60_000) + 1) * 60_000;

      const admitted: ApiResponse[] = [];
      for (let i = 0; i < 20; i += 1) {
        admitted.push(await api(service.url, '/api/v1/agents', { key: tenant.key }));
      }
      const refused = await api(service.url, '/api/v1/agents', { key: tenant.key });

      expect(admitted.map((response) => response.status)).toEqual(Array(20).fill(200));
      const error = expectNestedError(refused, 429, 'rate_limit_exceeded');
      expect(error.details).toEqual({
        reason: 'plan_rate',
        limit: 20,
        reset_at: new Date(windowEnd).toISOString(),
        retry_after: Math.max(1, Math.ceil((windowEnd - now) / 1000)),
      });
      expect(header(refused, 'retry-after')).toBe(String(error.details.retry_after));
      // The headers still describe the Read bucket, which the refusal did not spend.
      expect(header(refused, 'x-ratelimit-limit')).toBe('200');
      expect(numberHeader(refused, 'x-ratelimit-remaining')).toBeGreaterThan(0);
      expect(header(refused, 'x-ratelimit-remaining')).toBe(
        header(admitted[19] as ApiResponse, 'x-ratelimit-remaining'),
      );
    });

    it('answers a plan refusal on a legacy path in the flat shape', async () => {
      const tenant = await createTenant(service, { plan: 'free', scopes: ['Read'] });
      for (let i = 0; i < 20; i += 1)
        await api(service.url, '/api/data-specs', { key: tenant.key });

      const refused = await api(service.url, '/api/data-specs', { key: tenant.key });

      expect(expectFlatError(refused, 429)).toMatchObject({
        error: 'Rate limit exceeded',
        limit: 20,
        reset_at: expect.any(String),
      });
      expect(header(refused, 'retry-after')).toMatch(/^\d+$/);
    });

    it('admits the organization again in the next minute', async () => {
      const tenant = await createTenant(service, { plan: 'free', scopes: ['Read'] });
      for (let i = 0; i < 20; i += 1) await api(service.url, '/api/v1/agents', { key: tenant.key });
      expect((await api(service.url, '/api/v1/agents', { key: tenant.key })).status).toBe(429);

      clock.advance(60_000);
      const response = await api(service.url, '/api/v1/agents', { key: tenant.key });

      expect(response.status).toBe(200);
    });

    it('counts every key of the organization against the same plan', async () => {
      const tenant = await createTenant(service, { plan: 'free', scopes: ['Read'] });
      const second = await createKey(service, tenant.orgId, { scopes: ['Read'] });
      for (let i = 0; i < 20; i += 1) await api(service.url, '/api/v1/agents', { key: tenant.key });

      const response = await api(service.url, '/api/v1/agents', { key: second.key });

      expect(expectNestedError(response, 429, 'rate_limit_exceeded').details.reason).toBe(
        'plan_rate',
      );
    });
  });
});
