import type { ServerResponse } from 'node:http';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { TEST_EVENT_TYPE } from '../../layers/core/domain/events';
import { newId } from '../../layers/core/domain/ids';
import { PLAN_LIMITS } from '../../layers/core/domain/plans';
import { serviceMetrics } from '../../layers/core/observability/metrics';
import { API_GATEWAY_TIMEOUT_MS } from '../../lib/local/apigw-event';
import { type LocalReceiver, startHttpsReceiver } from '../integration/net/local-receivers';
import { expectFlatError, expectNestedError } from '../support/error-shapes';
import { createAgent } from '../support/fixtures';
import { type ApiResponse, api, json } from '../support/http-client';
import { unknownId } from '../support/ids';
import { startTestService, type TestService } from '../support/local-service';
import { pastConcurrency, refusalReason } from '../support/rate-limits';
import { parseEventStream } from '../support/sse';
import { createTenant, type TestKey } from '../support/tenants';
import { TestClock } from '../support/test-clock';
import { createWebhook, LOCAL_RECEIVERS_ENV } from '../support/webhooks';

const FREE = PLAN_LIMITS.free;
const DAY_MS = 86_400_000;

/** The local runtime's lease: the deadline its Lambda context gives (API Gateway's 29 s), plus 5 s. */
const LOCAL_LEASE_MS = API_GATEWAY_TIMEOUT_MS + 5_000;

const header = (response: ApiResponse, name: string) => response.headers.get(name);

/**
 * D16's plan limits beyond requests/minute, over HTTP against the local
 * runtime: requests/day and tokens/day per UTC day (P56, P57), and concurrent
 * requests held by leases (P58). The clock is frozen at 01:00 UTC of a day
 * of its own for each test, so nothing refills or resets unless a test says so.
 */
