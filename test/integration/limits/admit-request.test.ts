import { DynamoDbConcurrencyLeases } from '../../../layers/core/adapters/dynamodb/concurrency-leases';
import { DynamoDbDailyUsage } from '../../../layers/core/adapters/dynamodb/daily-usage';
import {
  DynamoDbPlanQuota,
  DynamoDbRateLimiter,
} from '../../../layers/core/adapters/dynamodb/rate-limiter';
import { ALL_AGENTS } from '../../../layers/core/domain/agent-access';
import { RateLimitExceededError } from '../../../layers/core/domain/errors';
import { newId } from '../../../layers/core/domain/ids';
import type { PlanLimits } from '../../../layers/core/domain/plans';
import type { Principal, SessionPrincipal } from '../../../layers/core/domain/principal';
import {
  type Admission,
  type AdmissionRequest,
  admitRequest,
  type RateLimitDependencies,
  releaseAdmission,
} from '../../../layers/core/use-cases/limits/admit-request';
import { startTestTables, type TestTables } from '../../support/dynalite';

/** 10:00 UTC: the day ends 14 hours later. */
const NOW = Date.parse('2027-05-02T10:00:00.000Z');
const MIDNIGHT = Date.parse('2027-05-03T00:00:00.000Z');

const SMALL_PLAN: PlanLimits = {
  requestsPerMinute: 3,
  requestsPerDay: 5,
  tokensPerDay: 100,
  concurrentRequests: 1,
};

/**
 * D16 "a request must pass all": the admission use case over the real
 * DynamoDB adapters on dynalite, with a plan small enough to reach every limit.
 */
