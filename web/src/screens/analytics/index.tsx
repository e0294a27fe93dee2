import { useSignal } from '@preact/signals';
import { useMemo } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { unwrap } from '../../api/client';
import { useLoad } from '../../api/use-load';
import { AgentSelect, useAgentChoices } from '../../components/agent-select';
import { Chart } from '../../components/chart';
import { ErrorNotice } from '../../components/error-notice';
import { formatNumber } from '../../format/format';
import { formatLatency, formatPercent, formatUsd } from '../../format/measures';
import { useApp } from '../../state/app-context';
import {
  type AnalyticsResult,
  type AnalyticsView,
  addressOf,
  chartData,
  formatBucket,
  GRANULARITIES,
  type Granularity,
  PERIODS,
  type Period,
  viewFromQuery,
  viewProblem,
} from './analytics.state';
import './analytics.css';
import { TableScroll } from '../../components/table-scroll';

/**
 * The organization's figures for a range of UTC days: a preset or a
 * custom range, every agent or one, by hour, day, week or month. Cards for
 * the totals; charts of questions per period and of latency p50/p95, each
 * with its figures as a table.
 */
export default function Analytics() {
  const { session } = useApp();
  const location = useLocation();
  const view = viewFromQuery(location.query);
  const problem = viewProblem(view);
  const agents = useAgentChoices();
  const result = useLoad(
    (signal) =>
      problem
        ? Promise.resolve(null)
        : unwrap(
            session.api.GET('/api/v1/analytics', {
              params: {
                query: {
                  start_date: view.startDate,
                  end_date: view.endDate,
                  granularity: view.granularity,
                  ...(view.agentId ? { agent_id: view.agentId } : {}),
                },
              },
              signal,
            }),
          ),
    [view.startDate, view.endDate, view.agentId, view.granularity, problem],
  );
  const figures = result.data.value;
  const agentName =
    (agents.data.value ?? []).find((agent) => agent.id === view.agentId)?.name ?? view.agentId;

  return (
    <section class="screen" aria-labelledby="analytics-heading">
      <h1 id="analytics-heading">Analytics</h1>
      <ViewForm
        view={view}
        agents={agents.data.value}
        onApply={(next) => location.route(addressOf(next))}
      />
      <p class="analytics__range">
        {rangeSentence(view)}
        {view.agentId ? `, agent ${agentName}` : ', all agents'}.
      </p>
      {problem ? (
        <p class="analytics__problem" role="alert">
          {problem}
        </p>
      ) : null}
      {result.error.value ? <ErrorNotice error={result.error.value} /> : null}
      {result.loading.value && !figures && !problem ? (
        <p role="status">Loading analytics…</p>
      ) : null}
      {figures ? <Figures figures={figures} view={view} /> : null}
    </section>
  );
}

function rangeSentence(view: AnalyticsView): string {
  const day = (value: string) => formatBucket(`${value}T00:00:00Z`, 'day');
  const span =
    view.startDate === view.endDate
      ? day(view.startDate)
      : `${day(view.startDate)} to ${day(view.endDate)}`;
  return `${span} (UTC)`;
}

