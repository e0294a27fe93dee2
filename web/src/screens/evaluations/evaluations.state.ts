import type { components } from '../../api/schema';

export type Evaluation = components['schemas']['Evaluation'];
export type EvaluationWithResults = components['schemas']['EvaluationWithResults'];
export type EvaluationList = components['schemas']['EvaluationList'];
export type EvaluationResult = EvaluationWithResults['results'][number];
export type Totals = NonNullable<Evaluation['totals']>;
export type QuestionMetrics = NonNullable<NonNullable<EvaluationResult['result']>['metrics']>;

export const EVALUATIONS_PATH = '/evaluations';
export const PAGE_SIZE = 20;
/** A run's results are read this many at a time (the API's largest page). */
export const RESULTS_PAGE = 200;

/** What the screen shows at an address under /evaluations. */
export type EvaluationsPage =
  | { readonly kind: 'list' }
  | { readonly kind: 'new' }
  | { readonly kind: 'compare' }
  | { readonly kind: 'run'; readonly id: string }
  | { readonly kind: 'missing' };

export function pageAt(path: string): EvaluationsPage {
  const parts = path.split('/').filter(Boolean).slice(1);
  if (parts.length === 0) return { kind: 'list' };
  const [first] = parts;
  if (parts.length > 1 || !first) return { kind: 'missing' };
  if (first === 'new') return { kind: 'new' };
  if (first === 'compare') return { kind: 'compare' };
  return /^eval_[0-9a-z]{26}$/.test(first) ? { kind: 'run', id: first } : { kind: 'missing' };
}

/** The list's agent filter and page, as the address holds them. */
export interface ListQuery {
  readonly agentId: string | null;
  readonly page: number;
}

export function listQueryOf(query: Record<string, string | undefined>): ListQuery {
  const agentId = query.agent_id?.startsWith('agt_') ? query.agent_id : null;
  const page = Number(query.page);
  return { agentId, page: Number.isInteger(page) && page >= 1 ? page : 1 };
}

export function listHref(query: ListQuery): string {
  const params = new URLSearchParams();
  if (query.agentId) params.set('agent_id', query.agentId);
  if (query.page > 1) params.set('page', String(query.page));
  const search = params.toString();
  return search ? `${EVALUATIONS_PATH}?${search}` : EVALUATIONS_PATH;
}

/** The comparison's runs, as the address holds them (`/evaluations/compare?a=…&b=…`). */
export function compareHref(agentId: string | null, a: string | null, b: string | null): string {
  const params = new URLSearchParams();
  if (agentId) params.set('agent_id', agentId);
  if (a) params.set('a', a);
  if (b) params.set('b', b);
  const search = params.toString();
  return `${EVALUATIONS_PATH}/compare${search ? `?${search}` : ''}`;
}

export function isRunning(run: Pick<Evaluation, 'status'>): boolean {
  return run.status === 'queued' || run.status === 'running';
}

/**
 * How often a running run is read: soon at first, then less often while
 * it does not move (×1.5, at most every 5 s), back to soon when a question
 * is done; a failed read waits what a 429 says, or 3 s.
 */
export const RUN_POLL = { firstMs: 1_000, maxMs: 5_000, factor: 1.5, retryMs: 3_000 } as const;

export function nextRunPoll(previousMs: number | null, moved: boolean): number {
  if (previousMs === null || moved) return RUN_POLL.firstMs;
  return Math.min(RUN_POLL.maxMs, Math.round(previousMs * RUN_POLL.factor));
}

/** "3 of 20 questions" (or "Waiting to start" before the worker takes it). */
export function progressSentence(
  run: Pick<Evaluation, 'status' | 'completed_count' | 'question_count'>,
): string {
  const unit = run.question_count === 1 ? 'question' : 'questions';
  if (run.status === 'queued') return `Waiting to start: 0 of ${run.question_count} ${unit}`;
  return `${run.completed_count} of ${run.question_count} ${unit}`;
}

