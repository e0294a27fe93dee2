/**
 * Pseudo-relevance feedback in the manner of RM3 (Lavrenko and Croft's
 * relevance model, interpolated with the query as Anserini and Indri do):
 * the best passages of a first search are taken as relevant, the words they
 * use most become extra query terms, and a second BM25 search runs with
 * them. It finds passages that answer in other words than the query's,
 * needs no model, and costs one more BM25 search over a few more terms.
 */
import { ENGLISH_STOPWORDS, stem, words } from './text-analysis';

/** A feedback passage: its words and how strongly the first search ranked it (> 0). */
export interface FeedbackPassage {
  readonly text: string;
  readonly score: number;
}

/**
 * An expansion word and its weight, where each word of the query weighs 1.
 * The retrieval port's `WeightedTerm` has this shape; it is restated because
 * the domain imports no ports.
 */
export interface ExpansionTerm {
  readonly word: string;
  readonly weight: number;
}

export interface FeedbackOptions {
  /** How many of the first search's best passages are read (0: no feedback). */
  readonly passages: number;
  /** How many expansion terms are kept, at most: bounds the second search's cost. */
  readonly terms: number;
  /**
   * RM3's interpolation weight of the original query, in (0, 1]: the final
   * query is `originalWeight · query + (1 − originalWeight) · feedback`,
   * each side's term weights summing to 1. 1 turns feedback off.
   */
  readonly originalWeight: number;
}

/**
 * The expansion terms of `query` from `passages` (best first): the relevance
 * model `p(t | R) = Σ_d p(t | d) · p(d)`, with `p(t | d)` a term's share of
 * the passage's terms and `p(d)` the passage's score over the scores summed,
 * over the first `options.passages`; the `options.terms` most likely terms,
 * renormalised, scaled so that the query's own terms keep weight 1 each:
 * `weight = (1 − α) / α · |q| · p(t | R)`, α the original weight and |q| the
 * number of the query's terms. A term already in the query is kept (its
 * weight adds to the query's), as RM3's interpolation does.
 * Terms are the index's (text-analysis.ts: no stopwords, Porter stems); each
 * comes back as the word it was most often written as in the passages, so
 * either index analyses it back to the same term. Words of one character and
 * bare numbers are left out: they carry little topic and much noise. Ties go
 * to the term first met, so the result is deterministic.
 *
 * @example
 * feedbackTerms('glacier melt', [{ text: 'Glaciers retreat as ice melts', score: 2 }], { passages: 1, terms: 2, originalWeight: 0.5 });
 * // → [{ word: 'glaciers', weight: 1 }, { word: 'retreat', weight: 1 }]
 */
export function feedbackTerms(
  query: string,
  passages: readonly FeedbackPassage[],
  options: FeedbackOptions,
): ExpansionTerm[] {
  const queryLength = analyzedLength(query);
  const read = passages.slice(0, Math.max(0, options.passages)).filter((p) => p.score > 0);
  if (queryLength === 0 || read.length === 0 || options.terms < 1) return [];
  if (!(options.originalWeight > 0 && options.originalWeight < 1)) return [];
  const totalScore = read.reduce((sum, passage) => sum + passage.score, 0);

  const relevance = new Map<string, number>();
  const spellings = new Map<string, Map<string, number>>();
  for (const passage of read) {
    const counts = new Map<string, number>();
    let length = 0;
    for (const word of words(passage.text)) {
      if (ENGLISH_STOPWORDS.has(word)) continue;
      length += 1;
      if (!isTopical(word)) continue;
      const term = stem(word);
      counts.set(term, (counts.get(term) ?? 0) + 1);
      const written = spellings.get(term) ?? new Map<string, number>();
      written.set(word, (written.get(word) ?? 0) + 1);
      spellings.set(term, written);
    }
    const passageWeight = passage.score / totalScore;
    for (const [term, count] of counts) {
      relevance.set(term, (relevance.get(term) ?? 0) + (count / length) * passageWeight);
    }
  }

  const kept = [...relevance.entries()]
    .map(([term, value], order) => ({ term, value, order }))
    .sort((a, b) => b.value - a.value || a.order - b.order)
    .slice(0, options.terms);
  const keptTotal = kept.reduce((sum, entry) => sum + entry.value, 0);
  if (keptTotal === 0) return [];
  const scale = ((1 - options.originalWeight) / options.originalWeight) * queryLength;
  return kept.map(({ term, value }) => ({
    word: mostWritten(spellings.get(term)) ?? term,
    weight: (scale * value) / keptTotal,
  }));
}

/** How many index terms the query has (a repeated word counts each time, as BM25 counts it). */
function analyzedLength(query: string): number {
  let count = 0;
  for (const word of words(query)) if (!ENGLISH_STOPWORDS.has(word)) count += 1;
  return count;
}

/** At least two characters and at least one letter. */
function isTopical(word: string): boolean {
  return word.length > 1 && /\p{L}/u.test(word);
}

/** The spelling seen most often; the first seen on a tie. */
function mostWritten(spellings: ReadonlyMap<string, number> | undefined): string | undefined {
  let best: string | undefined;
  let bestCount = 0;
  for (const [word, count] of spellings ?? []) {
    if (count > bestCount) {
      best = word;
      bestCount = count;
    }
  }
  return best;
}
