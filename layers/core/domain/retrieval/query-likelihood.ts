/**
 * Query likelihood with Dirichlet smoothing (Zhai and Lafferty, 2001), as
 * one more ranking for the hybrid's fusion: a passage scores
 * `Σ_{t ∈ query} log((tf(t) + μ · p(t | C)) / (|passage| + μ))`, the
 * log-probability that its smoothed language model writes the query.
 * Unlike BM25 it charges every query term a passage lacks (a missing term
 * still costs `log(μ p / (|passage| + μ))`), so it prefers passages that
 * cover more of the query, and short ones that say it without padding. It
 * re-scores the fused candidates only, from their own text, so both
 * retrieval adapters rank alike and no index changes: the collection model
 * `p(t | C)` is estimated from those candidates too (a term's share of all
 * their terms), which also makes a term common among them count less.
 */
import { occurrencesOfNumber, type PassageSource, passageTerms } from './passage-terms';
import { analyze } from './text-analysis';

/**
 * What the re-scoring reads of a candidate: the words BM25 reads (title and
 * text), counted once per chunk id (passage-terms.ts).
 */
export interface LikelihoodCandidate {
  readonly chunk: PassageSource;
}

export interface LikelihoodOptions {
  /** Dirichlet's μ: how many words of the collection model smooth a passage's own. */
  readonly mu: number;
}

/**
 * A term none of the candidates holds: counted as half an occurrence, so its
 * probability is not 0 (every candidate pays the same for it, the order is
 * unchanged).
 */
const UNSEEN_OCCURRENCES = 0.5;

/**
 * `candidates` ordered by query likelihood (best first, ties in the order
 * given), each with its log-likelihood as score. Empty when the query has no
 * index terms.
 *
 * @example
 * queryLikelihoodRanking('glacier melt', fusedTop100, { mu: 20 });
 */
export function queryLikelihoodRanking<T extends LikelihoodCandidate>(
  query: string,
  candidates: readonly T[],
  options: LikelihoodOptions,
): T[] {
  const queryTerms = analyze(query);
  if (queryTerms.length === 0 || candidates.length === 0) return [];
  const distinct = [...new Set(queryTerms)];
  // counts[i][j]: how often the query's j-th distinct term occurs in candidate i.
  const passages = candidates.map((candidate) => passageTerms(candidate.chunk));
  // The query's terms are numbered once per numbering (all candidates share one, but for a rare renumbering).
  let numbering: ReadonlyMap<string, number> | undefined;
  let numbers: (number | undefined)[] = [];
  const counts = passages.map((passage) => {
    if (passage.dictionary !== numbering) {
      numbering = passage.dictionary;
      numbers = distinct.map((term) => passage.dictionary.get(term));
    }
    return numbers.map((id) => (id === undefined ? 0 : occurrencesOfNumber(passage, id)));
  });
  let totalLength = 0;
  const inCandidates = new Array<number>(distinct.length).fill(0);
  passages.forEach((passage, i) => {
    totalLength += passage.length;
    distinct.forEach((_, j) => {
      inCandidates[j] = (inCandidates[j] ?? 0) + (counts[i]?.[j] ?? 0);
    });
  });
  if (totalLength === 0) return [];
  const { mu } = options;
  const background = inCandidates.map((count) => Math.max(count, UNSEEN_OCCURRENCES) / totalLength);
  // Each of the query's terms in its order (a repeated one counts each time).
  const termIndexes = queryTerms.map((term) => distinct.indexOf(term));
  return candidates
    .map((candidate, index) => {
      const length = passages[index]?.length ?? 0;
      let score = 0;
      for (const j of termIndexes) {
        score += Math.log(((counts[index]?.[j] ?? 0) + mu * (background[j] ?? 0)) / (length + mu));
      }
      return { candidate, index, score };
    })
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map(({ candidate, score }) => ({ ...candidate, score }));
}
