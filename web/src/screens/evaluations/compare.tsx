import { useMemo } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { useLoad } from '../../api/use-load';
import { AgentSelect, useAgentChoices } from '../../components/agent-select';
import { ErrorNotice } from '../../components/error-notice';
import { TableScroll } from '../../components/table-scroll';
import { formatNumber } from '../../format/format';
import { formatLatency, formatUsd } from '../../format/measures';
import { useApp } from '../../state/app-context';
import {
  CHANGE_LABELS,
  type Change,
  changeOf,
  compareHref,
  EVALUATIONS_PATH,
  type Evaluation,
  type EvaluationWithResults,
  isRunning,
  pairQuestions,
  pairsSummary,
  type QuestionPair,
  RESULTS_PAGE,
  type TotalRow,
  totalRows,
} from './evaluations.state';
import { loadRun, loadRuns } from './evaluations-api';
import { formatRatio, ResultBody, runTitle } from './run-parts';

/** ▲ better, ▼ worse, ≠ changed, = same: a sign and a word, never colour alone. */
const CHANGE_SIGNS: Readonly<Record<Change, string>> = {
  better: '▲',
  worse: '▼',
  changed: '≠',
  same: '=',
  'not-comparable': '–',
};

function ChangeMark({ change }: { readonly change: Change }) {
  return (
    <span class="eval-change" data-change={change}>
      <span aria-hidden="true">{CHANGE_SIGNS[change]} </span>
      {CHANGE_LABELS[change]}
    </span>
  );
}

function formatTotal(row: TotalRow, value: number | null): string {
  if (value === null) return '—';
  switch (row.kind) {
    case 'ratio':
      return formatRatio(value);
    case 'ms':
      return formatLatency(value);
    case 'usd':
      return formatUsd(value);
    default:
      return formatNumber(value);
  }
}

/**
 * Two runs of one agent side by side: pick the agent, then the two runs
 * (its finished ones, newest first); the totals with each change in words
 * and a sign, then every question's two answers and what moved. The
 * choice is in the address (`?agent_id=…&a=…&b=…`).
 */
export function CompareRuns() {
  const { session } = useApp();
  const location = useLocation();
  const agentId = location.query.agent_id?.startsWith('agt_') ? location.query.agent_id : null;
  const a = location.query.a ?? null;
  const b = location.query.b ?? null;
  const agents = useAgentChoices();
  const runs = useLoad(
    (signal) =>
      agentId
        ? loadRuns(session.api, { agentId, limit: RESULTS_PAGE, offset: 0 }, signal)
        : Promise.resolve(null),
    [agentId],
  );
  const finished = (runs.data.value?.evals ?? []).filter((run) => !isRunning(run));

  const onAgent = (event: Event) => {
    event.preventDefault();
    const chosen = String(new FormData(event.currentTarget as HTMLFormElement).get('agent_id'));
    location.route(compareHref(chosen || null, null, null));
  };
  const onRuns = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    location.route(compareHref(agentId, String(form.get('a')), String(form.get('b'))));
  };
  // The defaults: the newest finished run against the one before it.
  const defaultA = a ?? finished[1]?.id ?? '';
  const defaultB = b ?? finished[0]?.id ?? '';

  return (
    <section class="screen eval-wide" aria-labelledby="compare-heading">
      <p class="eval-back">
        <a href={EVALUATIONS_PATH}>All evaluations</a>
      </p>
      <h1 id="compare-heading">Compare two runs</h1>
      <form class="filters" aria-label="Choose the agent" onSubmit={onAgent}>
        <div class="filters__field">
          <AgentSelect
            id="compare-agent"
            agents={agents.data.value}
            value={agentId ?? ''}
            choose="Choose an agent"
          />
        </div>
        <div class="filters__actions">
          <button type="submit" class="button">
            Show its runs
          </button>
        </div>
      </form>
      {runs.error.value ? <ErrorNotice error={runs.error.value} /> : null}
      {agentId && runs.data.value && finished.length < 2 ? (
        <p class="empty">
          This agent has {finished.length === 0 ? 'no finished run' : 'one finished run'}: two are
          needed to compare.
        </p>
      ) : null}
      {agentId && finished.length >= 2 ? (
        <form
          class="filters"
          aria-label="Choose the runs"
          onSubmit={onRuns}
          key={`${agentId}:${defaultA}:${defaultB}`}
        >
          <RunChoice id="compare-a" name="a" label="First run" runs={finished} value={defaultA} />
          <RunChoice id="compare-b" name="b" label="Second run" runs={finished} value={defaultB} />
          <div class="filters__actions">
            <button type="submit" class="button button--primary">
              Compare
            </button>
          </div>
        </form>
      ) : null}
      {a && b ? <Comparison key={`${a}:${b}`} a={a} b={b} /> : null}
    </section>
  );
}