function Figures({
  figures,
  view,
}: {
  readonly figures: AnalyticsResult;
  readonly view: AnalyticsView;
}) {
  const metrics = figures.metrics;
  const series = useMemo(() => chartData(figures.time_series), [figures]);
  const unit = view.granularity;
  return (
    <>
      <section aria-label="Totals for the range">
        <dl class="metrics">
          <Metric label="Queries" value={formatNumber(metrics.total_queries)} />
          <Metric
            label="Unique users"
            value={formatNumber(metrics.unique_users)}
            hint="People who asked, each counted once however many conversations they had; an API key counts as one"
          />
          <Metric
            label="Average latency"
            value={metrics.total_queries > 0 ? formatLatency(metrics.avg_latency_ms) : '—'}
          />
          <Metric
            label="Accuracy"
            value={metrics.accuracy_rate === null ? '—' : formatPercent(metrics.accuracy_rate)}
            hint={
              metrics.accuracy_rate === null
                ? 'No feedback in this range'
                : 'Positive share of rated answers'
            }
          />
          <Metric
            label="Citation rate"
            value={metrics.citation_rate === null ? '—' : formatPercent(metrics.citation_rate)}
            hint={
              metrics.citation_rate === null
                ? 'No answers in this range'
                : 'Answers citing a source'
            }
          />
          <Metric
            label="Supported by sources"
            value={
              metrics.avg_groundedness === null ? '—' : formatPercent(metrics.avg_groundedness)
            }
            hint={
              metrics.avg_groundedness === null
                ? 'No answer cited a source in this range'
                : 'Average share of an answer’s sentences its cited sources back up'
            }
          />
          <Metric
            label="Cost"
            value={formatUsd(metrics.total_cost_usd)}
            hint="Billed to the service"
          />
          <Metric
            label="Model-key cost"
            value={formatUsd(metrics.model_key_cost_usd)}
            hint={`${formatNumber(metrics.model_key_queries)} ${metrics.model_key_queries === 1 ? 'answer' : 'answers'} on your own model keys, at list price`}
          />
          <Metric
            label="Tokens"
            value={formatNumber(metrics.total_tokens_input + metrics.total_tokens_output)}
            hint={`${formatNumber(metrics.total_tokens_input)} in, ${formatNumber(metrics.total_tokens_output)} out`}
          />
        </dl>
      </section>
      {metrics.total_queries === 0 ? (
        <div class="empty">
          <p>
            No questions were asked in this range{view.agentId ? ' of this agent' : ''}. Pick a
            longer range or another agent, or ask one a question.
          </p>
          <a class="button" href={view.agentId ? `/agents/${view.agentId}` : '/agents'}>
            Ask an agent a question
          </a>
        </div>
      ) : (
        <div class="analytics__charts">
          <Chart
            caption={`Queries per ${unit}`}
            series={[{ label: 'Queries', colour: 'series-1', kind: 'bars' }]}
            data={series.queries}
            formatValue={(value) => formatNumber(value)}
          >
            <p class="chart__summary">{queriesSummary(figures, unit)}</p>
            <SeriesTable
              caption={`Queries per ${unit}`}
              granularity={unit}
              columns={['Queries']}
              rows={figures.time_series.map((point) => [
                point.timestamp,
                [formatNumber(point.queries)],
              ])}
            />
          </Chart>
          <Chart
            caption={`Latency per ${unit}, p50 and p95`}
            series={[
              { label: 'p50', colour: 'series-1', kind: 'line' },
              { label: 'p95', colour: 'series-2', kind: 'line' },
            ]}
            data={series.latency}
            formatValue={(value) => formatLatency(value)}
          >
            <p class="chart__summary">{latencySummary(figures)}</p>
            <SeriesTable
              caption={`Latency per ${unit}`}
              granularity={unit}
              columns={['p50', 'p95']}
              rows={figures.time_series.map((point) => [
                point.timestamp,
                point.queries > 0
                  ? [formatLatency(point.latency_p50), formatLatency(point.latency_p95)]
                  : ['—', '—'],
              ])}
            />
          </Chart>
        </div>
      )}
    </>
  );
}

function Metric({ label, value, hint }: { label: string; value: string; hint?: string }) {
  return (
    <div class="metric">
      <dt class="metric__label">{label}</dt>
      <dd class="metric__value">{value}</dd>
      {hint ? <dd class="metric__hint">{hint}</dd> : null}
    </div>
  );
}

const PERIOD_NAMES: Readonly<Record<Granularity, string>> = {
  hour: 'Hour',
  day: 'Day',
  week: 'Week',
  month: 'Month',
};

