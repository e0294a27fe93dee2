import { formatLatency, formatPercent, formatUsd } from '../../src/format/measures';
import {
  addressOf,
  chartData,
  formatBucket,
  presetRange,
  viewFromQuery,
  viewProblem,
} from '../../src/screens/analytics/analytics.state';

const TODAY = new Date('2026-11-27T23:30:00Z');

describe('the analytics view in the address', () => {
  it('defaults to the last 7 days (today included, UTC), daily, every agent', () => {
    expect(viewFromQuery({}, TODAY)).toEqual({
      period: '7d',
      startDate: '2026-11-21',
      endDate: '2026-11-27',
      agentId: '',
      granularity: 'day',
    });
  });

  it.each([
    ['30d', '2026-10-29'],
    ['90d', '2026-08-30'],
    ['365d', '2025-11-28'],
  ] as const)('preset %s starts on %s', (period, start) => {
    expect(presetRange(period, TODAY)).toEqual([start, '2026-11-27']);
  });

  it('keeps a custom range only with two real dates', () => {
    expect(
      viewFromQuery(
        { period: 'custom', start_date: '2026-01-01', end_date: '2026-01-31', granularity: 'week' },
        TODAY,
      ),
    ).toMatchObject({
      period: 'custom',
      startDate: '2026-01-01',
      endDate: '2026-01-31',
      granularity: 'week',
    });
    expect(viewFromQuery({ period: 'custom', start_date: '2026-01-01' }, TODAY).period).toBe('7d');
    expect(viewFromQuery({ granularity: 'minute', agent_id: 'nope' }, TODAY)).toMatchObject({
      granularity: 'day',
      agentId: '',
    });
  });

  it('writes a preset by name and a custom range by its dates', () => {
    expect(addressOf(viewFromQuery({ period: '30d', granularity: 'week' }, TODAY))).toBe(
      '/analytics?period=30d&granularity=week',
    );
    expect(
      addressOf(
        viewFromQuery(
          {
            period: 'custom',
            start_date: '2026-01-01',
            end_date: '2026-01-02',
            agent_id: 'agt_01JF3ZZZZZZZZZZZZZZZZZZZZZ',
          },
          TODAY,
        ),
      ),
    ).toBe(
      '/analytics?period=custom&start_date=2026-01-01&end_date=2026-01-02&agent_id=agt_01JF3ZZZZZZZZZZZZZZZZZZZZZ&granularity=day',
    );
  });
});

describe('ranges the service would refuse, said first', () => {
  const custom = (start: string, end: string, granularity: 'hour' | 'day' | 'week' | 'month') =>
    viewFromQuery({ period: 'custom', start_date: start, end_date: end, granularity }, TODAY);

  it('hours: 31 days at most', () => {
    expect(viewProblem(custom('2026-01-01', '2026-01-31', 'hour'))).toBeNull();
    expect(viewProblem(custom('2026-01-01', '2026-02-01', 'hour'))).toBe(
      'Hourly figures cover at most 31 days: pick a shorter range or a coarser granularity.',
    );
  });

  it('days: 366 at most', () => {
    expect(viewProblem(custom('2024-01-01', '2024-12-31', 'day'))).toBeNull();
    expect(viewProblem(custom('2024-01-01', '2025-01-01', 'day'))).toMatch(/^Daily figures/);
    expect(viewProblem(viewFromQuery({ period: '365d' }, TODAY))).toBeNull();
  });

  it('dates out of order', () => {
    expect(viewProblem(custom('2026-02-01', '2026-01-01', 'day'))).toBe(
      'The start date is after the end date: pick dates in order.',
    );
  });
});

describe('chart data and labels', () => {
  it('gives uPlot seconds, counts, and no latency where nobody asked', () => {
    expect(
      chartData([
        { timestamp: '2026-11-26T00:00:00.000Z', queries: 0, latency_p50: 0, latency_p95: 0 },
        { timestamp: '2026-11-27T00:00:00.000Z', queries: 4, latency_p50: 120, latency_p95: 900 },
      ]),
    ).toEqual({
      queries: [
        [1_795_651_200, 1_795_737_600],
        [0, 4],
      ],
      latency: [
        [1_795_651_200, 1_795_737_600],
        [null, 120],
        [null, 900],
      ],
    });
  });

  it('names buckets in UTC by their granularity', () => {
    const iso = '2026-06-03T14:00:00.000Z';
    expect(formatBucket(iso, 'hour', 'en-GB')).toBe('3 Jun 2026, 14:00');
    expect(formatBucket(iso, 'day', 'en-GB')).toBe('3 Jun 2026');
    expect(formatBucket(iso, 'week', 'en-GB')).toBe('Week of 3 Jun 2026');
    expect(formatBucket(iso, 'month', 'en-GB')).toBe('June 2026');
  });

  it('writes latency, money and rates', () => {
    expect(formatLatency(850, 'en')).toBe('850 ms');
    expect(formatLatency(1234, 'en')).toBe('1.2 s');
    expect(formatLatency(12_400, 'en')).toBe('12 s');
    expect(formatUsd(0, 'en')).toBe('$0.00');
    expect(formatUsd(0.0042, 'en')).toBe('$0.0042');
    expect(formatUsd(12.4, 'en')).toBe('$12.40');
    expect(formatPercent(0.873, 'en')).toBe('87.3%');
  });
});