function RunChoice({
  id,
  name,
  label,
  runs,
  value,
}: {
  readonly id: string;
  readonly name: string;
  readonly label: string;
  readonly runs: readonly Evaluation[];
  readonly value: string;
}) {
  return (
    <div class="filters__field">
      <label for={id}>{label}</label>
      <select id={id} name={name} required>
        {runs.map((run) => (
          <option key={run.id} value={run.id} selected={run.id === value}>
            {runTitle(run)}
            {run.status === 'failed' ? ' (failed)' : ''}
          </option>
        ))}
      </select>
    </div>
  );
}

function Comparison({ a, b }: { readonly a: string; readonly b: string }) {
  const { session } = useApp();
  const loaded = useLoad(
    (signal) => Promise.all([loadRun(session.api, a, signal), loadRun(session.api, b, signal)]),
    [a, b],
  );
  if (loaded.error.value) return <ErrorNotice error={loaded.error.value} />;
  const both = loaded.data.value;
  if (!both) return <p role="status">Loading the two runs…</p>;
  const [first, second] = both;
  if (first.id === second.id) {
    return (
      <p class="eval-problem" role="alert">
        The same run is chosen twice: pick two different runs.
      </p>
    );
  }
  if (first.agent_id !== second.agent_id) {
    return (
      <p class="eval-problem" role="alert">
        These runs are of different agents: pick two runs of the same agent.
      </p>
    );
  }
  if (isRunning(first) || isRunning(second)) {
    return (
      <p class="eval-problem" role="alert">
        {isRunning(first) ? runTitle(first) : runTitle(second)} is still running: compare it once it
        has ended.
      </p>
    );
  }
  return <ComparisonTables first={first} second={second} />;
}

function ComparisonTables({
  first,
  second,
}: {
  readonly first: EvaluationWithResults;
  readonly second: EvaluationWithResults;
}) {
  const rows = totalRows(first.totals, second.totals);
  const pairs = useMemo(
    () => pairQuestions(first.results, second.results),
    [first.results, second.results],
  );
  return (
    <>
      <section aria-labelledby="compare-totals-heading">
        <h2 id="compare-totals-heading">Totals</h2>
        <TableScroll label="Runs compared">
          <table class="table eval-compare-totals">
            <caption>
              {runTitle(first)} (first) and {runTitle(second)} (second); the change reads from the
              first to the second.
            </caption>
            <thead>
              <tr>
                <th scope="col">Measure</th>
                <th scope="col">First run</th>
                <th scope="col">Second run</th>
                <th scope="col">Change</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => {
                const change = changeOf(row.a, row.b, row.better);
                return (
                  <tr key={row.label} data-change={change}>
                    <th scope="row">{row.label}</th>
                    <td>{formatTotal(row, row.a)}</td>
                    <td>{formatTotal(row, row.b)}</td>
                    <td>
                      <ChangeMark change={change} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableScroll>
      </section>
      <section aria-labelledby="compare-questions-heading">
        <h2 id="compare-questions-heading">Question by question</h2>
        <p>{pairsSummary(pairs)}</p>
        <ol class="eval-results">
          {pairs.map((pair, index) => (
            <li key={`${index}:${pair.question}`}>
              <PairArticle pair={pair} index={index} />
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}

function PairArticle({ pair, index }: { readonly pair: QuestionPair; readonly index: number }) {
  const heading = `pair-${index}`;
  return (
    <article class="eval-result" data-change={pair.verdict} aria-labelledby={heading}>
      <div class="eval-pair__heading">
        <h3 id={heading}>{pair.question}</h3>
        <ChangeMark change={pair.verdict} />
      </div>
      {pair.changes.length > 0 || (pair.answerChanged && pair.a && pair.b) ? (
        <ul class="eval-pair__changes" aria-label="What changed">
          {pair.answerChanged && pair.a && pair.b ? <li>The answer's text changed.</li> : null}
          {pair.changes.map((entry) => (
            <li key={entry.label}>
              {entry.label}: <ChangeMark change={entry.change} />
            </li>
          ))}
        </ul>
      ) : null}
      <div class="eval-pair">
        <section aria-label={`First run: ${pair.question}`}>
          <p class="eval-label">First run</p>
          {pair.a ? <ResultBody item={pair.a} /> : <p class="eval-muted">Not in this run.</p>}
        </section>
        <section aria-label={`Second run: ${pair.question}`}>
          <p class="eval-label">Second run</p>
          {pair.b ? <ResultBody item={pair.b} /> : <p class="eval-muted">Not in this run.</p>}
        </section>
      </div>
    </article>
  );
}
