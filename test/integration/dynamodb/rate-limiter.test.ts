import {
  DynamoDbPlanQuota,
  DynamoDbRateLimiter,
} from '../../../layers/core/adapters/dynamodb/rate-limiter';
import { startTestTables, type TestTables } from '../../support/dynalite';

const write = { perMinute: 10, burst: 15 };

describe('Class: DynamoDbRateLimiter (dynalite)', () => {
  let tables: TestTables;
  beforeAll(async () => {
    tables = await startTestTables();
  });
  afterAll(() => tables.end());

  const limiter = () => new DynamoDbRateLimiter(tables.client, tables.tableName);

  it('admits exactly the burst, then refuses with the wait until the next token', async () => {
    // Prepare
    const now = 1_800_000_000_000;
    const subject = limiter();

    // Act
    const states = [];
    for (let i = 0; i < 17; i += 1) states.push(await subject.take('seq#Write', write, now));

    // Assess
    expect(states.filter((state) => state.allowed)).toHaveLength(15);
    expect(states[0]?.remaining).toBe(14);
    expect(states[14]).toMatchObject({ allowed: true, remaining: 0 });
    expect(states[15]).toMatchObject({ allowed: false, retryAfterSeconds: 6 });
  });

  it('admits exactly the bucket capacity under simultaneous requests from separate instances', async () => {
    // Prepare: each request its own limiter (own branch hint), like separate Lambda instances
    const now = 1_800_000_100_000;

    // Act
    const states = await Promise.all(
      Array.from({ length: 40 }, () => limiter().take('concurrent#Write', write, now)),
    );

    // Assess
    expect(states.filter((state) => state.allowed)).toHaveLength(15);
  });

  it('refills at the per-minute rate', async () => {
    const subject = limiter();
    const start = 1_800_000_200_000;
    for (let i = 0; i < 15; i += 1) await subject.take('refill#Write', write, start);
    expect((await subject.take('refill#Write', write, start)).allowed).toBe(false);
    // One interval (6 s) later, exactly one token is back.
    expect((await subject.take('refill#Write', write, start + 6_000)).allowed).toBe(true);
    expect((await subject.take('refill#Write', write, start + 6_000)).allowed).toBe(false);
    // A full minute and a half later the bucket is full again.
    expect((await subject.take('refill#Write', write, start + 96_000)).remaining).toBe(14);
  });

  it('gives a refunded token back', async () => {
    const subject = limiter();
    const now = 1_800_000_300_000;
    for (let i = 0; i < 15; i += 1) await subject.take('refund#Write', write, now);
    await subject.refund('refund#Write', write);
    expect((await subject.take('refund#Write', write, now)).allowed).toBe(true);
  });
});

describe('Class: DynamoDbPlanQuota (dynalite)', () => {
  let tables: TestTables;
  beforeAll(async () => {
    tables = await startTestTables();
  });
  afterAll(() => tables.end());

  it('counts a fixed one-minute window per organization, atomically', async () => {
    // Prepare
    const quota = new DynamoDbPlanQuota(tables.client, tables.tableName);
    const minuteStart = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);

    // Act: 30 simultaneous requests against a limit of 20
    const results = await Promise.all(
      Array.from({ length: 30 }, () => quota.countRequest('org_a', 20, minuteStart + 1_000)),
    );
    const nextMinute = await quota.countRequest('org_a', 20, minuteStart + 60_000);
    const otherOrg = await quota.countRequest('org_b', 20, minuteStart + 1_000);

    // Assess
    expect(results.filter((result) => result.allowed)).toHaveLength(20);
    expect(results.find((result) => !result.allowed)?.resetAt).toBe(minuteStart + 60_000);
    expect(nextMinute).toMatchObject({ allowed: true, used: 1 });
    expect(otherOrg).toMatchObject({ allowed: true, used: 1 });
  });
});
