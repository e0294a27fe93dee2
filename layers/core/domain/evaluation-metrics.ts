/**
 * The evaluation metrics (issue 11 item 5), computed offline and
 * deterministically from an answer, its sources and the expectations: no
 * model judges anything. docs/evaluations.md states each definition in
 * words; this module is the reference, and test/unit/domain/evaluation-metrics.test.ts
 * checks it against hand-computed cases.
 */
import { stripCitations } from './citations';
import type {
  EvaluationItem,
  EvaluationTotals,
  QuestionMetrics,
  QuestionResult,
} from './evaluation';
import { isNoAnswer } from './no-answer';
import { analyze } from './retrieval/text-analysis';
import { UPLOADED_TITLE_SEPARATOR } from './uploaded-file';

/**
 * P143: a sentence is supported when at least this share of its distinct
 * content terms occur in one cited chunk.
 */
export const SUPPORT_THRESHOLD = 0.6;

/** A source as the metrics see it: where it comes from, and its text when cited. */
export interface ScoredSource {
  /** Absent on results recorded before sources named their document. */
  readonly document_id?: string;
  readonly document_title: string;
  readonly document_url: string | null;
  readonly chunk_text?: string;
}

/** What one answered question is scored from. */
export interface ScoringInput {
  readonly response: string;
  /** The chunks retrieval offered the answerer (the `sources` event), in rank order. */
  readonly retrieved: readonly ScoredSource[];
  /** The chunks the answer cites (the Query result's `sources`), with their text. */
  readonly cited: readonly ScoredSource[];
  readonly expectedSources: readonly string[] | null;
  readonly expectedAnswer: string | null;
  /** The service's own "nothing indexed" answer, besides NO_ANSWER_TEXT. */
  readonly noSourcesAnswer: string;
}

/** A document's key: its URL, or its title when it has none (uploads). */
export function documentKey(source: ScoredSource): string {
  return source.document_url ?? source.document_title;
}

/**
 * An expected source names a document by its URL, its title or its id; an
 * uploaded file also by its file name alone (its title may add its heading:
 * `express.md — Express`).
 */
export function matches(expected: string, source: ScoredSource): boolean {
  return (
    expected === source.document_url ||
    expected === source.document_title ||
    expected === source.document_id ||
    source.document_title.startsWith(`${expected}${UPLOADED_TITLE_SEPARATOR}`)
  );
}