/** The chart's data as a table (the accessible alternative), behind a disclosure. */
function SeriesTable({
  caption,
  granularity,
  columns,
  rows,
}: {
  readonly caption: string;
  readonly granularity: Granularity;
  readonly columns: readonly string[];
  readonly rows: ReadonlyArray<readonly [string, readonly string[]]>;
}) {
  return (
    <details class="chart__data">
      <summary>Show the figures as a table</summary>
      <TableScroll>
        <table class="table">
          <caption>{caption} (UTC)</caption>
          <thead>
            <tr>
              <th scope="col">{PERIOD_NAMES[granularity]}</th>
              {columns.map((column) => (
                <th key={column} scope="col">
                  {column}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map(([timestamp, values]) => (
              <tr key={timestamp}>
                <th scope="row">{formatBucket(timestamp, granularity)}</th>
                {values.map((value, index) => (
                  <td key={columns[index]}>{value}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </details>
  );
}

/** "42 queries over 7 days; the busiest day: 3 Jun 2026, with 12." */
function queriesSummary(figures: AnalyticsResult, granularity: Granularity): string {
  const points = figures.time_series;
  const busiest = points.reduce<AnalyticsResult['time_series'][number] | null>(
    (best, point) => (best === null || point.queries > best.queries ? point : best),
    null,
  );
  const total = figures.metrics.total_queries;
  const head = `${formatNumber(total)} ${total === 1 ? 'query' : 'queries'} over ${formatNumber(points.length)} ${points.length === 1 ? granularity : `${granularity}s`}`;
  if (!busiest || busiest.queries === 0) return `${head}.`;
  return `${head}; the busiest ${granularity}: ${formatBucket(busiest.timestamp, granularity)}, with ${formatNumber(busiest.queries)}.`;
}

/** "p50 from 120 ms to 1.4 s; p95 at most 2.1 s." */
function latencySummary(figures: AnalyticsResult): string {
  const asked = figures.time_series.filter((point) => point.queries > 0);
  if (asked.length === 0) return 'No latency: nothing was asked.';
  const p50 = asked.map((point) => point.latency_p50);
  const p95 = asked.map((point) => point.latency_p95);
  const low = Math.min(...p50);
  const high = Math.max(...p50);
  const median =
    low === high
      ? `Median latency (p50) ${formatLatency(low)}`
      : `Median latency (p50) from ${formatLatency(low)} to ${formatLatency(high)}`;
  return `${median}; p95 at most ${formatLatency(Math.max(...p95))}.`;
}

/** The view form (CONSOLE.md §7): the period's dates show only for a custom range. */
function ViewForm({
  view,
  agents,
  onApply,
}: {
  readonly view: AnalyticsView;
  readonly agents: ReadonlyArray<{ id: string; name: string }> | null;
  readonly onApply: (view: AnalyticsView) => void;
}) {
  const period = useSignal<Period>(view.period);
  const problem = useSignal<string | null>(null);
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const read = (name: string) => String(form.get(name) ?? '');
    const chosen = read('period');
    const next = viewFromQuery({
      period: chosen,
      start_date: read('start_date'),
      end_date: read('end_date'),
      agent_id: read('agent_id'),
      granularity: read('granularity'),
    });
    if (chosen === 'custom' && next.period !== 'custom') {
      problem.value = 'Pick both dates of the custom range.';
      return;
    }
    problem.value = viewProblem(next);
    if (!problem.value) onApply(next);
  };
  return (
    <form class="filters" aria-label="Choose the range" onSubmit={submit} key={addressOf(view)}>
      <div class="filters__field">
        <label for="analytics-period">Period</label>
        <select
          id="analytics-period"
          name="period"
          onChange={(event) => {
            period.value = (event.currentTarget as HTMLSelectElement).value as Period;
          }}
        >
          {PERIODS.map(([value, label]) => (
            <option key={value} value={value} selected={value === view.period}>
              {label}
            </option>
          ))}
        </select>
      </div>
      {period.value === 'custom' ? (
        <>
          <div class="filters__field">
            <label for="analytics-from">From</label>
            <input
              id="analytics-from"
              name="start_date"
              type="date"
              required
              defaultValue={view.startDate}
            />
          </div>
          <div class="filters__field">
            <label for="analytics-to">To</label>
            <input
              id="analytics-to"
              name="end_date"
              type="date"
              required
              defaultValue={view.endDate}
            />
          </div>
        </>
      ) : null}
      <div class="filters__field">
        <AgentSelect id="analytics-agent" agents={agents} value={view.agentId} />
      </div>
      <div class="filters__field">
        <label for="analytics-granularity">Granularity</label>
        <select id="analytics-granularity" name="granularity">
          {GRANULARITIES.map(([value, label]) => (
            <option key={value} value={value} selected={value === view.granularity}>
              {label}
            </option>
          ))}
        </select>
      </div>
      <div class="filters__actions">
        <button type="submit" class="button button--primary">
          Show
        </button>
      </div>
      {problem.value ? (
        <p class="filters__problem" role="alert">
          {problem.value}
        </p>
      ) : null}
    </form>
  );
}