export const STATUS_LABELS: Readonly<Record<Evaluation['status'], string>> = {
  queued: 'Queued',
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
};

/**
 * Why a run ended `failed`, in words: the plan's daily caps,
 * an organization gone, or an error of ours after the fifth try; the
 * service's own sentence (which counts the questions) follows.
 */
export function failureSentence(error: NonNullable<Evaluation['error']>): string {
  switch (error.code) {
    case 'daily_tokens':
      return "The organization's tokens for today ran out, so the run stopped. The questions answered before it are below; start the rest tomorrow or on a larger plan.";
    case 'daily_requests':
      return "The organization's requests for today ran out, so the run stopped. The questions answered before it are below; start the rest tomorrow or on a larger plan.";
    case 'internal_error':
      return 'The service could not finish this run after several tries. The questions answered before it stopped are below; start it again, and if it fails again, give support the run id.';
    default:
      return 'The run stopped before every question was asked. The questions answered before it are below.';
  }
}

/** Each total the comparison shows, with which way is better. */
export interface TotalRow {
  readonly label: string;
  readonly a: number | null;
  readonly b: number | null;
  readonly kind: 'ratio' | 'count' | 'ms' | 'usd';
  /** `higher`: a rise is better; `lower`: a fall is better; `none`: neither. */
  readonly better: 'higher' | 'lower' | 'none';
}

export function totalRows(a: Totals | null, b: Totals | null): TotalRow[] {
  const row = (
    label: string,
    read: (totals: Totals) => number | null,
    kind: TotalRow['kind'],
    better: TotalRow['better'],
  ): TotalRow => ({ label, a: a ? read(a) : null, b: b ? read(b) : null, kind, better });
  // Counts of two sets of different sizes say nothing better or worse: only that they changed.
  const sameSize = a !== null && b !== null && a.questions === b.questions;
  return [
    row('Questions', (t) => t.questions, 'count', 'none'),
    row('Answered', (t) => t.answered, 'count', sameSize ? 'higher' : 'none'),
    row('No answer', (t) => t.no_answer, 'count', sameSize ? 'lower' : 'none'),
    row('Failed', (t) => t.failed, 'count', sameSize ? 'lower' : 'none'),
    row('Pass rate', (t) => t.pass_rate ?? null, 'ratio', 'higher'),
    row('Answer support', (t) => t.answer_support, 'ratio', 'higher'),
    row('Answer F1', (t) => t.answer_f1, 'ratio', 'higher'),
    row('Retrieval recall', (t) => t.retrieval_recall, 'ratio', 'higher'),
    row('Citation recall', (t) => t.citation_recall, 'ratio', 'higher'),
    row('Citation precision', (t) => t.citation_precision, 'ratio', 'higher'),
    row('Latency p50', (t) => t.latency_ms.p50, 'ms', 'lower'),
    row('Latency p95', (t) => t.latency_ms.p95, 'ms', 'lower'),
    row('Tokens', (t) => t.tokens_input + t.tokens_output, 'count', 'none'),
    row('Cost', (t) => t.cost_usd, 'usd', 'lower'),
  ];
}

export type Change = 'better' | 'worse' | 'changed' | 'same' | 'not-comparable';

/** How the second value moved from the first, read with the row's direction. */
export function changeOf(a: number | null, b: number | null, better: TotalRow['better']): Change {
  if (a === null || b === null) return a === b ? 'same' : 'not-comparable';
  if (a === b) return 'same';
  if (better === 'none') return 'changed';
  return b > a === (better === 'higher') ? 'better' : 'worse';
}

/** The words beside a change, so it is never told by colour alone. */
export const CHANGE_LABELS: Readonly<Record<Change, string>> = {
  better: 'Better',
  worse: 'Worse',
  changed: 'Changed',
  same: 'Same',
  'not-comparable': 'Only in one run',
};

