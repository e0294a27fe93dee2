/**
 * Citation precision and recall at the document level (issue 10, item 4):
 * what an answer cites, against the documents judged relevant to its
 * question. Used for SciFact (qrels) and the project's question set alike.
 */
import { citedSourceNumbers } from '../../layers/core/domain/citations';
import { isNoAnswer } from './citation-metrics';

/** One answer as a reader gets it: the text, and the document of each source `[n]` resolves to. */
export interface CitingAnswer {
  readonly questionId: string;
  readonly answer: string;
  /** `sources[n - 1]` is what `[n]` cites. */
  readonly sourceDocuments: readonly string[];
  /** Documents that support an answer; empty when nothing does. */
  readonly relevant: readonly string[];
}

export interface CitationScores {
  readonly questions: number;
  readonly answerable: number;
  /** Distinct documents cited, summed over answers to answerable questions. */
  readonly citedDocuments: number;
  readonly relevantCited: number;
  /** Relevant documents of answerable questions. */
  readonly relevantDocuments: number;
  /** relevantCited / citedDocuments (micro). */
  readonly precision: number;
  /** relevantCited / relevantDocuments (micro). */
  readonly recall: number;
  /** Mean over answerable questions of each answer's recall. */
  readonly meanRecall: number;
  /** Answers to answerable questions that cite nothing / answer "couldn't find". */
  readonly answerableNoAnswer: number;
  /** Unanswerable questions answered "couldn't find" with no source. */
  readonly honestNoAnswer: number;
  readonly unanswerable: number;
  /** Markers that resolve to no listed source, over every answer. */
  readonly unresolvedMarkers: number;
  /** Sources listed but never cited, over every answer. */
  readonly uncitedSources: number;
}

const share = (part: number, whole: number) => (whole === 0 ? Number.NaN : part / whole);

export function citedDocuments(answer: CitingAnswer): Set<string> {
  const numbers = citedSourceNumbers(
    answer.answer,
    answer.sourceDocuments.map((_, index) => index + 1),
  );
  return new Set(numbers.map((number) => answer.sourceDocuments[number - 1] ?? ''));
}

/** Every `[n]` (also `[1, 2]`) in the text. */
function markerNumbers(text: string): number[] {
  return [...text.matchAll(/\[(\d{1,4}(?:\s*,\s*\d{1,4})*)\]/g)].flatMap((match) =>
    (match[1] ?? '').split(/\s*,\s*/).map(Number),
  );
}

export function citationScores(answers: readonly CitingAnswer[]): CitationScores {
  let citedTotal = 0;
  let relevantCited = 0;
  let relevantTotal = 0;
  let recallSum = 0;
  let answerable = 0;
  let answerableNoAnswer = 0;
  let honestNoAnswer = 0;
  let unresolvedMarkers = 0;
  let uncitedSources = 0;
  for (const answer of answers) {
    const cited = citedDocuments(answer);
    const numbers = markerNumbers(answer.answer);
    unresolvedMarkers += numbers.filter((n) => n < 1 || n > answer.sourceDocuments.length).length;
    uncitedSources += answer.sourceDocuments.filter(
      (_, index) => !numbers.includes(index + 1),
    ).length;
    const relevant = new Set(answer.relevant);
    if (relevant.size === 0) {
      if (isNoAnswer(answer.answer) && answer.sourceDocuments.length === 0) honestNoAnswer += 1;
      continue;
    }
    answerable += 1;
    if (cited.size === 0) answerableNoAnswer += 1;
    const hits = [...cited].filter((document) => relevant.has(document)).length;
    citedTotal += cited.size;
    relevantCited += hits;
    relevantTotal += relevant.size;
    recallSum += hits / relevant.size;
  }
  const unanswerable = answers.length - answerable;
  return {
    questions: answers.length,
    answerable,
    citedDocuments: citedTotal,
    relevantCited,
    relevantDocuments: relevantTotal,
    precision: share(relevantCited, citedTotal),
    recall: share(relevantCited, relevantTotal),
    meanRecall: share(recallSum, answerable),
    answerableNoAnswer,
    honestNoAnswer,
    unanswerable,
    unresolvedMarkers,
    uncitedSources,
  };
}
