import type { ApiPaths } from '../../api/client';

export type AnalyticsResult =
  ApiPaths['/api/v1/analytics']['get']['responses'][200]['content']['application/json'];
export type Granularity = 'hour' | 'day' | 'week' | 'month';
export type Period = '7d' | '30d' | '90d' | '365d' | 'custom';

/** What the page shows: the address holds it (`?period=30d&granularity=week`), so a reload or a link shows the same. */
export interface AnalyticsView {
  readonly period: Period;
  /** YYYY-MM-DD, UTC; for a preset, computed from today. */
  readonly startDate: string;
  readonly endDate: string;
  readonly agentId: string;
  readonly granularity: Granularity;
}

export const PERIODS: ReadonlyArray<readonly [Period, string]> = [
  ['7d', 'Last 7 days'],
  ['30d', 'Last 30 days'],
  ['90d', 'Last 90 days'],
  ['365d', 'Last 12 months'],
  ['custom', 'Custom range'],
];

const PRESET_DAYS: Readonly<Record<Exclude<Period, 'custom'>, number>> = {
  '7d': 7,
  '30d': 30,
  '90d': 90,
  '365d': 365,
};

export const GRANULARITIES: ReadonlyArray<readonly [Granularity, string]> = [
  ['hour', 'Hourly'],
  ['day', 'Daily'],
  ['week', 'Weekly'],
  ['month', 'Monthly'],
];

/**
 * The most buckets one request may ask for, as GET /api/v1/analytics
 * counts them (functions/analytics/handler.ts: a month of hours, a year of
 * days): checked here too, so the form says it before the service refuses.
 */
const MAX_BUCKETS: Readonly<Record<Granularity, number>> = {
  hour: 24 * 31,
  day: 366,
  week: 260,
  month: 120,
};
const HOURS_PER_BUCKET: Readonly<Record<Granularity, number>> = {
  hour: 1,
  day: 24,
  week: 168,
  month: 730,
};
const DAY_MS = 24 * 3600 * 1000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const AGENT_ID = /^agt_[0-9A-Za-z]+$/;

/** A UTC day as YYYY-MM-DD. */
export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** The days a preset covers, ending today (UTC) and including it. */
export function presetRange(period: Exclude<Period, 'custom'>, today: Date): [string, string] {
  const end = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  return [utcDay(new Date(end - (PRESET_DAYS[period] - 1) * DAY_MS)), utcDay(new Date(end))];
}

/** The view an address asks for; a malformed or missing part falls back to the last 7 days, daily, every agent. */
export function viewFromQuery(
  query: Readonly<Record<string, string | undefined>>,
  today: Date = new Date(),
): AnalyticsView {
  const granularity = GRANULARITIES.some(([value]) => value === query.granularity)
    ? (query.granularity as Granularity)
    : 'day';
  const agentId = query.agent_id && AGENT_ID.test(query.agent_id) ? query.agent_id : '';
  if (query.period === 'custom' && isDate(query.start_date) && isDate(query.end_date)) {
    return {
      period: 'custom',
      startDate: query.start_date,
      endDate: query.end_date,
      agentId,
      granularity,
    };
  }
  const period = (
    PERIODS.some(([value]) => value === query.period && value !== 'custom') ? query.period : '7d'
  ) as Exclude<Period, 'custom'>;
  const [startDate, endDate] = presetRange(period, today);
  return { period, startDate, endDate, agentId, granularity };
}

/** The page's address for a view: a preset names itself, a custom range its dates. */
export function addressOf(view: AnalyticsView): string {
  const query = new URLSearchParams({ period: view.period });
  if (view.period === 'custom') {
    query.set('start_date', view.startDate);
    query.set('end_date', view.endDate);
  }
  if (view.agentId) query.set('agent_id', view.agentId);
  query.set('granularity', view.granularity);
  return `/analytics?${query.toString()}`;
}

/** Why a view cannot be shown, in words (dates out of order, too many buckets), or null. */
export function viewProblem(view: AnalyticsView): string | null {
  if (!isDate(view.startDate) || !isDate(view.endDate)) {
    return 'Pick both dates of the custom range.';
  }
  if (view.startDate > view.endDate)
    return 'The start date is after the end date: pick dates in order.';
  const hours =
    (Date.parse(`${view.endDate}T00:00:00Z`) + DAY_MS - Date.parse(`${view.startDate}T00:00:00Z`)) /
    3_600_000;
  if (hours / HOURS_PER_BUCKET[view.granularity] > MAX_BUCKETS[view.granularity]) {
    const most = {
      hour: 'Hourly figures cover at most 31 days',
      day: 'Daily figures cover at most 366 days',
      week: 'Weekly figures cover at most 260 weeks',
      month: 'Monthly figures cover at most 120 months',
    }[view.granularity];
    return `${most}: pick a shorter range or a coarser granularity.`;
  }
  return null;
}

/**
 * The series as uPlot takes them: x in Unix seconds, then one array per
 * series. A bucket nobody asked in has no latency (null: a gap in the
 * line), not a latency of 0.
 */
export function chartData(series: AnalyticsResult['time_series']): {
  readonly queries: [number[], number[]];
  readonly latency: [number[], Array<number | null>, Array<number | null>];
} {
  const x = series.map((point) => Date.parse(point.timestamp) / 1000);
  const measured = (value: number, queries: number) => (queries > 0 ? value : null);
  return {
    queries: [x, series.map((point) => point.queries)],
    latency: [
      x,
      series.map((point) => measured(point.latency_p50, point.queries)),
      series.map((point) => measured(point.latency_p95, point.queries)),
    ],
  };
}

/** A bucket's start as its granularity reads best, in UTC: "3 Jun, 14:00", "3 Jun 2026", "June 2026". */
export function formatBucket(iso: string, granularity: Granularity, locale?: string): string {
  const options: Intl.DateTimeFormatOptions =
    granularity === 'hour'
      ? { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }
      : granularity === 'month'
        ? { year: 'numeric', month: 'long', timeZone: 'UTC' }
        : { dateStyle: 'medium', timeZone: 'UTC' };
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const text = new Intl.DateTimeFormat(locale, options).format(date);
  return granularity === 'week' ? `Week of ${text}` : text;
}

/** "per day", "per week", … */
export function perPeriod(granularity: Granularity): string {
  return `per ${granularity}`;
}

function isDate(value: string | undefined): value is string {
  if (!value || !DATE.test(value)) return false;
  const date = new Date(`${value}T00:00:00.000Z`);
  return !Number.isNaN(date.getTime()) && utcDay(date) === value;
}
