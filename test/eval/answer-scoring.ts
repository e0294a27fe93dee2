/**
 * How the answers eval scores one answer, kept pure so that
 * test/eval/answer-scoring.test.ts can check it by hand:
 *
 * - right: the answer contains one of the question's key phrases, compared
 *   after the citation markers (`[1]`, `[2, 3]`), Markdown code and emphasis
 *   marks and backslash escapes are taken out, case folded and whitespace
 *   collapsed; a phrase is what any right answer must say (`--location`,
 *   `git reset --soft`, `ServerAliveInterval`);
 * - abstained: the answer is the service's "couldn't find" or "no indexed
 *   sources" text;
 * - latency: percentiles of the client-measured milliseconds.
 */
import { NO_ANSWER_TEXT } from '../../layers/core/domain/no-answer';
import { NO_SOURCES_ANSWER } from '../../layers/core/use-cases/query/answer-query';
import type { LoadedDocument } from './answer-documents';
import type { AnswerQuestion } from './answer-questions';

/** Text as the comparison reads it: no markers, no Markdown marks, one case, single spaces. */
export function comparableText(text: string): string {
  return text
    .replace(/\[\d+(?:\s*,\s*\d+)*\]/g, ' ')
    .replace(/\\([\\`*_{}[\]()#+\-.!<>|~])/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/`+/g, '')
    .replace(/\*\*/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

/** The first key phrase the answer contains, or undefined. */
export function matchedPhrase(answer: string, phrases: readonly string[]): string | undefined {
  const text = comparableText(answer);
  return phrases.find((phrase) => {
    const wanted = comparableText(phrase);
    return wanted !== '' && text.includes(wanted);
  });
}

/** Whether the answer is one of the service's two non-answers (model answers may add a line after it). */
export function isAbstention(answer: string): boolean {
  const text = answer.trim();
  return text.startsWith(NO_ANSWER_TEXT) || text.startsWith(NO_SOURCES_ANSWER);
}

/** The nearest-rank percentile (0 < p ≤ 100) of `values`; NaN when there are none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? Number.NaN;
}

/**
 * Key phrases that are not in their document's text: each is a bug in the
 * question file (a question no answer could get right), so the eval refuses
 * to run with any.
 */
export function phrasesNotInDocuments(
  questions: readonly AnswerQuestion[],
  documents: readonly Pick<LoadedDocument, 'spec' | 'text'>[],
): string[] {
  const texts = new Map(
    documents.map((document) => [document.spec.name, comparableText(document.text)]),
  );
  const problems: string[] = [];
  for (const question of questions) {
    if (question.document === null) continue;
    const text = texts.get(question.document);
    if (text === undefined) continue;
    for (const phrase of question.phrases) {
      if (!text.includes(comparableText(phrase))) {
        problems.push(`${question.id}: "${phrase}" is not in ${question.document}`);
      }
    }
  }
  return problems;
}

/** One question's outcome, as the per-question JSON records it. */
export interface ScoredAnswer {
  readonly id: string;
  readonly question: string;
  /** The expected document's file name; null for a question nothing answers. */
  readonly expected_document: string | null;
  readonly category: string;
  readonly split: string;
  readonly phrases: readonly string[];
  readonly right: boolean;
  readonly matched_phrase: string | null;
  readonly cited: boolean;
  readonly abstained: boolean;
  readonly response: string;
  readonly cited_documents: readonly string[];
  readonly latency_ms: number;
  /** Whether a key phrase is in the text of a cited source (the answer had it at hand). */
  readonly phrase_in_sources: boolean;
  /** Whether a key phrase is in the text of one of the search's best chunks (retrieval found it). */
  readonly phrase_in_search: boolean;
  /** The expected document's place (from 1) among the search's top 5 documents' chunks; null when absent. */
  readonly hit_rank: number | null;
}

export interface AnswerSummary {
  readonly asked: number;
  readonly right: number;
  readonly cited: number;
  readonly abstained: number;
  readonly hit1: number;
  readonly hit5: number;
  readonly p50: number;
  readonly p95: number;
}

export function summarize(answers: readonly ScoredAnswer[]): AnswerSummary {
  const count = (test: (answer: ScoredAnswer) => boolean) => answers.filter(test).length;
  const latencies = answers.map((answer) => answer.latency_ms);
  return {
    asked: answers.length,
    right: count((answer) => answer.right),
    cited: count((answer) => answer.cited),
    abstained: count((answer) => answer.abstained),
    hit1: count((answer) => answer.hit_rank === 1),
    hit5: count((answer) => answer.hit_rank !== null && answer.hit_rank <= 5),
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
  };
}