describe('Plan limits (D16, D31)', () => {
  const clock = new TestClock();
  let service: TestService;
  let receiver: LocalReceiver;
  /** Test events the receiver holds unanswered, as a slow receiver would. */
  const held: ServerResponse[] = [];
  let holding = true;

  const answerHeld = () => {
    for (const res of held.splice(0)) res.writeHead(200).end();
  };

  beforeAll(async () => {
    [service, receiver] = await Promise.all([
      startTestService({ env: { ...LOCAL_RECEIVERS_ENV }, clock }),
      startHttpsReceiver('localhost', (request, res) => {
        if (holding && request.body.toString('utf8').includes(`"${TEST_EVENT_TYPE}"`)) {
          held.push(res);
        } else {
          res.writeHead(200).end();
        }
      }),
    ]);
  });
  afterAll(async () => {
    holding = false;
    answerHeld();
    clock.resume();
    await service.end();
    await receiver.close();
  });
  beforeEach(() => {
    clock.resume();
    const now = clock.now().getTime();
    clock.advanceTo(new Date(Math.floor(now / DAY_MS) * DAY_MS + DAY_MS + 3_600_000));
    clock.freeze();
    holding = true;
  });

  const nextMidnight = () => Math.floor(clock.now().getTime() / DAY_MS) * DAY_MS + DAY_MS;
  const secondsToMidnight = () => Math.ceil((nextMidnight() - clock.now().getTime()) / 1000);

  const listAgents = (key: string, path = '/api/v1/agents') => api(service.url, path, { key });
  const ask = (key: string, body: Record<string, unknown>, path = '/api/v1/query') =>
    api(service.url, path, { method: 'POST', key, body });

  /** Waits (real time) until `done()`, for at most 5 s. */
  async function until(done: () => boolean): Promise<void> {
    for (let waited = 0; !done(); waited += 10) {
      if (waited > 5_000) throw new Error('gave up waiting');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  /** Waits until the receiver holds `count` test events. */
  const untilHeld = (count: number) => until(() => held.length >= count);

  describe('requests per day (P56)', () => {
    it('admits exactly the requests left today among simultaneous ones, then refuses them until 00:00 UTC', async () => {
      // Prepare: a free organization that has made 990 of its 1,000 requests today
      const tenant = await createTenant(service, { plan: 'free', scopes: ['Read'] });
      const usage = service.runtime.dependencies.dailyUsage;
      const caps = { requestsPerDay: FREE.requestsPerDay, tokensPerDay: null };
      for (let made = 0; made < 990; made += 1) {
        await usage.countRequest(tenant.orgId, caps, clock.now().getTime());
      }

      // Act: 18 at once (under the minute's 20; the concurrency limit of 2 makes most wait their turn)
      const responses = await Promise.all(
        Array.from({ length: 18 }, () => pastConcurrency(() => listAgents(tenant.key))),
      );
      const legacy = await listAgents(tenant.key, '/api/data-specs');
      const lastMidnight = nextMidnight();
      clock.advanceTo(new Date(lastMidnight));
      const tomorrow = await listAgents(tenant.key);

      // Assess
      expect(responses.filter((response) => response.status === 200)).toHaveLength(10);
      const refused = responses.filter((response) => response.status === 429);
      expect(refused.map(refusalReason)).toEqual(Array(8).fill('daily_requests'));
      const error = expectNestedError(refused[0] as ApiResponse, 429, 'rate_limit_exceeded');
      // The clock was frozen at 01:00 UTC: 23 hours to go.
      expect(error.details).toEqual({
        reason: 'daily_requests',
        limit: 1_000,
        reset_at: new Date(lastMidnight).toISOString(),
        retry_after: 23 * 3_600,
      });
      expect(header(refused[0] as ApiResponse, 'retry-after')).toBe(String(23 * 3_600));
      // The headers keep describing the scope bucket (D16).
      expect(header(refused[0] as ApiResponse, 'x-ratelimit-limit')).toBe('200');
      // A legacy path answers in the flat shape, with the reason (D5).
      expect(expectFlatError(legacy, 429)).toMatchObject({
        error: 'Rate limit exceeded',
        limit: 1_000,
        reset_at: new Date(lastMidnight).toISOString(),
        reason: 'daily_requests',
      });
      expect(tomorrow.status).toBe(200);
    });
  });

  describe('tokens per day (P57)', () => {
    /** A free organization with an agent that has no sources (its answer says so; it still spends tokens). */
    async function tenantWithAgent(): Promise<{ tenant: TestKey; agentId: string }> {
      const tenant = await createTenant(service, { plan: 'free', scopes: ['Admin'] });
      const agent = await createAgent(service, tenant.key, { name: 'Quiet', data_source_ids: [] });
      return { tenant, agentId: agent.id };
    }

    it('lets answers that started under the cap finish and settles them; the next query is refused', async () => {
      // Prepare: one token left today
      const { tenant, agentId } = await tenantWithAgent();
      const tokensPerDay = FREE.tokensPerDay ?? 0;
      await service.runtime.dependencies.dailyUsage.addTokens(
        tenant.orgId,
        tokensPerDay - 1,
        clock.now().getTime(),
      );

      // Act: two queries at once (the free plan's concurrency), one of them streamed
      const [plain, streamed] = await Promise.all([
        ask(tenant.key, { agent_id: agentId, query: 'Anything?' }),
        ask(tenant.key, { agent_id: agentId, query: 'Anything?', stream: true }),
      ]);
      const after = await Promise.all(
        Array.from({ length: 4 }, () => ask(tenant.key, { agent_id: agentId, query: 'More?' })),
      );
      const legacy = await ask(tenant.key, { agentId, query: 'More?' }, '/api/chat');
      const read = await listAgents(tenant.key);

      // Assess: both answers complete, with their tokens
      expect(plain.status).toBe(200);
      expect(json(plain).metadata.tokens_output).toBeGreaterThan(0);
      expect(streamed.status).toBe(200);
      expect(parseEventStream(streamed.text).map((event) => event.event)).toContain('done');
      // They spent more than the token that was left, so every later query is refused.
      for (const response of after) {
        const error = expectNestedError(response, 429, 'rate_limit_exceeded');
        expect(error.details).toEqual({
          reason: 'daily_tokens',
          limit: tokensPerDay,
          reset_at: new Date(nextMidnight()).toISOString(),
          retry_after: secondsToMidnight(),
        });
        expect(header(response, 'retry-after')).toBe(String(secondsToMidnight()));
      }
      expect(expectFlatError(legacy, 429)).toMatchObject({ reason: 'daily_tokens' });
      // Only requests that spend tokens are held to them.
      expect(read.status).toBe(200);
    });

    it('admits queries again from 00:00 UTC', async () => {
      const { tenant, agentId } = await tenantWithAgent();
      await service.runtime.dependencies.dailyUsage.addTokens(
        tenant.orgId,
        FREE.tokensPerDay ?? 0,
        clock.now().getTime(),
      );
      expect(refusalReason(await ask(tenant.key, { agent_id: agentId, query: 'Now?' }))).toBe(
        'daily_tokens',
      );

      clock.advanceTo(new Date(nextMidnight()));
      const tomorrow = await ask(tenant.key, { agent_id: agentId, query: 'Now?' });

      expect(tomorrow.status).toBe(200);
    });
  });

  it('counts each refusal in the RateLimitRefusals metric by its reason', async () => {
    // Prepare: the handlers run in this process, so their metrics can be watched
    const reasons: string[] = [];
    const refusalMetric = {
      addDimension: (name: string, value: string) => {
        if (name === 'reason') reasons.push(value);
      },
      addMetric: jest.fn(),
    };
    const singleMetric = jest
      .spyOn(serviceMetrics(), 'singleMetric')
      .mockReturnValue(refusalMetric as unknown as ReturnType<Metrics['singleMetric']>);
    const tenant = await createTenant(service, { plan: 'free', scopes: ['Admin'] });
    const agent = await createAgent(service, tenant.key, { name: 'Quiet', data_source_ids: [] });
    await service.runtime.dependencies.dailyUsage.addTokens(
      tenant.orgId,
      FREE.tokensPerDay ?? 0,
      clock.now().getTime(),
    );
    const now = clock.now().getTime();
    for (let i = 0; i < FREE.concurrentRequests; i += 1) {
      await service.runtime.dependencies.concurrencyLeases.acquire(
        tenant.orgId,
        newId('request'),
        FREE.concurrentRequests,
        now,
        now + LOCAL_LEASE_MS,
      );
    }

    // Act
    try {
      await ask(tenant.key, { agent_id: agent.id, query: 'Tokens?' });
      await listAgents(tenant.key);
    } finally {
      singleMetric.mockRestore();
    }

    // Assess
    expect(reasons).toEqual(['daily_tokens', 'concurrency']);
    expect(refusalMetric.addMetric).toHaveBeenCalledWith('RateLimitRefusals', 'Count', 1);
  });

  describe('concurrent requests (P58)', () => {
    /** A free organization (2 concurrent requests) with a webhook whose test events the receiver holds. */
    async function tenantWithSlowWebhook(): Promise<{
      tenant: TestKey;
      sendTest: () => Promise<ApiResponse>;
    }> {
      const tenant = await createTenant(service, { plan: 'free', scopes: ['Admin'] });
      const webhook = await createWebhook(service, tenant.key, {
        url: receiver.url('/slow'),
        events: ['agent.created'],
      });
      return {
        tenant,
        sendTest: () =>
          api(service.url, `/api/v1/webhooks/${webhook.id}/test`, {
            method: 'POST',
            key: tenant.key,
          }),
      };
    }

    it('admits exactly 2 of 6 simultaneous requests while they run; the others get 429 concurrency at once', async () => {
      // Prepare: requests of every kind first, which must each give their slot back at the end
      const { tenant, sendTest } = await tenantWithSlowWebhook();
      const agent = await createAgent(service, tenant.key, { name: 'Quiet', data_source_ids: [] });
      const earlier = [
        await ask(tenant.key, { agent_id: agent.id, query: 'Plain?' }),
        await ask(tenant.key, { agent_id: agent.id, query: 'Streamed?', stream: true }),
        await ask(tenant.key, { agentId: agent.id, query: 'Legacy?', stream: true }, '/api/chat'),
        await ask(tenant.key, { agent_id: unknownId('agt'), query: 'Unknown agent?' }),
        await ask(tenant.key, { agent_id: agent.id }),
        await api(service.url, '/api/v1/agents', {
          method: 'POST',
          key: tenant.key,
          rawBody: '{',
          headers: { 'content-type': 'application/json' },
        }),
      ];
      expect(earlier.map((response) => response.status)).toEqual([200, 200, 200, 404, 400, 400]);

      // Act: six at once; the receiver holds the test events of those admitted
      const answered: ApiResponse[] = [];
      const requests = Array.from({ length: 6 }, () =>
        sendTest().then((response) => {
          answered.push(response);
          return response;
        }),
      );
      await untilHeld(2);
      await until(() => answered.length >= 4);
      // No wait for a fifth refusal that should not come: the counts below would show it
      // (six responses, two of them admitted and delivered).
      const refusedWhileRunning = [...answered];
      answerHeld();
      const responses = await Promise.all(requests);

      // Assess: four refused while two ran, and only those four
      expect(held).toHaveLength(0);
      expect(refusedWhileRunning).toHaveLength(4);
      for (const response of refusedWhileRunning) {
        const error = expectNestedError(response, 429, 'rate_limit_exceeded');
        expect(error.details).toEqual({
          reason: 'concurrency',
          limit: 2,
          reset_at: new Date(clock.now().getTime() + 1_000).toISOString(),
          retry_after: 1,
        });
        expect(header(response, 'retry-after')).toBe('1');
        // The headers describe the Admin bucket the request drew from (D16).
        expect(header(response, 'x-ratelimit-limit')).toBe('50');
      }
      const admitted = responses.filter((response) => response.status === 200);
      expect(admitted).toHaveLength(2);
      expect(admitted.map((response) => json(response).delivered)).toEqual([true, true]);
      // Both slots are free again.
      expect(
        (await Promise.all([listAgents(tenant.key), listAgents(tenant.key)])).map((r) => r.status),
      ).toEqual([200, 200]);
    });

    it('frees the slots of function instances that died holding them once their leases expire', async () => {
      // Prepare: two instances took the organization's two slots, then were killed (no release, ever)
      const tenant = await createTenant(service, { plan: 'free', scopes: ['Read'] });
      const now = clock.now().getTime();
      for (let i = 0; i < 2; i += 1) {
        const grant = await service.runtime.dependencies.concurrencyLeases.acquire(
          tenant.orgId,
          newId('request'),
          FREE.concurrentRequests,
          now,
          now + LOCAL_LEASE_MS,
        );
        expect(grant.granted).toBe(true);
      }

      // Act
      const whileHeld = await listAgents(tenant.key);
      clock.advance(LOCAL_LEASE_MS - 1);
      const justBefore = await listAgents(tenant.key);
      clock.advance(1);
      const atExpiry = await Promise.all([listAgents(tenant.key), listAgents(tenant.key)]);

      // Assess
      expect(refusalReason(whileHeld)).toBe('concurrency');
      expect(refusalReason(justBefore)).toBe('concurrency');
      expect(atExpiry.map((response) => response.status)).toEqual([200, 200]);
    });

    it("ends a hung request's lease at its function's deadline, as if Lambda had killed it there", async () => {
      // Prepare: two requests hang (their receiver never answers), holding both slots
      const { tenant, sendTest } = await tenantWithSlowWebhook();
      const hung = [sendTest(), sendTest()];
      await untilHeld(2);
      expect(refusalReason(await listAgents(tenant.key))).toBe('concurrency');

      // Act: past the deadline their context gave them, plus the margin
      clock.advance(LOCAL_LEASE_MS + 1);
      const afterDeadline = await listAgents(tenant.key);
      answerHeld();
      await Promise.all(hung);

      // Assess
      expect(afterDeadline.status).toBe(200);
    });
  });
});