/** The per-question measures compared, each higher-is-better. */
export const QUESTION_METRICS = [
  ['answer_support', 'Answer support'],
  ['answer_f1', 'Answer F1'],
  ['retrieval_recall', 'Retrieval recall'],
  ['citation_recall', 'Citation recall'],
  ['citation_precision', 'Citation precision'],
] as const satisfies ReadonlyArray<readonly [keyof QuestionMetrics, string]>;

export interface QuestionPair {
  readonly question: string;
  readonly a: EvaluationResult | null;
  readonly b: EvaluationResult | null;
  /** The answer's text differs (or only one run answered it). */
  readonly answerChanged: boolean;
  /** The measures that moved, each with its direction. */
  readonly changes: ReadonlyArray<{ readonly label: string; readonly change: Change }>;
  /** The overall verdict for the row: worse if any measure fell, else better if any rose. */
  readonly verdict: Change;
}

const questionKey = (question: string) => question.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * Two runs' results side by side, question by question. Questions are
 * matched by their text (spaces and case aside), the nth copy of a
 * question with the nth copy in the other run; the first run's order,
 * then questions only the second run asked.
 */
export function pairQuestions(
  a: readonly EvaluationResult[],
  b: readonly EvaluationResult[],
): QuestionPair[] {
  const waiting = new Map<string, EvaluationResult[]>();
  for (const result of b) {
    const key = questionKey(result.question);
    waiting.set(key, [...(waiting.get(key) ?? []), result]);
  }
  const pairs: QuestionPair[] = [];
  for (const first of a) {
    const second = waiting.get(questionKey(first.question))?.shift() ?? null;
    pairs.push(pairOf(first.question, first, second));
  }
  for (const rest of waiting.values()) {
    for (const second of rest) pairs.push(pairOf(second.question, null, second));
  }
  return pairs;
}

function pairOf(
  question: string,
  a: EvaluationResult | null,
  b: EvaluationResult | null,
): QuestionPair {
  if (!a || !b) {
    return { question, a, b, answerChanged: true, changes: [], verdict: 'not-comparable' };
  }
  const changes: { label: string; change: Change }[] = [];
  const statusA = a.result?.status ?? 'failed';
  const statusB = b.result?.status ?? 'failed';
  if (statusA !== statusB) {
    changes.push({ label: 'Answered', change: statusB === 'answered' ? 'better' : 'worse' });
  }
  const noAnswerA = a.result?.metrics?.no_answer ?? false;
  const noAnswerB = b.result?.metrics?.no_answer ?? false;
  if (statusA === 'answered' && statusB === 'answered' && noAnswerA !== noAnswerB) {
    changes.push({ label: 'Found an answer', change: noAnswerB ? 'worse' : 'better' });
  }
  for (const [key, label] of QUESTION_METRICS) {
    const change = changeOf(
      a.result?.metrics?.[key] ?? null,
      b.result?.metrics?.[key] ?? null,
      'higher',
    );
    if (change !== 'same') changes.push({ label, change });
  }
  const answerChanged = (a.result?.response ?? null) !== (b.result?.response ?? null);
  const verdict = changes.some((entry) => entry.change === 'worse')
    ? 'worse'
    : changes.some((entry) => entry.change === 'better')
      ? 'better'
      : changes.length > 0 || answerChanged
        ? 'changed'
        : 'same';
  return { question, a, b, answerChanged, changes, verdict };
}

/** "2 better, 1 worse, 3 the same": the comparison in one line. */
export function pairsSummary(pairs: readonly QuestionPair[]): string {
  const counts = new Map<Change, number>();
  for (const pair of pairs) counts.set(pair.verdict, (counts.get(pair.verdict) ?? 0) + 1);
  const parts: string[] = [];
  const add = (change: Change, words: string) => {
    const value = counts.get(change);
    if (value) parts.push(`${value} ${words}`);
  };
  add('better', 'better');
  add('worse', 'worse');
  add('changed', 'changed');
  add('same', 'the same');
  add('not-comparable', 'in one run only');
  const unit = pairs.length === 1 ? 'question' : 'questions';
  return `${pairs.length} ${unit}: ${parts.join(', ') || 'none'}.`;
}