describe('Use case: admitRequest (dynalite)', () => {
  let tables: TestTables;
  let deps: RateLimitDependencies;
  beforeAll(async () => {
    tables = await startTestTables();
    deps = {
      rateLimiter: new DynamoDbRateLimiter(tables.client, tables.tableName),
      planQuota: new DynamoDbPlanQuota(tables.client, tables.tableName),
      dailyUsage: new DynamoDbDailyUsage(tables.client, tables.tableName),
      concurrencyLeases: new DynamoDbConcurrencyLeases(tables.client, tables.tableName),
    };
  });
  afterAll(() => tables.end());

  const principal = (): Principal => ({
    kind: 'api_key',
    orgId: newId('organization'),
    keyId: newId('apiKey'),
    scopes: ['Execute'],
    environment: 'test',
  });
  const request = (
    who: Principal,
    overrides: Partial<AdmissionRequest> = {},
  ): AdmissionRequest => ({
    principal: who,
    scope: 'Execute',
    limits: SMALL_PLAN,
    spendsTokens: false,
    requestId: newId('request'),
    now: NOW,
    leaseExpiresAt: NOW + 34_000,
    ...overrides,
  });
  const refusal = async (admission: Promise<unknown>): Promise<RateLimitExceededError> => {
    const error = await admission.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    if (!(error instanceof RateLimitExceededError)) throw new Error(`expected a 429, got ${error}`);
    return error;
  };

  it('admits a request with its scope bucket and a lease that ends with it', async () => {
    const who = principal();

    const admission = await admitRequest(deps, request(who));
    const whileHeld = await refusal(admitRequest(deps, request(who)));
    await releaseAdmission(deps, admission);
    const afterRelease = await admitRequest(deps, request(who));

    expect(admission.bucket).toMatchObject({ scope: 'Execute', state: { remaining: 119 } });
    expect(admission.lease).toMatchObject({ orgId: who.orgId, expiresAt: NOW + 34_000 });
    expect(whileHeld).toMatchObject({ reason: 'concurrency', limit: 1, retryAfterSeconds: 1 });
    expect(whileHeld.resetAt.getTime()).toBe(NOW + 1_000);
    expect(afterRelease.lease.id).not.toBe(admission.lease.id);
  });

  it('charges nothing for a concurrency refusal: not the bucket, the minute or the day', async () => {
    // Prepare: one request holds the only slot
    const who = principal();
    const holder = await admitRequest(deps, request(who));

    // Act: ten refusals, then the slot is free again
    for (let i = 0; i < 10; i += 1) await refusal(admitRequest(deps, request(who)));
    await releaseAdmission(deps, holder);
    const next = await admitRequest(deps, request(who));

    // Assess: the next request is the second of the minute (limit 3) and of the bucket
    expect(next.bucket.state.remaining).toBe(118);
    await releaseAdmission(deps, next);
    await releaseAdmission(deps, await admitRequest(deps, request(who)));
    const fourth = await refusal(admitRequest(deps, request(who)));
    expect(fourth.reason).toBe('plan_rate');
  });

  it('refuses the sixth request of the day with daily_requests until midnight UTC', async () => {
    // Prepare: five requests, in two minutes so the minute's limit of 3 is not what refuses
    const who = principal();
    let fifth: Admission | undefined;
    for (let i = 0; i < 5; i += 1) {
      const at = NOW + (i < 3 ? 0 : 60_000);
      fifth = await admitRequest(deps, request(who, { now: at }));
      await releaseAdmission(deps, fifth);
    }

    // Act
    const refused = await refusal(admitRequest(deps, request(who, { now: NOW + 60_000 })));
    const tomorrow = await admitRequest(deps, request(who, { now: MIDNIGHT }));

    // Assess
    expect(refused).toMatchObject({ reason: 'daily_requests', limit: 5 });
    expect(refused.resetAt.toISOString()).toBe('2027-05-03T00:00:00.000Z');
    expect(refused.retryAfterSeconds).toBe((MIDNIGHT - NOW - 60_000) / 1000);
    // The refusal gave its scope token back: the headers show the bucket as the fifth left it.
    expect(refused.bucket?.state.remaining).toBe(fifth?.bucket.state.remaining);
    expect(tomorrow.lease.orgId).toBe(who.orgId);
  });

  it('refuses a query once the day’s tokens are spent, but not a request that spends none', async () => {
    // Prepare: earlier answers spent the day's 100 tokens
    const who = principal();
    await deps.dailyUsage.addTokens(who.orgId, 100, NOW);

    // Act
    const query = await refusal(admitRequest(deps, request(who, { spendsTokens: true })));
    const read = await admitRequest(deps, request(who, { spendsTokens: false }));

    // Assess
    expect(query).toMatchObject({ reason: 'daily_tokens', limit: 100 });
    expect(query.resetAt.getTime()).toBe(MIDNIGHT);
    expect(read.bucket.state.allowed).toBe(true);
  });

  it('draws a session from its user’s bucket of the scope’s size, in the key bucket’s place (P63)', async () => {
    // Prepare: two sessions of one user, and a key of the same organization
    const orgId = newId('organization');
    const userId = newId('user');
    const session = (): SessionPrincipal => ({
      kind: 'session',
      orgId,
      userId,
      role: 'admin',
      agents: ALL_AGENTS,
      groupIds: [],
      sessionId: newId('session'),
      authTime: Math.floor(NOW / 1000),
    });
    const roomy: PlanLimits = { ...SMALL_PLAN, requestsPerMinute: 100, requestsPerDay: null };
    const key: Principal = { ...principal(), orgId };

    // Act
    const first = await admitRequest(deps, request(session(), { limits: roomy }));
    await releaseAdmission(deps, first);
    const second = await admitRequest(deps, request(session(), { limits: roomy }));
    await releaseAdmission(deps, second);
    const byKey = await admitRequest(deps, request(key, { limits: roomy }));

    // Assess: one bucket for the user whichever session, sized like the key's, the key's apart
    expect(first.bucket.state.remaining).toBe(119);
    expect(second.bucket.state.remaining).toBe(118);
    expect(byKey.bucket.state.remaining).toBe(119);
  });

  it('checks no daily counter for a plan without daily caps (D31 enterprise)', async () => {
    const who = principal();
    const unlimited: PlanLimits = { ...SMALL_PLAN, requestsPerDay: null, tokensPerDay: null };
    await deps.dailyUsage.addTokens(who.orgId, 1_000_000, NOW);
    const counted: string[] = [];
    const dailyUsage = {
      countRequest: (...args: Parameters<typeof deps.dailyUsage.countRequest>) => {
        counted.push(args[0]);
        return deps.dailyUsage.countRequest(...args);
      },
      refundRequest: deps.dailyUsage.refundRequest.bind(deps.dailyUsage),
      addTokens: deps.dailyUsage.addTokens.bind(deps.dailyUsage),
    };

    const admission = await admitRequest(
      { ...deps, dailyUsage },
      request(who, { limits: unlimited, spendsTokens: true }),
    );

    expect(admission.lease.orgId).toBe(who.orgId);
    expect(counted).toEqual([]);
  });

  it('refuses a query on a plan capped by tokens alone once they are spent', async () => {
    const who = principal();
    const tokensOnly: PlanLimits = { ...SMALL_PLAN, requestsPerDay: null, tokensPerDay: 100 };
    await deps.dailyUsage.addTokens(who.orgId, 100, NOW);

    const query = await refusal(
      admitRequest(deps, request(who, { limits: tokensOnly, spendsTokens: true })),
    );

    expect(query).toMatchObject({ reason: 'daily_tokens', limit: 100 });
  });

  it("refuses a key past its scope bucket with scope_rate, the bucket's size and when it is full", async () => {
    // Prepare: a plan roomy enough that only the Write bucket (10 a minute, burst 15) can refuse
    const who = principal();
    const roomy: PlanLimits = {
      requestsPerMinute: 1_000,
      requestsPerDay: null,
      tokensPerDay: null,
      concurrentRequests: 50,
    };
    const write = (now: number) => request(who, { scope: 'Write', limits: roomy, now });
    for (let i = 0; i < 15; i += 1)
      await releaseAdmission(deps, await admitRequest(deps, write(NOW)));

    // Act
    const refused = await refusal(admitRequest(deps, write(NOW)));
    const later = await admitRequest(deps, write(NOW + 6_000));

    // Assess: a token comes back every 6 s; the bucket is full 15 tokens' time on
    expect(refused).toMatchObject({ reason: 'scope_rate', limit: 10, retryAfterSeconds: 6 });
    expect(refused.resetAt.getTime()).toBe(NOW + 15 * 6_000);
    expect(refused.bucket).toMatchObject({
      scope: 'Write',
      state: { allowed: false, remaining: 0 },
    });
    expect(later.bucket.state.remaining).toBe(0);
  });
});
