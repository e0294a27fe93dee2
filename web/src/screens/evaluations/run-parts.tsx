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

/** What the pass rate card says under its figure. */
function passRateHint(totals: Totals): string {
  if (totals.judged === undefined) return 'This run was scored before verdicts existed';
  if (totals.judged === 0) return 'No question had an expected answer or source to judge by';
  return `${formatNumber(totals.right ?? 0)} of ${formatNumber(totals.judged)} judged questions right`;
}

/** The run's totals as cards (docs/evaluations.md, "Per run"). */
export function TotalsCards({ totals }: { readonly totals: Totals }) {
  return (
    <dl class="eval-totals">
      <Card label="Pass rate" value={formatRatio(totals.pass_rate)} hint={passRateHint(totals)} />
      <Card label="Answered" value={`${totals.answered} of ${totals.questions}`} />
      <Card label="No answer" value={formatNumber(totals.no_answer)} />
      <Card label="Failed" value={formatNumber(totals.failed)} />
      <Card
        label="Answer support"
        value={formatRatio(totals.answer_support)}
        hint="Sentences backed by a cited passage: groundedness, not correctness"
      />
      <Card
        label="Answer F1"
        value={formatRatio(totals.answer_f1)}
        hint="Words shared with the expected answers, not correctness"
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

/**
 * Which figure says what, in words, beside the totals: the pass rate is the
 * one about being right; the others can read well on a wrong answer.
 */
export function MetricsExplained() {
  return (
    <div class="eval-explained">
      <h3 id="figures-meaning">What these figures mean</h3>
      <ul aria-labelledby="figures-meaning">
        <li>
          <strong>Pass rate</strong> is the share of judged questions answered right: the answer
          says the expected answer (every figure in it included), cites an expected source, and does
          not give up. Questions without an expected answer or source are not judged.
        </li>
        <li>
          <strong>Answer support</strong> measures groundedness, not correctness: it counts the
          answer’s sentences that a cited passage backs up. A wrong answer that quotes a passage
          word for word still scores 100 %.
        </li>
        <li>
          <strong>Answer F1</strong> counts words shared with the expected answer: a right answer in
          other words, or a long one, scores low; a wrong one reusing the words scores high.
        </li>
        <li>
          <strong>Retrieval and citation recall</strong> say whether the expected documents were
          found and cited, not whether the answer is right.
        </li>
      </ul>
    </div>
  );
}

const OUTCOME_LABELS = { right: 'Right', wrong: 'Wrong', unjudged: 'Not judged' } as const;

/** A question's verdict: right, wrong or not judged, and each check's reason. */
export function VerdictNote({ verdict }: { readonly verdict: EvaluationResult['verdict'] }) {
  if (!verdict) return null;
  return (
    <div class="eval-verdict" data-outcome={verdict.outcome}>
      <p class="eval-verdict__outcome">
        <span class="eval-label">Verdict:</span>{' '}
        <strong class="eval-verdict__badge">{OUTCOME_LABELS[verdict.outcome]}</strong>
      </p>
      {verdict.checks.length > 0 ? (
        <ul class="eval-verdict__checks" aria-label="Why">
          {verdict.checks.map((check) => (
            <li key={check.check} data-passed={check.passed ? 'true' : 'false'}>
              <span class="eval-verdict__mark">{check.passed ? 'Passed:' : 'Failed:'}</span>{' '}
              {check.reason}
            </li>
          ))}
        </ul>
      ) : (
        <p class="eval-muted eval-verdict__none">
          No expected answer or source was given, so right or wrong cannot be told.
        </p>
      )}
    </div>
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
      <VerdictNote verdict={item.verdict} />
      <p class="eval-answer">{result.response}</p>
      {metrics?.no_answer ? (
        <p class="eval-muted">The agent found no answer in its sources.</p>
      ) : null}
      {result.sources.length > 0 ? (
        <>
          <p class="eval-label">Cited sources</p>
          <ol class="eval-sources" aria-label="Cited sources">
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