/** The distinct documents of `sources`, in order of first appearance. */
export function distinctDocuments(sources: readonly ScoredSource[]): ScoredSource[] {
  const seen = new Set<string>();
  return sources.filter((source) => {
    const key = documentKey(source);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const share = (part: number, whole: number): number | null => (whole === 0 ? null : part / whole);

/** Share of the expected documents that occur among `sources`; `null` without expectations. */
function recallOf(expected: readonly string[] | null, sources: readonly ScoredSource[]) {
  if (!expected || expected.length === 0) return null;
  const distinct = [...new Set(expected)];
  return share(
    distinct.filter((e) => sources.some((source) => matches(e, source))).length,
    distinct.length,
  );
}

export { isNoAnswer };

const SENTENCES = new Intl.Segmenter('en', { granularity: 'sentence' });

/** The answer's sentences (ICU sentence boundaries), citation markers removed. */
export function sentencesOf(text: string): string[] {
  return [...SENTENCES.segment(stripCitations(text))]
    .map((part) => part.segment.trim())
    .filter((sentence) => sentence.length > 0);
}

/** Content terms: lowercased words, English stopwords dropped, Porter-stemmed (the BM25 analyzer). */
export function contentTerms(text: string): Set<string> {
  return new Set(analyze(text));
}

/**
 * P143: how many sentences of `response` have content terms, and how many of
 * those have ≥ SUPPORT_THRESHOLD of their distinct terms in one cited chunk.
 */
export function sentenceSupport(
  response: string,
  citedChunks: readonly string[],
): { sentences: number; supported: number } {
  const chunkTerms = citedChunks.map(contentTerms);
  let sentences = 0;
  let supported = 0;
  for (const sentence of sentencesOf(response)) {
    const terms = contentTerms(sentence);
    if (terms.size === 0) continue;
    sentences += 1;
    const best = Math.max(
      0,
      ...chunkTerms.map((chunk) => [...terms].filter((term) => chunk.has(term)).length),
    );
    if (best / terms.size >= SUPPORT_THRESHOLD) supported += 1;
  }
  return { sentences, supported };
}

/** SQuAD-style token F1 over content terms counted with multiplicity. */
export function tokenF1(answer: string, expected: string): number | null {
  const expectedTerms = analyze(stripCitations(expected));
  if (expectedTerms.length === 0) return null;
  const answerTerms = analyze(stripCitations(answer));
  if (answerTerms.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const term of expectedTerms) counts.set(term, (counts.get(term) ?? 0) + 1);
  let overlap = 0;
  for (const term of answerTerms) {
    const left = counts.get(term) ?? 0;
    if (left > 0) {
      overlap += 1;
      counts.set(term, left - 1);
    }
  }
  if (overlap === 0) return 0;
  const precision = overlap / answerTerms.length;
  const recall = overlap / expectedTerms.length;
  return (2 * precision * recall) / (precision + recall);
}

/** Every metric of one answered question (docs/evaluations.md). */
export function scoreAnswer(input: ScoringInput): QuestionMetrics {
  const expected = input.expectedSources;
  const citedDocuments = distinctDocuments(input.cited);
  const noAnswer = isNoAnswer(input.response, input.noSourcesAnswer);
  const support = noAnswer
    ? { sentences: 0, supported: 0 }
    : sentenceSupport(
        input.response,
        input.cited.map((source) => source.chunk_text ?? ''),
      );
  return {
    retrieval_recall: recallOf(expected, input.retrieved),
    citation_precision:
      expected && expected.length > 0
        ? share(
            citedDocuments.filter((doc) => expected.some((e) => matches(e, doc))).length,
            citedDocuments.length,
          )
        : null,
    citation_recall: recallOf(expected, input.cited),
    answer_support: noAnswer ? null : share(support.supported, support.sentences),
    answer_sentences: support.sentences,
    supported_sentences: support.supported,
    answer_f1: input.expectedAnswer === null ? null : tokenF1(input.response, input.expectedAnswer),
    no_answer: noAnswer,
  };
}

/** Nearest-rank percentile (`p` in 0–100) of `values`; `null` when empty. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? null;
}

function mean(values: readonly (number | null)[]): number | null {
  const defined = values.filter((value): value is number => value !== null);
  if (defined.length === 0) return null;
  return defined.reduce((sum, value) => sum + value, 0) / defined.length;
}

/** Rounds a metric for storage and display: 4 decimals (cost: 6). */
const round = (value: number | null, decimals = 4): number | null =>
  value === null ? null : Math.round(value * 10 ** decimals) / 10 ** decimals;

/** The run's totals from every question's result (questions without one count as failed). */
export function evaluationTotals(items: readonly EvaluationItem[]): EvaluationTotals {
  const results = items.map((item) => item.result);
  const answered = results.filter(
    (result): result is QuestionResult & { metrics: QuestionMetrics } =>
      result?.status === 'answered' && result.metrics !== null,
  );
  const metrics = answered.map((result) => result.metrics);
  const sentences = metrics.reduce((sum, m) => sum + m.answer_sentences, 0);
  const supported = metrics.reduce((sum, m) => sum + m.supported_sentences, 0);
  const latencies = answered
    .map((result) => result.latency_ms)
    .filter((value): value is number => value !== null);
  const sum = (pick: (result: QuestionResult) => number) =>
    results.reduce((total, result) => total + (result ? pick(result) : 0), 0);
  return {
    questions: items.length,
    answered: answered.length,
    failed: items.length - answered.length,
    no_answer: metrics.filter((m) => m.no_answer).length,
    retrieval_recall: round(mean(metrics.map((m) => m.retrieval_recall))),
    citation_precision: round(mean(metrics.map((m) => m.citation_precision))),
    citation_recall: round(mean(metrics.map((m) => m.citation_recall))),
    answer_support: round(share(supported, sentences)),
    answer_f1: round(mean(metrics.map((m) => m.answer_f1))),
    latency_ms: { p50: percentile(latencies, 50), p95: percentile(latencies, 95) },
    tokens_input: sum((result) => result.tokens_input),
    tokens_output: sum((result) => result.tokens_output),
    cost_usd: round(
      sum((result) => result.cost_usd),
      6,
    ) as number,
  };
}

/** Per-question metrics as stored: rounded like the totals. */
export function roundedMetrics(metrics: QuestionMetrics): QuestionMetrics {
  return {
    ...metrics,
    retrieval_recall: round(metrics.retrieval_recall),
    citation_precision: round(metrics.citation_precision),
    citation_recall: round(metrics.citation_recall),
    answer_support: round(metrics.answer_support),
    answer_f1: round(metrics.answer_f1),
  };
}
