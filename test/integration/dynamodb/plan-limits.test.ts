import fc from 'fast-check';
import { DynamoDbConcurrencyLeases } from '../../../layers/core/adapters/dynamodb/concurrency-leases';
import { DynamoDbDailyUsage } from '../../../layers/core/adapters/dynamodb/daily-usage';
import { DynamoDbPlanQuota } from '../../../layers/core/adapters/dynamodb/rate-limiter';
import { newId } from '../../../layers/core/domain/ids';
import type { DailyCount } from '../../../layers/core/ports/rate-limiter.port';
import { startTestTables, type TestTables } from '../../support/dynalite';

const DAY_START = Date.parse('2027-03-14T00:00:00.000Z');
const NEXT_DAY = DAY_START + 86_400_000;

const allowedCount = (counts: readonly DailyCount[]) =>
  counts.filter((count) => count.allowed).length;

describe('D16 plan limits in DynamoDB (dynalite)', () => {
  let tables: TestTables;
  beforeAll(async () => {
    tables = await startTestTables();
  });
  afterAll(() => tables.end());

  /** Each test its own organization, so tests never share a counter. */
  const freshOrg = () => newId('organization');

  describe('Class: DynamoDbDailyUsage', () => {
    const usage = () => new DynamoDbDailyUsage(tables.client, tables.tableName);
    const requestsOnly = (requestsPerDay: number) => ({ requestsPerDay, tokensPerDay: null });

    it('counts exactly the cap of 50 simultaneous requests from separate instances', async () => {
      // Prepare
      const orgId = freshOrg();

      // Act: 50 requests at once, each from its own adapter (separate Lambda instances)
      const counts = await Promise.all(
        Array.from({ length: 50 }, () =>
          usage().countRequest(orgId, requestsOnly(20), DAY_START + 1_000),
        ),
      );

      // Assess
      expect(allowedCount(counts)).toBe(20);
      expect(counts.filter((count) => !count.allowed)).toEqual(
        Array(30).fill({ allowed: false, exceeded: 'requests', limit: 20 }),
      );
      const numbers = counts.flatMap((count) => (count.allowed ? [count.requests] : []));
      expect(new Set(numbers)).toEqual(new Set(Array.from({ length: 20 }, (_, i) => i + 1)));
    });

    it('resets at 00:00 UTC: the last millisecond of a day counts to it, the next to the next day', async () => {
      const orgId = freshOrg();
      const subject = usage();
      expect(await subject.countRequest(orgId, requestsOnly(1), NEXT_DAY - 1)).toMatchObject({
        allowed: true,
      });
      expect(await subject.countRequest(orgId, requestsOnly(1), NEXT_DAY - 1)).toEqual({
        allowed: false,
        exceeded: 'requests',
        limit: 1,
      });

      expect(await subject.countRequest(orgId, requestsOnly(1), NEXT_DAY)).toEqual({
        allowed: true,
        requests: 1,
        tokens: 0,
      });
    });

    it('refuses for tokens once the settled tokens reach the cap, while requests remain', async () => {
      // Prepare
      const orgId = freshOrg();
      const subject = usage();
      const caps = { requestsPerDay: 1_000, tokensPerDay: 100 };
      expect(await subject.countRequest(orgId, caps, DAY_START)).toMatchObject({ tokens: 0 });
      await subject.addTokens(orgId, 60, DAY_START);
      const underCap = await subject.countRequest(orgId, caps, DAY_START + 1);

      // Act: an answer admitted under the cap settles past it
      await subject.addTokens(orgId, 60, DAY_START + 1);
      const refused = await subject.countRequest(orgId, caps, DAY_START + 2);
      const withoutTokenCap = await subject.countRequest(orgId, requestsOnly(1_000), DAY_START + 3);

      // Assess
      expect(underCap).toEqual({ allowed: true, requests: 2, tokens: 60 });
      expect(refused).toEqual({ allowed: false, exceeded: 'tokens', limit: 100 });
      // A request that spends no tokens is only held to the requests cap.
      expect(withoutTokenCap).toEqual({ allowed: true, requests: 3, tokens: 120 });
    });

    it('names requests first when both caps are reached', async () => {
      const orgId = freshOrg();
      const subject = usage();
      await subject.countRequest(orgId, requestsOnly(1), DAY_START);
      await subject.addTokens(orgId, 10, DAY_START);

      const refused = await subject.countRequest(
        orgId,
        { requestsPerDay: 1, tokensPerDay: 10 },
        DAY_START,
      );

      expect(refused).toEqual({ allowed: false, exceeded: 'requests', limit: 1 });
    });

    it('settles tokens on the day of the request, not the day the answer ended', async () => {
      const orgId = freshOrg();
      const subject = usage();

      await subject.addTokens(orgId, 500, NEXT_DAY - 1);
      const nextDay = await subject.countRequest(
        orgId,
        { requestsPerDay: null, tokensPerDay: 100 },
        NEXT_DAY,
      );

      expect(nextDay).toEqual({ allowed: true, requests: 1, tokens: 0 });
      expect(
        await subject.countRequest(orgId, { requestsPerDay: null, tokensPerDay: 100 }, DAY_START),
      ).toEqual({ allowed: false, exceeded: 'tokens', limit: 100 });
    });

    it('gives a refunded request back, and never counts below zero', async () => {
      const orgId = freshOrg();
      const subject = usage();
      await subject.countRequest(orgId, requestsOnly(2), DAY_START);
      await subject.countRequest(orgId, requestsOnly(2), DAY_START);

      await subject.refundRequest(orgId, DAY_START);
      const again = await subject.countRequest(orgId, requestsOnly(2), DAY_START);
      await subject.refundRequest(freshOrg(), DAY_START);

      expect(again).toEqual({ allowed: true, requests: 2, tokens: 0 });
    });

    it('counts without caps and never refuses', async () => {
      const orgId = freshOrg();
      const counts = await Promise.all(
        Array.from({ length: 10 }, () =>
          usage().countRequest(orgId, { requestsPerDay: null, tokensPerDay: null }, DAY_START),
        ),
      );
      expect(allowedCount(counts)).toBe(10);
    });
  });

  describe('Class: DynamoDbPlanQuota refunds', () => {
    it("gives a refunded request back to its minute's window", async () => {
      const quota = new DynamoDbPlanQuota(tables.client, tables.tableName);
      const orgId = freshOrg();
      const at = DAY_START + 5_000;
      await quota.countRequest(orgId, 2, at);
      await quota.countRequest(orgId, 2, at);

      await quota.refundRequest(orgId, at);

      expect(await quota.countRequest(orgId, 2, at + 1_000)).toMatchObject({
        allowed: true,
        used: 2,
      });
      expect((await quota.countRequest(orgId, 2, at + 1_000)).allowed).toBe(false);
    });
  });

  describe('Class: DynamoDbConcurrencyLeases', () => {
    const leases = () => new DynamoDbConcurrencyLeases(tables.client, tables.tableName);
    const LEASE_MS = 34_000;

    it('grants exactly the limit of 40 simultaneous acquisitions from separate instances', async () => {
      // Prepare
      const orgId = freshOrg();
      const now = DAY_START;

      // Act
      const grants = await Promise.all(
        Array.from({ length: 40 }, () =>
          leases().acquire(orgId, newId('request'), 10, now, now + LEASE_MS),
        ),
      );

      // Assess
      expect(grants.filter((grant) => grant.granted)).toHaveLength(10);
    });

    it('frees a slot on release, and releasing twice changes nothing', async () => {
      const orgId = freshOrg();
      const subject = leases();
      const now = DAY_START;
      const first = await subject.acquire(orgId, newId('request'), 1, now, now + LEASE_MS);
      if (!first.granted) throw new Error('the first lease must be granted');
      expect((await subject.acquire(orgId, newId('request'), 1, now, now + LEASE_MS)).granted).toBe(
        false,
      );

      await subject.release(first.lease);
      await subject.release(first.lease);
      const second = await subject.acquire(orgId, newId('request'), 1, now, now + LEASE_MS);
      const third = await subject.acquire(orgId, newId('request'), 1, now, now + LEASE_MS);

      expect([second.granted, third.granted]).toEqual([true, false]);
    });

    it('stops counting the leases of holders that died once they expire', async () => {
      // Prepare: two holders that never release (a function killed mid-request)
      const orgId = freshOrg();
      const subject = leases();
      const start = DAY_START;
      await subject.acquire(orgId, 'req_dead_one', 2, start, start + LEASE_MS);
      await subject.acquire(orgId, 'req_dead_two', 2, start, start + LEASE_MS);

      // Act
      const beforeExpiry = await subject.acquire(
        orgId,
        newId('request'),
        2,
        start + LEASE_MS - 1,
        start + 2 * LEASE_MS,
      );
      const atExpiry = await Promise.all(
        Array.from({ length: 5 }, () =>
          leases().acquire(orgId, newId('request'), 2, start + LEASE_MS, start + 2 * LEASE_MS),
        ),
      );

      // Assess: exactly the two expired slots are taken again, by two of the five
      expect(beforeExpiry.granted).toBe(false);
      expect(atExpiry.filter((grant) => grant.granted)).toHaveLength(2);
    });

    it('releases a lease already purged as expired without harm', async () => {
      const orgId = freshOrg();
      const subject = leases();
      const late = await subject.acquire(orgId, newId('request'), 1, DAY_START, DAY_START + 10);
      if (!late.granted) throw new Error('the lease must be granted');
      const taker = await subject.acquire(
        orgId,
        newId('request'),
        1,
        DAY_START + 10,
        DAY_START + 99,
      );

      await subject.release(late.lease);

      expect(taker.granted).toBe(true);
      // The taker's slot is still its own.
      const another = await subject.acquire(
        orgId,
        newId('request'),
        1,
        DAY_START + 11,
        DAY_START + 99,
      );
      expect(another.granted).toBe(false);
    });

    /**
     * Against a model: a sequence of acquisitions, releases and clock steps
     * grants a lease exactly when fewer than `limit` unexpired leases are held.
     */
    it('grants exactly when fewer than the limit of unexpired leases are held (property)', async () => {
      const command = fc.oneof(
        fc.record({
          kind: fc.constant('acquire' as const),
          leaseMs: fc.integer({ min: 1, max: 90 }),
        }),
        fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
        fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 1, max: 60 }) }),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 4 }),
          fc.array(command, { minLength: 1, maxLength: 25 }),
          async (limit, commands) => {
            const orgId = freshOrg();
            const subject = leases();
            const held: Array<{ lease: { orgId: string; id: string; expiresAt: number } }> = [];
            let now = DAY_START;
            for (const step of commands) {
              if (step.kind === 'wait') {
                now += step.ms;
              } else if (step.kind === 'release') {
                const released = held.splice(step.pick % Math.max(1, held.length), 1)[0];
                if (released) await subject.release(released.lease);
              } else {
                const unexpired = held.filter(({ lease }) => lease.expiresAt > now).length;
                const grant = await subject.acquire(
                  orgId,
                  newId('request'),
                  limit,
                  now,
                  now + step.leaseMs,
                );
                expect(grant.granted).toBe(unexpired < limit);
                if (grant.granted) held.push({ lease: grant.lease });
              }
            }
          },
        ),
        { numRuns: 40 },
      );
    });
  });
});
