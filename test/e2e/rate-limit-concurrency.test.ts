import { type ApiResponse, api } from '../support/http-client';
import { unknownId } from '../support/ids';
import { startTestService, type TestService } from '../support/local-service';
import { pastConcurrency } from '../support/rate-limits';
import { createKey, createTenant } from '../support/tenants';
import { TestClock } from '../support/test-clock';

/**
 * D16 "limits hold under concurrency" and ARCHITECTURE's GCRA in one
 * conditional UpdateItem: K simultaneous requests against a bucket holding C
 * tokens admit exactly min(K, C). The clock is frozen so no token refills
 * while the burst is in flight.
 */
/**
 * A burst of hundreds of requests, each several conditional writes to the
 * in-process dynalite, took over 30 s on a loaded 2-core CI machine: these
 * are load tests, so they get a load test's time.
 */
jest.setTimeout(120_000);

describe('Rate limits under concurrency', () => {
  const clock = new TestClock();
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService({ clock });
    clock.freeze();
  });
  afterAll(async () => {
    clock.resume();
    await service.end();
  });

  /**
   * Fires `count` requests at once and tallies the statuses. A request refused
   * only because the organization's concurrent requests (D16) were all in
   * flight is charged nothing and sent again, so what is tallied is each
   * request's answer from the bucket or counter under test.
   */
  async function burst(count: number, send: () => Promise<ApiResponse>) {
    const statuses = (
      await Promise.all(Array.from({ length: count }, () => pastConcurrency(send)))
    ).map((response) => response.status);
    return {
      refused: statuses.filter((status) => status === 429).length,
      admitted: statuses.filter((status) => status !== 429),
    };
  }

  it('admits exactly 15 of 40 simultaneous Write requests on a fresh key', async () => {
    const { key } = await createKey(service, service.orgId, { scopes: ['Write'] });

    const result = await burst(40, () =>
      api(service.url, `/api/v1/data-sources/${unknownId('ds')}/sync`, { method: 'POST', key }),
    );

    expect(result.refused).toBe(25);
    expect(result.admitted).toEqual(Array(15).fill(404));
  });

  it('admits exactly 250 of 300 simultaneous Read requests on a fresh key', async () => {
    const { key } = await createKey(service, service.orgId, { scopes: ['Read'] });

    const result = await burst(300, () =>
      api(service.url, `/api/v1/data-sources/${unknownId('ds')}/status`, { key }),
    );

    expect(result.refused).toBe(50);
    expect(result.admitted).toEqual(Array(250).fill(404));
  });

  it('admits every request when the bucket holds more tokens than arrive', async () => {
    const { key } = await createKey(service, service.orgId, { scopes: ['Write'] });

    const result = await burst(12, () =>
      api(service.url, `/api/v1/data-sources/${unknownId('ds')}/sync`, { method: 'POST', key }),
    );

    expect(result.refused).toBe(0);
    expect(result.admitted).toHaveLength(12);
  });

  it('holds a plan limit under concurrency too: a pro organization admits 100 of 130 in a minute', async () => {
    const tenant = await createTenant(service, { plan: 'pro', scopes: ['Read'] });

    const result = await burst(130, () => api(service.url, '/api/v1/agents', { key: tenant.key }));

    expect(result.refused).toBe(30);
    expect(result.admitted).toEqual(Array(100).fill(200));
  });

  it('keeps racing keys apart: each of two keys admits exactly its own 15', async () => {
    const first = await createKey(service, service.orgId, { scopes: ['Write'] });
    const second = await createKey(service, service.orgId, { scopes: ['Write'] });
    const path = () => `/api/v1/data-sources/${unknownId('ds')}/sync`;

    const [a, b] = await Promise.all([
      burst(25, () => api(service.url, path(), { method: 'POST', key: first.key })),
      burst(25, () => api(service.url, path(), { method: 'POST', key: second.key })),
    ]);

    expect([a.admitted.length, b.admitted.length]).toEqual([15, 15]);
  });
});
