import { useSignal } from '@preact/signals';
import { useEffect, useMemo } from 'preact/hooks';
import { ApiError } from '../../api/api-error';
import { useAgentChoices } from '../../components/agent-select';
import { ErrorNotice } from '../../components/error-notice';
import { formatDateTime } from '../../format/format';
import { useApp } from '../../state/app-context';
import {
  compareHref,
  EVALUATIONS_PATH,
  type EvaluationWithResults,
  failureSentence,
  isRunning,
  nextRunPoll,
  progressSentence,
  RUN_POLL,
} from './evaluations.state';
import { loadRun, readRunStatus } from './evaluations-api';
import {
  Expectations,
  MetricsExplained,
  ResultBody,
  runTitle,
  StatusBadge,
  sourceSentence,
  TotalsCards,
} from './run-parts';

/**
 * One run: while it runs, its progress ("3 of 20 questions"), read again
 * until it ends; then its totals and every question's answer, sources and
 * scores; a failed run says why, with the results it got.
 */
export function RunPage({ id }: { readonly id: string }) {
  const { session } = useApp();
  const agents = useAgentChoices();
  const run = useSignal<EvaluationWithResults | null>(null);
  const error = useSignal<unknown>(null);
  const pollError = useSignal<unknown>(null);

  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let delay: number | null = null;
    let lastCount = -1;
    const read = async () => {
      try {
        const status = await readRunStatus(session.api, id, controller.signal);
        pollError.value = null;
        if (isRunning(status)) {
          run.value = status;
          delay = nextRunPoll(delay, status.completed_count !== lastCount);
          lastCount = status.completed_count;
          timer = setTimeout(() => void read(), delay);
          return;
        }
        run.value = await loadRun(session.api, id, controller.signal);
      } catch (failure) {
        if (controller.signal.aborted) return;
        if (!run.value || (failure instanceof ApiError && failure.status === 404)) {
          error.value = failure;
          return;
        }
        // A read failed mid-run: say so and try again (after a 429's wait).
        pollError.value = failure;
        const wait =
          failure instanceof ApiError && failure.retryAfter !== null
            ? Math.max(RUN_POLL.firstMs, failure.retryAfter * 1000)
            : RUN_POLL.retryMs;
        timer = setTimeout(() => void read(), wait);
      }
    };
    void read();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [id]);

  const current = run.value;
  const agentName = useMemo(
    () =>
      (agents.data.value ?? []).find((agent) => agent.id === current?.agent_id)?.name ??
      current?.agent_id,
    [agents.data.value, current?.agent_id],
  );

  if (error.value) {
    return (
      <section class="screen">
        <p class="eval-back">
          <a href={EVALUATIONS_PATH}>All evaluations</a>
        </p>
        <h1>Evaluation</h1>
        <ErrorNotice error={error.value} />
      </section>
    );
  }
  if (!current) {
    return (
      <section class="screen">
        <h1>Evaluation</h1>
        <p role="status">Loading the evaluation…</p>
      </section>
    );
  }
  const running = isRunning(current);
  return (
    <section class="screen" aria-labelledby="run-heading">
      <p class="eval-back">
        <a href={EVALUATIONS_PATH}>All evaluations</a>
      </p>
      <div class="eval-heading">
        <h1 id="run-heading">{runTitle(current)}</h1>
        {running ? null : (
          <div class="eval-heading__actions">
            <a class="button" href={compareHref(current.agent_id, current.id, null)}>
              Compare with another run
            </a>
          </div>
        )}
      </div>
      <dl class="facts eval-facts">
        <dt>Agent</dt>
        <dd>
          <a href={`/agents/${current.agent_id}`}>{agentName}</a>
        </dd>
        <dt>Status</dt>
        <dd>
          <StatusBadge status={current.status} />
        </dd>
        <dt>Questions</dt>
        <dd>
          {current.question_count}: {sourceSentence(current.source)}
        </dd>
        <dt>Started</dt>
        <dd>{formatDateTime(current.started_at ?? current.created_at)}</dd>
        {current.completed_at ? (
          <>
            <dt>Ended</dt>
            <dd>{formatDateTime(current.completed_at)}</dd>
          </>
        ) : null}
      </dl>

      {running ? (
        <div class="eval-progress">
          <label for="run-progress">Progress</label>
          <progress
            id="run-progress"
            max={current.question_count}
            value={current.completed_count}
          />
          <p role="status">{progressSentence(current)}</p>
          <p class="eval-muted">This page follows the run; you may leave it and come back.</p>
        </div>
      ) : null}
      {pollError.value ? <ErrorNotice error={pollError.value} /> : null}

      {current.status === 'failed' && current.error ? (
        <div class="eval-problem" role="alert">
          <p>
            {failureSentence(current.error)} It got {current.completed_count} of{' '}
            {current.question_count} questions done.
          </p>
          <p class="eval-muted">
            The service said: {current.error.message} ({current.error.code})
          </p>
        </div>
      ) : null}

      {current.totals ? (
        <section aria-labelledby="totals-heading">
          <h2 id="totals-heading">Totals</h2>
          <TotalsCards totals={current.totals} />
          <MetricsExplained />
        </section>
      ) : null}

      {running ? null : (
        <section aria-labelledby="results-heading">
          <h2 id="results-heading">Results per question</h2>
          <ol class="eval-results">
            {current.results.map((item) => (
              <li key={item.index}>
                <article class="eval-result" aria-labelledby={`question-${item.index}`}>
                  <h3 id={`question-${item.index}`}>{item.question}</h3>
                  <Expectations item={item} />
                  <ResultBody item={item} />
                </article>
              </li>
            ))}
          </ol>
        </section>
      )}
    </section>
  );
}
