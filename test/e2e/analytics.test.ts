import { citationNumbers } from '../support/answers';
import { expectFlatError, expectNestedError, fieldPaths } from '../support/error-shapes';
import { createAgent } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { helpCenterPages, type LoopbackSite, startLoopbackSite } from '../support/loopback-site';
import { indexWebsite } from '../support/sync';
import { createKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

interface Asked {
  readonly agent: 'helpful' | 'empty';
  readonly at: string;
  readonly session: string;
  readonly metadata: Record<string, any>;
  readonly cites: boolean;
}

/** `YYYY-MM-DDT00:00:00.000Z` for a day, or an hour `HH` of it. */
const iso = (day: string, hour = 0) => `${day}T${String(hour).padStart(2, '0')}:00:00.000Z`;

/**
 * The nearest-rank quantile of `latencies`; the service reads it from a
 * histogram whose buckets are ≤ 25 % wide (10 ms the first), so it reports
 * the bucket's upper bound: never less, and at most a bucket more.
 */
function expectQuantile(reported: number, latencies: readonly number[], q: number): void {
  const sorted = [...latencies].sort((a, b) => a - b);
  const exact = sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1] ?? 0;
  expect(reported).toBeGreaterThanOrEqual(exact);
  expect(reported).toBeLessThanOrEqual(Math.max(10, Math.ceil(exact * 1.25) + 1));
}

/**
 * Analytics (spec; D3, D34): six questions placed in chosen hours, days,
 * weeks and months by jumping the clock, then the metrics and time series
 * for each granularity checked against what the queries answered.
 */
