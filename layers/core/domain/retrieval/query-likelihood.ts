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
import { type PassageSource, type PassageTerms, passageTerms } from './passage-terms';
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
  const wanted = new Set(queryTerms);
  const passages = candidates.map((candidate) =>
    wantedCounts(passageTerms(candidate.chunk), wanted),
  );
  let totalLength = 0;
  const occurrences = new Map<string, number>();
  for (const passage of passages) {
    totalLength += passage.length;
    for (const [term, count] of passage.counts) {
      occurrences.set(term, (occurrences.get(term) ?? 0) + count);
    }
  }
  if (totalLength === 0) return [];
  const { mu } = options;
  return candidates
    .map((candidate, index) => {
      const passage = passages[index] ?? { counts: new Map<string, number>(), length: 0 };
      let score = 0;
      for (const term of queryTerms) {
        const background = Math.max(occurrences.get(term) ?? 0, UNSEEN_OCCURRENCES) / totalLength;
        score += Math.log(
          ((passage.counts.get(term) ?? 0) + mu * background) / (passage.length + mu),
        );
      }
      return { candidate, index, score };
    })
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map(({ candidate, score }) => ({ ...candidate, score }));
}

/** How often each of `wanted`'s terms occurs in a passage, and the passage's length in terms. */
function wantedCounts(
  passage: PassageTerms,
  wanted: ReadonlySet<string>,
): { counts: Map<string, number>; length: number } {
  const counts = new Map<string, number>();
  passage.terms.forEach((term, index) => {
    if (wanted.has(term)) counts.set(term, passage.counts[index] ?? 0);
  });
  return { counts, length: passage.length };
}
