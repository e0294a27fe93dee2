import { formatDateTime, formatNumber } from '../../format/format';
import { formatLatency, formatPercent, formatUsd } from '../../format/measures';
import {
  type Evaluation,
  type EvaluationResult,
  QUESTION_METRICS,
  STATUS_LABELS,
  type Totals,
} from './evaluations.state';

/** A ratio the API leaves `null` where it is undefined (docs/evaluations.md): "—" then. */
export function formatRatio(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : formatPercent(value);
}

/** A run's name, or when it was made. */
export function runTitle(run: Pick<Evaluation, 'name' | 'created_at'>): string {
  return run.name ?? `Evaluation of ${formatDateTime(run.created_at)}`;
}

/** Where the questions came from, in words. */
export function sourceSentence(source: Evaluation['source']): string {
  if (source.type === 'questions') return 'Questions given when it was started';
  const rated =
    source.feedback === 'any'
      ? 'with a rating'
      : source.feedback === 'positive'
        ? 'rated helpful'
        : 'rated not helpful';
  const since = source.since ? ` since ${formatDateTime(source.since)}` : '';
  return source.limit === 1
    ? `The newest interaction ${rated}${since}`
    : `Up to ${source.limit} of the newest interactions ${rated}${since}`;
}

export function StatusBadge({ status }: { readonly status: Evaluation['status'] }) {
  return (
    <span class="eval-status" data-status={status}>
      {STATUS_LABELS[status]}
    </span>
  );
}

/** The run's totals as cards (docs/evaluations.md, "Per run"). */
export function TotalsCards({ totals }: { readonly totals: Totals }) {
  return (
    <dl class="eval-totals">
      <Card label="Answered" value={`${totals.answered} of ${totals.questions}`} />
      <Card label="No answer" value={formatNumber(totals.no_answer)} />
      <Card label="Failed" value={formatNumber(totals.failed)} />
      <Card
        label="Answer support"
        value={formatRatio(totals.answer_support)}
        hint="Sentences backed by a cited passage"
      />
      <Card
        label="Answer F1"
        value={formatRatio(totals.answer_f1)}
        hint="Word overlap with the expected answers"
      />
      <Card
        label="Retrieval recall"
        value={formatRatio(totals.retrieval_recall)}
        hint="Expected sources that were retrieved"
      />
      <Card
        label="Citation recall"
        value={formatRatio(totals.citation_recall)}
        hint="Expected sources that were cited"
      />
      <Card
        label="Citation precision"
        value={formatRatio(totals.citation_precision)}
        hint="Cited sources that were expected"
      />
      <Card
        label="Latency"
        value={totals.latency_ms.p50 === null ? '—' : formatLatency(totals.latency_ms.p50)}
        hint={
          totals.latency_ms.p95 === null
            ? 'Median'
            : `Median; p95 ${formatLatency(totals.latency_ms.p95)}`
        }
      />
      <Card
        label="Tokens"
        value={formatNumber(totals.tokens_input + totals.tokens_output)}
        hint={`${formatNumber(totals.tokens_input)} in, ${formatNumber(totals.tokens_output)} out; ${formatUsd(totals.cost_usd)}`}
      />
    </dl>
  );
}

function Card({
  label,
  value,
  hint,
}: {
  readonly label: string;
  readonly value: string;
  readonly hint?: string;
}) {
  return (
    <div class="eval-card">
      <dt>{label}</dt>
      <dd>
        <span class="eval-card__value">{value}</span>
        {hint ? <span class="eval-card__hint">{hint}</span> : null}
      </dd>
    </div>
  );
}

/** A question's answer, its sources and its scores; `compact` leaves out the question and expectations. */
export function ResultBody({ item }: { readonly item: EvaluationResult }) {
  const result = item.result;
  if (!result) {
    return <p class="eval-muted">Not asked: the run ended before this question.</p>;
  }
  if (result.status === 'failed') {
    return (
      <p class="eval-failed">
        Failed: {result.error?.message ?? 'the question could not be asked'}
        {result.error ? ` (${result.error.code})` : ''}
      </p>
    );
  }
  const metrics = result.metrics;
  return (
    <>
      <p class="eval-answer">{result.response}</p>
      {metrics?.no_answer ? (
        <p class="eval-muted">The agent found no answer in its sources.</p>
      ) : null}
      {result.sources.length > 0 ? (
        <>
          <p class="eval-label">Cited sources</p>
          <ol class="eval-sources">
            {result.sources.map((source) => (
              <li key={source.chunk_id}>
                {source.document_url ? (
                  <a href={source.document_url} target="_blank" rel="noopener noreferrer">
                    {source.document_title}
                  </a>
                ) : (
                  source.document_title
                )}
              </li>
            ))}
          </ol>
        </>
      ) : (
        <p class="eval-muted">No source cited.</p>
      )}
      <dl class="eval-scores">
        {QUESTION_METRICS.map(([key, label]) => (
          <div key={key}>
            <dt>{label}</dt>
            <dd>{formatRatio(metrics?.[key])}</dd>
          </div>
        ))}
        <div>
          <dt>Latency</dt>
          <dd>{result.latency_ms === null ? '—' : formatLatency(result.latency_ms)}</dd>
        </div>
      </dl>
    </>
  );
}

/** What the question expected, when the set said. */
export function Expectations({ item }: { readonly item: EvaluationResult }) {
  if (!item.expected_answer && !item.expected_sources?.length) return null;
  return (
    <div class="eval-expected">
      {item.expected_answer ? (
        <p>
          <span class="eval-label">Expected answer:</span> {item.expected_answer}
        </p>
      ) : null}
      {item.expected_sources?.length ? (
        <p>
          <span class="eval-label">Expected sources:</span> {item.expected_sources.join(', ')}
        </p>
      ) : null}
    </div>
  );
}