describe('Analytics', () => {
  const clock = new TestClock();
  let service: TestService;
  let site: LoopbackSite;
  const agents: Record<Asked['agent'], string> = { helpful: '', empty: '' };
  const asked: Asked[] = [];

  /** Asks at `at`, continuing `session` if it was used before. */
  const ask = async (at: string, agent: Asked['agent'], session: string, query: string) => {
    clock.advanceTo(at);
    const earlier = asked.find((item) => item.session === session);
    const response = await api(service.url, '/api/v1/query', {
      method: 'POST',
      key: service.adminKey,
      body: {
        agent_id: agents[agent],
        query,
        ...(earlier ? { session_id: earlier.metadata.session_id } : {}),
      },
    });
    expect(response.status).toBe(200);
    const body = json(response);
    asked.push({
      agent,
      at,
      session,
      metadata: body.metadata,
      cites: citationNumbers(body.response).length > 0,
    });
    return body.metadata.interaction_id as string;
  };
  const feedback = async (id: string, value: 'positive' | 'negative') => {
    const response = await api(service.url, `/api/v1/interactions/${id}/feedback`, {
      method: 'POST',
      key: service.adminKey,
      body: { feedback: value },
    });
    expect(response.status).toBe(200);
  };

  beforeAll(async () => {
    [service, site] = await Promise.all([
      startTestService({ env: { SVC_ALLOW_PRIVATE_URLS: 'true' }, clock }),
      startLoopbackSite(helpCenterPages),
    ]);
    const { source } = await indexWebsite(service, service.adminKey, site.url('/'));
    agents.helpful = (
      await createAgent(service, service.adminKey, {
        name: 'Helpful',
        data_source_ids: [source.id],
      })
    ).id;
    // No sources: its answers cite nothing (D34 citation_rate).
    agents.empty = (
      await createAgent(service, service.adminKey, { name: 'Empty', data_source_ids: [] })
    ).id;

    // 2027-03-01 is a Monday (weeks start on Monday, ISO 8601).
    const q1 = await ask(
      '2027-03-01T10:15:00.000Z',
      'helpful',
      's1',
      'How long is the return window?',
    );
    await ask('2027-03-01T10:40:00.000Z', 'helpful', 's1', 'Can gift cards be refunded?');
    const q3 = await ask(
      '2027-03-01T13:05:00.000Z',
      'helpful',
      's3',
      'What does the warranty cover?',
    );
    await ask('2027-03-03T09:00:00.000Z', 'empty', 's4', 'How fast is express shipping?');
    const q5 = await ask(
      '2027-03-09T12:00:00.000Z',
      'helpful',
      's5',
      'How fast is express shipping?',
    );
    await ask('2027-04-02T08:00:00.000Z', 'helpful', 's6', 'Is the warranty two years long?');
    clock.advanceTo('2027-05-01T00:00:00.000Z');
    await feedback(q1, 'positive');
    await feedback(q3, 'negative');
    await feedback(q5, 'positive');
    await feedback(q5, 'negative'); // the latest wins
  });
  afterAll(async () => {
    await service.end();
    await site.close();
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const analytics = (query: string, key = service.adminKey, path = '/api/v1/analytics') =>
    api(service.url, `${path}?${query}`, { key });
  const analyticsOf = async (query: string) => {
    const response = await analytics(query);
    expect(response.status).toBe(200);
    return json(response);
  };
  /** The queries asked in [from, to). */
  const askedIn = (from: string, to: string, agent?: Asked['agent']) =>
    asked.filter((item) => item.at >= from && item.at < to && (!agent || item.agent === agent));

  /**
   * Each bucket's queries and p50/p95 latencies, against the queries asked
   * in it and in the range [`from`, `to`) (D3: `to` is the day after end_date).
   */
  function expectSeries(
    series: Array<Record<string, any>>,
    starts: readonly string[],
    [from, to]: readonly [string, string],
    agent?: Asked['agent'],
  ): void {
    expect(series.map((point) => point.timestamp)).toEqual(starts);
    series.forEach((point, index) => {
      expect(Object.keys(point).sort()).toEqual([
        'latency_p50',
        'latency_p95',
        'queries',
        'timestamp',
      ]);
      const start = point.timestamp > from ? point.timestamp : from;
      const end = starts[index + 1] ?? to;
      const inside = askedIn(start, end, agent).map((item) => item.metadata.latency_ms);
      expect(point.queries).toBe(inside.length);
      if (inside.length === 0) {
        // Empty buckets are listed too, with zeros.
        expect(point).toMatchObject({ latency_p50: 0, latency_p95: 0 });
      } else {
        expectQuantile(point.latency_p50, inside, 0.5);
        expectQuantile(point.latency_p95, inside, 0.95);
        expect(point.latency_p95).toBeGreaterThanOrEqual(point.latency_p50);
      }
    });
  }

  it('computes the D34 metrics over the range', async () => {
    const { metrics } = await analyticsOf('start_date=2027-03-01&end_date=2027-04-30');

    const latencies = asked.map((item) => item.metadata.latency_ms as number);
    const sum = (field: string) => asked.reduce((total, item) => total + item.metadata[field], 0);
    expect(metrics).toEqual({
      total_queries: 6,
      unique_users: 1, // one API key asked all six, in five conversations: one program
      avg_latency_ms: Math.round(latencies.reduce((a, b) => a + b, 0) / latencies.length),
      accuracy_rate: 1 / 3, // q1 positive; q3 and q5 (which changed its mind) negative
      citation_rate: asked.filter((item) => item.cites).length / 6,
      avg_groundedness: expect.any(Number),
      total_cost_usd: expect.any(Number),
      // P131: none of these answers was billed to an organization's own model key.
      model_key_cost_usd: 0,
      model_key_queries: 0,
      total_tokens_input: sum('tokens_input'),
      total_tokens_output: sum('tokens_output'),
    });
    expect(metrics.citation_rate).toBeCloseTo(5 / 6, 10); // the empty agent cites nothing
    // The mean groundedness of the answers that cite a source (the empty agent's is left out).
    const grounded = asked.filter((item) => item.cites);
    const meanGroundedness =
      grounded.reduce((total, item) => total + item.metadata.groundedness, 0) / grounded.length;
    expect(metrics.avg_groundedness).toBeCloseTo(meanGroundedness, 3);
    expect(metrics.total_cost_usd).toBeCloseTo(sum('cost_usd'), 6);
    for (const field of ['total_queries', 'unique_users', 'avg_latency_ms']) {
      expect(Number.isInteger(metrics[field])).toBe(true);
    }
  });

  it('gives an hourly series over one day, every hour listed', async () => {
    const { metrics, time_series } = await analyticsOf(
      'start_date=2027-03-01&end_date=2027-03-01&granularity=hour',
    );

    const hours = Array.from({ length: 24 }, (_, hour) => iso('2027-03-01', hour));
    expectSeries(time_series, hours, [iso('2027-03-01'), iso('2027-03-02')]);
    expect(time_series.map((point: Record<string, any>) => point.queries)).toEqual(
      hours.map((_, hour) => ({ 10: 2, 13: 1 })[hour] ?? 0),
    );
    expect(metrics).toMatchObject({ total_queries: 3, unique_users: 1, accuracy_rate: 0.5 });
  });

  it('gives a daily series (the default granularity), inclusive of the end date', async () => {
    const daily = await analyticsOf('start_date=2027-03-01&end_date=2027-03-10&granularity=day');
    const byDefault = await analyticsOf('start_date=2027-03-01&end_date=2027-03-10');

    const days = Array.from({ length: 10 }, (_, day) =>
      iso(`2027-03-${String(day + 1).padStart(2, '0')}`),
    );
    expectSeries(daily.time_series, days, [iso('2027-03-01'), iso('2027-03-11')]);
    expect(daily.time_series.map((point: Record<string, any>) => point.queries)).toEqual([
      3, 0, 1, 0, 0, 0, 0, 0, 1, 0,
    ]);
    expect(byDefault).toEqual(daily);
  });

  it('gives weekly buckets starting on Mondays', async () => {
    const { time_series, metrics } = await analyticsOf(
      'start_date=2027-03-01&end_date=2027-03-14&granularity=week',
    );

    expectSeries(
      time_series,
      [iso('2027-03-01'), iso('2027-03-08')],
      [iso('2027-03-01'), iso('2027-03-15')],
    );
    expect(time_series.map((point: Record<string, any>) => point.queries)).toEqual([4, 1]);
    expect(metrics.total_queries).toBe(5);
    // A range starting on a Wednesday: its first bucket is labelled by its Monday, and
    // counts only what the range holds.
    const midweek = await analyticsOf('start_date=2027-03-03&end_date=2027-03-09&granularity=week');
    expectSeries(
      midweek.time_series,
      [iso('2027-03-01'), iso('2027-03-08')],
      [iso('2027-03-03'), iso('2027-03-10')],
    );
    expect(midweek.time_series.map((point: Record<string, any>) => point.queries)).toEqual([1, 1]);
  });

  it('gives monthly buckets, empty months included', async () => {
    const { time_series } = await analyticsOf(
      'start_date=2027-02-01&end_date=2027-05-31&granularity=month',
    );

    expectSeries(
      time_series,
      ['2027-02-01', '2027-03-01', '2027-04-01', '2027-05-01'].map((day) => iso(day)),
      [iso('2027-02-01'), iso('2027-06-01')],
    );
    expect(time_series.map((point: Record<string, any>) => point.queries)).toEqual([0, 5, 1, 0]);
  });

  it('reports an empty range with zeros and no rates', async () => {
    const { metrics, time_series } = await analyticsOf('start_date=2027-03-02&end_date=2027-03-02');

    expect(metrics).toEqual({
      total_queries: 0,
      unique_users: 0,
      avg_latency_ms: 0,
      accuracy_rate: null,
      citation_rate: null,
      avg_groundedness: null,
      total_cost_usd: 0,
      model_key_cost_usd: 0,
      model_key_queries: 0,
      total_tokens_input: 0,
      total_tokens_output: 0,
    });
    expect(time_series).toEqual([
      { timestamp: iso('2027-03-02'), queries: 0, latency_p50: 0, latency_p95: 0 },
    ]);
  });

  it('keeps to one agent with agent_id', async () => {
    const { metrics, time_series } = await analyticsOf(
      `start_date=2027-03-01&end_date=2027-03-07&agent_id=${agents.empty}`,
    );

    expect(metrics).toMatchObject({
      total_queries: 1,
      unique_users: 1,
      accuracy_rate: null,
      citation_rate: 0,
      // Its answers cite nothing: no answer to average.
      avg_groundedness: null,
    });
    expectSeries(
      time_series,
      Array.from({ length: 7 }, (_, day) => iso(`2027-03-0${day + 1}`)),
      [iso('2027-03-01'), iso('2027-03-08')],
      'empty',
    );
  });

  it.each([
    ['no dates', '', ['start_date', 'end_date']],
    ['no end date', 'start_date=2027-03-01', ['end_date']],
    ['no start date', 'end_date=2027-03-01', ['start_date']],
    ['an impossible date', 'start_date=2027-02-30&end_date=2027-03-01', ['start_date']],
    ['a start after the end', 'start_date=2027-03-02&end_date=2027-03-01', ['start_date']],
    [
      'an unknown granularity',
      'start_date=2027-03-01&end_date=2027-03-01&granularity=minute',
      ['granularity'],
    ],
    ['a malformed agent id', 'start_date=2027-03-01&end_date=2027-03-01&agent_id=x', ['agent_id']],
    ['too many hours', 'start_date=2027-01-01&end_date=2027-03-01&granularity=hour', ['end_date']],
  ])('refuses %s with 400 naming the parameters', async (_name, query, fields) => {
    const response = await analytics(query);

    expect(fieldPaths(expectNestedError(response, 400, 'invalid_request')).sort()).toEqual(
      [...fields].sort(),
    );
  });

  it('needs the Admin scope (D9)', async () => {
    const others = await createKey(service, service.orgId, {
      scopes: ['Read', 'Write', 'Execute'],
    });

    const refused = await analytics('start_date=2027-03-01&end_date=2027-03-01', others.key);

    expect(expectNestedError(refused, 403, 'forbidden').details).toEqual({
      required_scope: 'Admin',
      current_scopes: ['Read', 'Write', 'Execute'],
    });
  });

  it('answers the legacy dashboard the same, daily, from camelCase parameters (D7, D8)', async () => {
    const dashboard = (query: string) =>
      analytics(query, service.adminKey, '/api/analytics/charts/dashboard');

    const legacy = await dashboard(
      `startDate=2027-03-01&endDate=2027-03-10&agentId=${agents.helpful}`,
    );
    const v1 = await analyticsOf(
      `start_date=2027-03-01&end_date=2027-03-10&agent_id=${agents.helpful}&granularity=day`,
    );

    expect(legacy.status).toBe(200);
    expect(legacy.headers.get('deprecation')).toBe('true');
    expect(json(legacy)).toEqual(v1);
    expect(v1.metrics.total_queries).toBe(4);
    expectFlatError(await dashboard('startDate=2027-03-01'), 400);
    expectFlatError(
      await dashboard('startDate=2027-03-01&endDate=2027-03-02&granularity=hour'),
      400,
    );
  });
});
