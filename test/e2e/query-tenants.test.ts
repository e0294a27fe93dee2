import { citationNumbers } from '../support/answers';
import { expectFlatError, expectNestedError } from '../support/error-shapes';
import { createAgent } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import {
  helpCenterPages,
  htmlPage,
  type LoopbackSite,
  startLoopbackSite,
} from '../support/loopback-site';
import { indexWebsite } from '../support/sync';
import { createTenant, type TestKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

/** Five years of months: every query of these tests, whatever the day they run. */
const WIDE_RANGE = 'start_date=2026-01-01&end_date=2030-12-31&granularity=month';

/**
 * Tenant isolation of query, search, interactions, feedback and analytics:
 * organization B, with a key holding every scope, can neither see nor touch
 * anything of organization A, whatever ids it names, and its own numbers
 * never count A's activity (nor A's count B's).
 */
describe('Tenant isolation of queries, interactions and analytics', () => {
  const clock = new TestClock();
  let service: TestService;
  const sites: LoopbackSite[] = [];
  let a: TestKey;
  let b: TestKey;
  let aSource: string;
  let aAgent: string;
  let aInteraction: string;
  let bSource: string;
  let bAgent: string;

  beforeAll(async () => {
    service = await startTestService({ env: { SVC_ALLOW_PRIVATE_URLS: 'true' }, clock });
    [a, b] = await Promise.all([
      createTenant(service, { name: 'Tenant A' }),
      createTenant(service, { name: 'Tenant B' }),
    ]);
    sites.push(
      await startLoopbackSite(helpCenterPages),
      await startLoopbackSite(() => ({
        '/': htmlPage('Tenant B notes', ['Our widgets ship from the northern warehouse.']),
      })),
    );
    aSource = (await indexWebsite(service, a.key, sites[0]!.url('/'))).source.id;
    bSource = (await indexWebsite(service, b.key, sites[1]!.url('/'))).source.id;
    aAgent = (await createAgent(service, a.key, { name: 'A bot', data_source_ids: [aSource] })).id;
    bAgent = (await createAgent(service, b.key, { name: 'B bot', data_source_ids: [bSource] })).id;
    const asked = await api(service.url, '/api/v1/query', {
      method: 'POST',
      key: a.key,
      body: { agent_id: aAgent, query: 'How long is the return window for a widget?' },
    });
    expect(asked.status).toBe(200);
    aInteraction = json(asked).metadata.interaction_id;
  });
  afterAll(async () => {
    await service.end();
    await Promise.all(sites.map((site) => site.close()));
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const call = (key: TestKey, path: string, method = 'GET', body?: unknown) =>
    api(service.url, path, { method, key: key.key, ...(body !== undefined ? { body } : {}) });
  const interactionsOf = async (key: TestKey, query = '') => {
    const response = await call(key, `/api/v1/interactions?limit=200${query}`);
    expect(response.status).toBe(200);
    return json(response);
  };
  const analyticsOf = async (key: TestKey, query = '') => {
    const response = await call(key, `/api/v1/analytics?${WIDE_RANGE}${query}`);
    expect(response.status).toBe(200);
    return json(response).metrics;
  };

  it("cannot query A's agent: 404, streamed or not, v1 or legacy", async () => {
    const body = { agent_id: aAgent, query: 'How long is the return window?' };

    expectNestedError(await call(b, '/api/v1/query', 'POST', body), 404, 'not_found');
    const streamed = await call(b, '/api/v1/query', 'POST', { ...body, stream: true });
    expectNestedError(streamed, 404, 'not_found');
    expectFlatError(
      await call(b, '/api/chat', 'POST', { agentId: aAgent, query: body.query }),
      404,
    );
  });

  it("cannot cite A's chunks, even from an agent of its own", async () => {
    const response = await call(b, '/api/v1/query', 'POST', {
      agent_id: bAgent,
      query: 'How long is the return window for a full refund?',
    });

    expect(response.status).toBe(200);
    const body = json(response);
    expect(body.response).not.toContain('30 days');
    for (const source of body.sources) {
      expect(source.document_url.startsWith(sites[1]!.origin)).toBe(true);
    }
    // Nor can it point an agent at A's data source.
    const borrowing = await call(b, '/api/v1/agents', 'POST', {
      name: 'Borrower',
      data_source_ids: [aSource],
    });
    expectNestedError(borrowing, 400, 'invalid_request');
  });

  it("does not continue A's conversation when naming A's session id", async () => {
    const aFirst = await call(a, '/api/v1/interactions?limit=1');
    const aSession = json(aFirst).interactions[0].session_id;
    // A's session asked about returning a widget; B's own source mentions widgets.
    // A's own session goes on. (P175: the offline answerer cites only sentences covering enough
    // of the question, so the follow-up names its subject rather than "Tell me more.".)
    const inA = json(
      await call(a, '/api/v1/query', 'POST', {
        agent_id: aAgent,
        query: 'Tell me more about returning a widget.',
        session_id: aSession,
      }),
    );
    expect(inA.metadata.session_id).toBe(aSession);
    expect(inA.response).toMatch(/return/i);

    const response = await call(b, '/api/v1/query', 'POST', {
      agent_id: bAgent,
      query: 'Tell me more.',
      session_id: aSession,
    });

    expect(response.status).toBe(200);
    const body = json(response);
    expect(citationNumbers(body.response)).toEqual([]);
    expect(body.response).not.toMatch(/widget|return/i);
  });

  it("finds none of A's chunks in a search, even naming A's data sources", async () => {
    const search = (body: Record<string, unknown>) =>
      call(b, '/api/v1/semantic-search', 'POST', {
        query: 'return a widget within 30 days for a full refund',
        org_id: b.orgId,
        top_k: 100,
        ...body,
      });

    const own = json(await search({}));
    const named = await search({ data_source_ids: [aSource] });
    const mixed = json(await search({ data_source_ids: [aSource, bSource] }));
    const asA = await search({ org_id: a.orgId });
    const legacyAsA = await call(b, '/api/semantic-search', 'POST', {
      query: 'refund',
      orgId: a.orgId,
    });

    const foreign = (chunks: Array<Record<string, any>>) =>
      chunks.filter((chunk) => chunk.data_source_id !== bSource);
    expect(foreign(own.chunks)).toEqual([]);
    expect(named.status).toBe(200);
    expect(json(named)).toMatchObject({ chunks: [], metadata: { total_chunks_searched: 0 } });
    expect(foreign(mixed.chunks)).toEqual([]);
    expect(mixed.metadata.total_chunks_searched).toBe(own.metadata.total_chunks_searched);
    expectNestedError(asA, 403, 'forbidden');
    expectFlatError(legacyAsA, 403);
  });

  it("does not list A's interactions, under any filter", async () => {
    const all = await interactionsOf(b);
    const byAgent = await interactionsOf(b, `&agent_id=${aAgent}`);
    const legacy = json(await call(b, `/api/interactions?agentId=${aAgent}`));

    const ids = (body: Record<string, any>) =>
      (body.interactions as Array<Record<string, any>>).map((item) => item.id);
    expect(ids(all)).not.toContain(aInteraction);
    expect(all.interactions.every((item: Record<string, any>) => item.agent_id === bAgent)).toBe(
      true,
    );
    expect(byAgent).toMatchObject({ interactions: [], total: 0 });
    expect(legacy).toMatchObject({ interactions: [], total: 0 });
    expect(ids(await interactionsOf(a))).toContain(aInteraction);
  });

  it("cannot give feedback on A's interactions: 404, and A's stays unchanged", async () => {
    const v1 = await call(b, `/api/v1/interactions/${aInteraction}/feedback`, 'POST', {
      feedback: 'negative',
    });
    const legacy = await call(b, '/api/interactions/feedback', 'POST', {
      interactionId: aInteraction,
      feedback: 'negative',
    });

    expectNestedError(v1, 404, 'not_found');
    expectFlatError(legacy, 404);
    const mine = (await interactionsOf(a)).interactions.find(
      (item: Record<string, any>) => item.id === aInteraction,
    );
    expect(mine).toMatchObject({ feedback: null, feedback_comment: null });
    expect((await analyticsOf(a)).accuracy_rate).toBeNull();
  });

  it("never counts A's queries in B's analytics, nor B's in A's", async () => {
    const before = { a: await analyticsOf(a), b: await analyticsOf(b) };

    for (let i = 0; i < 2; i += 1) {
      const response = await call(a, '/api/v1/query', 'POST', {
        agent_id: aAgent,
        query: 'Is express shipping available?',
      });
      expect(response.status).toBe(200);
    }
    const bAsked = await call(b, '/api/v1/query', 'POST', {
      agent_id: bAgent,
      query: 'Where do widgets ship from?',
    });
    expect(bAsked.status).toBe(200);
    const bFeedback = await call(
      b,
      `/api/v1/interactions/${json(bAsked).metadata.interaction_id}/feedback`,
      'POST',
      { feedback: 'positive' },
    );
    expect(bFeedback.status).toBe(200);

    const after = { a: await analyticsOf(a), b: await analyticsOf(b) };
    expect(after.a.total_queries).toBe(before.a.total_queries + 2);
    expect(after.a.accuracy_rate).toBeNull();
    expect(after.b.total_queries).toBe(before.b.total_queries + 1);
    expect(after.b.accuracy_rate).toBe(1);
    const bOfA = await analyticsOf(b, `&agent_id=${aAgent}`);
    expect(bOfA).toMatchObject({ total_queries: 0, unique_users: 0 });
    const day = (offset: number) =>
      new Date(clock.now().getTime() + offset * 86_400_000).toISOString().slice(0, 10);
    const dashboard = (key: TestKey, agentId: string) =>
      call(
        key,
        `/api/analytics/charts/dashboard?startDate=${day(-1)}&endDate=${day(1)}&agentId=${agentId}`,
      );
    expect(json(await dashboard(b, aAgent)).metrics.total_queries).toBe(0);
    expect(json(await dashboard(a, aAgent)).metrics.total_queries).toBe(after.a.total_queries);
  });
});
