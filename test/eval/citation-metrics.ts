/**
 * Scoring answers' citations against the documents that support them
 * (issue 3: answer citation precision). Pure: test/eval/citation-metrics.test.ts
 * checks it on hand-made answers.
 */
import { citedSourceNumbers } from '../../layers/core/domain/citations';
import { NO_ANSWER_TEXT } from '../../layers/core/domain/no-answer';

/** One question's answer, with the document behind each numbered source it was offered. */
export interface AnsweredQuestion {
  readonly questionId: string;
  readonly answer: string;
  /** Source `n` (cited as `[n]`) is a chunk of `documentId`. */
  readonly sources: readonly { readonly number: number; readonly documentId: string }[];
  /** Documents that support an answer; empty when nothing in the collection does. */
  readonly supportedBy: readonly string[];
}

export interface QuestionScore {
  readonly questionId: string;
  /** Distinct source numbers the answer cites (offered ones only). */
  readonly citations: number;
  /** Of those, the ones that are a chunk of a supporting document. */
  readonly supportedCitations: number;
  readonly noAnswer: boolean;
}

export interface CitationMetrics {
  readonly answerable: number;
  readonly unanswerable: number;
  /** Citations in the answers to answerable questions. */
  readonly citations: number;
  readonly supportedCitations: number;
  /** supportedCitations / citations (NaN when nothing was cited). */
  readonly precision: number;
  /** Mean over answerable questions that cite anything of their own precision. */
  readonly macroPrecision: number;
  /** Share of answerable questions whose answer cites at least one supporting document. */
  readonly supportedAnswerRate: number;
  /** Share of answerable questions answered with the honest "couldn't find". */
  readonly answerableNoAnswerRate: number;
  /** Share of unanswerable questions answered with the honest "couldn't find". */
  readonly honestNoAnswerRate: number;
  readonly perQuestion: readonly QuestionScore[];
}

/** The answerers' honest non-answer (domain/no-answer), possibly cut short by `max_tokens`. */
export function isNoAnswer(answer: string): boolean {
  const text = answer.trim().replace(/…$/, '');
  return text.length > 0 && NO_ANSWER_TEXT.startsWith(text);
}

export function scoreQuestion(answered: AnsweredQuestion): QuestionScore {
  const documentOf = new Map(answered.sources.map((source) => [source.number, source.documentId]));
  const cited = citedSourceNumbers(answered.answer, documentOf.keys());
  const supporting = new Set(answered.supportedBy);
  const supportedCitations = cited.filter((n) => supporting.has(documentOf.get(n) ?? '')).length;
  return {
    questionId: answered.questionId,
    citations: cited.length,
    supportedCitations,
    noAnswer: isNoAnswer(answered.answer),
  };
}

const share = (part: number, whole: number) => (whole === 0 ? Number.NaN : part / whole);

export function citationMetrics(answers: readonly AnsweredQuestion[]): CitationMetrics {
  const perQuestion = answers.map(scoreQuestion);
  const answerable = perQuestion.filter((_, i) => (answers[i]?.supportedBy.length ?? 0) > 0);
  const unanswerable = perQuestion.filter((_, i) => (answers[i]?.supportedBy.length ?? 0) === 0);
  const citations = answerable.reduce((sum, score) => sum + score.citations, 0);
  const supportedCitations = answerable.reduce((sum, score) => sum + score.supportedCitations, 0);
  const citing = answerable.filter((score) => score.citations > 0);
  return {
    answerable: answerable.length,
    unanswerable: unanswerable.length,
    citations,
    supportedCitations,
    precision: share(supportedCitations, citations),
    macroPrecision: share(
      citing.reduce((sum, score) => sum + score.supportedCitations / score.citations, 0),
      citing.length,
    ),
    supportedAnswerRate: share(
      answerable.filter((score) => score.supportedCitations > 0).length,
      answerable.length,
    ),
    answerableNoAnswerRate: share(
      answerable.filter((score) => score.noAnswer).length,
      answerable.length,
    ),
    honestNoAnswerRate: share(
      unanswerable.filter((score) => score.noAnswer).length,
      unanswerable.length,
    ),
    perQuestion,
  };
}
