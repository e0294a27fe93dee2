/**
 * Combining and re-ordering search results for the retrieval strategies, as pure
 * functions over scored chunk lists:
 *
 * - `hybrid`: `reciprocalRankFusion` of the k-NN and BM25 rankings;
 * - `mmr`: `maximalMarginalRelevance` over the fused candidates, trading some
 *   relevance for chunks that do not repeat each other;
 * - `rerank`: `convexCombinationRerank` of the fused candidates, re-scored
 *   from the two underlying scores rather than from ranks.
 *
 * `rankByStrategy` composes them, for the query path and the eval alike, so
 * docs/quality.md measures what the service does. The settings in
 * `RETRIEVAL_TUNING` were chosen on the first 150 SciFact queries only
 * (`npm run eval -- --tune`); docs/quality.md reports them on all 300 and on
 * the other 150.
 */
import type { RagStrategy } from '../agent';
import type { FeedbackOptions } from './feedback';
import { type LikelihoodOptions, queryLikelihoodRanking } from './query-likelihood';

/**
 * What fusion reads of a search result. `ScoredChunk`
 * (ports/retrieval-index.port.ts) has this shape; it is restated because the
 * domain imports no ports (.dependency-cruiser.cjs, domain-is-pure).
 */
export interface Candidate {
  readonly chunk: {
    readonly chunk_id: string;
    readonly embedding?: ArrayLike<number>;
    /** Title and text: what the query-likelihood ranking re-scores (absent: no words). */
    readonly document_title?: string;
    readonly text?: string;
  };
  readonly score: number;
}

export interface RrfOptions {
  /** Rank offset: larger flattens the difference between the top ranks and the rest. */
  readonly k: number;
  /** One weight per ranking, in the order given (all 1 by default). */
  readonly weights?: readonly number[];
}

export interface MmrOptions {
  /** 1: relevance only (the fused order); 0: novelty only. */
  readonly lambda: number;
  /** How many to select. */
  readonly limit: number;
}

export interface RerankOptions {
  /** Weight of the lexical (BM25) score; the cosine similarity gets `1 − lexicalWeight`. */
  readonly lexicalWeight: number;
}

/** What the re-ranking step scores each candidate from. */
export interface RerankSignals {
  /** The query's embedding, by the embedder that made the candidates' embeddings. */
  readonly queryVector: readonly number[];
  /** chunk_id → BM25 score, for the candidates the BM25 search returned (the others count 0). */
  readonly lexicalScores: ReadonlyMap<string, number>;
}

export const RETRIEVAL_TUNING = {
  /** Candidates each search contributes to a fusion, and the pool MMR and the re-ranking step work on. */
  candidates: 100,
  rrf: {
    /**
     * With the offline hashing embedder the k-NN ranking is much weaker than
     * BM25 (docs/quality.md), and equal weights drag the fusion below BM25
     * alone; these are the training split's best.
     */
    offline: { k: 1, weights: [0.1, 1] },
    /** For a provider's model: RRF's customary k = 60 (Cormack et al., 2009), equal weights, until measured. */
    model: { k: 60, weights: [1, 1] },
  },
  /** The most diversity (lowest λ) costing at most 0.01 nDCG@10 against hybrid on the training split. */
  mmr: { lambda: 0.7 },
  /** The training split's best. */
  rerank: { lexicalWeight: 0.8 },
  /**
   * Pseudo-relevance feedback (feedback.ts): the fused first ranking's best
   * `passages` give at most `terms` expansion terms; the second BM25 search
   * they drive joins the fusion as a third ranking of weight `rrfWeight`.
   * Picked on SciFact's first 150 queries and ArguAna's validation split
   * together (docs/quality.md); the same for every embedder, since it works
   * on the lexical side.
   */
  feedback: { passages: 3, terms: 20, originalWeight: 0.7, rrfWeight: 1 },
  /**
   * Query likelihood (query-likelihood.ts): the fused ranking's best
   * `candidates` re-scored with Dirichlet's `mu`; its best `keep` join the
   * fusion as one more ranking of weight `rrfWeight` (only its head: deeper
   * down it would mostly reorder what the other rankings agree on). Picked
   * on SciFact's first 150 queries and ArguAna's validation split together
   * (docs/quality.md); the same for every embedder. 40 candidates rather
   * than the 100 it was tuned with: reading a chunk's words for the first
   * time is most of its cost, and 40 keeps that within a tenth of a query's
   * time at a mean cost of 0.0013 nDCG@10 on the tuning splits (30 cost
   * 0.0028, 20 cost 0.0052).
   */
  likelihood: { candidates: 40, mu: 20, keep: 20, rrfWeight: 0.7 },
} as const;

/** Feedback settings: which passages and terms, and the weight of the second search in the fusion (0: off). */
export interface FeedbackSettings extends FeedbackOptions {
  readonly rrfWeight: number;
}

/** Query-likelihood settings: which candidates, μ, and the weight of its ranking in the fusion (0: off). */
export interface LikelihoodSettings extends LikelihoodOptions {
  readonly candidates: number;
  readonly keep: number;
  readonly rrfWeight: number;
}

/** The offline hashing embedder's ids start so (adapters/ai/offline-embedder.ts, `offline-hash-v1/384`). */
const OFFLINE_EMBEDDER_PREFIX = 'offline-hash-';

/**
 * The RRF settings for a k-NN ranking made with `embedderId`: tuned ones for
 * the offline embedder, the customary ones for a provider's model.
 */
export function rrfOptionsFor(embedderId: string): RrfOptions {
  return embedderId.startsWith(OFFLINE_EMBEDDER_PREFIX)
    ? RETRIEVAL_TUNING.rrf.offline
    : RETRIEVAL_TUNING.rrf.model;
}

/** The settings one strategy run uses (the tuning grids vary them). */
export interface StrategySettings {
  readonly rrf: RrfOptions;
  readonly mmrLambda: number;
  readonly rerankLexicalWeight: number;
  readonly feedback: FeedbackSettings;
  readonly likelihood: LikelihoodSettings;
}

/** The tuned settings for k-NN results made with `embedderId`. */
export function strategySettingsFor(embedderId: string): StrategySettings {
  return {
    rrf: rrfOptionsFor(embedderId),
    mmrLambda: RETRIEVAL_TUNING.mmr.lambda,
    rerankLexicalWeight: RETRIEVAL_TUNING.rerank.lexicalWeight,
    feedback: RETRIEVAL_TUNING.feedback,
    likelihood: RETRIEVAL_TUNING.likelihood,
  };
}

/** Whether `settings` run a second, feedback-expanded BM25 search. */
export function usesFeedback(settings: StrategySettings): boolean {
  const { passages, terms, originalWeight, rrfWeight } = settings.feedback;
  return passages > 0 && terms > 0 && originalWeight < 1 && rrfWeight > 0;
}

/** Whether `settings` add the query-likelihood ranking to the fusion. */
export function usesLikelihood(settings: StrategySettings): boolean {
  const { candidates, keep, mu, rrfWeight } = settings.likelihood;
  return candidates > 0 && keep > 0 && mu > 0 && rrfWeight > 0;
}

/** What a strategy ranks from: one query's two searches. */
export interface StrategyInputs<T extends Candidate> {
  /** The query as written: with it, the fusion adds its query-likelihood ranking. */
  readonly query?: string;
  /** k-NN results (scores: cosine), best first. */
  readonly knn: readonly T[];
  /** BM25 results (scores: BM25), best first; unused by `similarity`. */
  readonly bm25: readonly T[];
  /** The feedback-expanded BM25 search's results, best first, when there was one. */
  readonly feedbackBm25?: readonly T[];
  readonly queryVector: readonly number[];
}

/**
 * The retrieval strategies: `similarity` is the k-NN ranking; `hybrid` fuses k-NN
 * and BM25 by reciprocal rank; `mmr` picks from the fused candidates with
 * maximal marginal relevance; `rerank` re-scores the fused candidates with
 * `convexCombinationRerank`. With a feedback search (`feedbackBm25`), its
 * ranking is fused too (`fuseSearches`). Fused candidates are the best
 * `RETRIEVAL_TUNING.candidates` (or `limit`, if larger). Returns at most
 * `limit` chunks, best first.
 *
 * @example
 * const ranked = rankByStrategy('hybrid', { knn, bm25, queryVector }, 10, strategySettingsFor(embedder.id));
 */
export function rankByStrategy<T extends Candidate>(
  strategy: RagStrategy,
  inputs: StrategyInputs<T>,
  limit: number,
  settings: StrategySettings,
): T[] {
  if (strategy === 'similarity') return inputs.knn.slice(0, limit);
  const fused = fuseSearches(inputs, settings).slice(
    0,
    Math.max(limit, RETRIEVAL_TUNING.candidates),
  );
  switch (strategy) {
    case 'hybrid':
      return fused.slice(0, limit);
    case 'mmr':
      return maximalMarginalRelevance(fused, { lambda: settings.mmrLambda, limit });
    case 'rerank':
      return convexCombinationRerank(
        fused,
        {
          queryVector: inputs.queryVector,
          lexicalScores: new Map(inputs.bm25.map((hit) => [hit.chunk.chunk_id, hit.score])),
        },
        { lexicalWeight: settings.rerankLexicalWeight },
      ).slice(0, limit);
  }
}

/**
 * The fused ranking of `hybrid` (and the candidates of `mmr` and `rerank`):
 * RRF of k-NN and BM25 and, when a feedback search ran, of its results too;
 * then, given the query, the best of those re-scored by query likelihood
 * join as one more ranking. Without a feedback search or a query it is the
 * first ranking, the one feedback passages come from.
 */
export function fuseSearches<T extends Candidate>(
  inputs: StrategyInputs<T>,
  settings: StrategySettings,
): T[] {
  const [knnWeight = 1, bm25Weight = 1] = settings.rrf.weights ?? [];
  const rankings: (readonly T[])[] = [inputs.knn, inputs.bm25];
  const weights = [knnWeight, bm25Weight];
  const feedback = inputs.feedbackBm25;
  if (feedback !== undefined && feedback.length > 0 && usesFeedback(settings)) {
    rankings.push(feedback);
    weights.push(settings.feedback.rrfWeight);
  }
  const fused = reciprocalRankFusion(rankings, { k: settings.rrf.k, weights });
  if (inputs.query === undefined || !usesLikelihood(settings)) return fused;
  const { candidates, keep, rrfWeight } = settings.likelihood;
  const likelihood = queryLikelihoodRanking(
    inputs.query,
    fused.slice(0, candidates),
    settings.likelihood,
  ).slice(0, keep);
  if (likelihood.length === 0) return fused;
  return reciprocalRankFusion([...rankings, likelihood], {
    k: settings.rrf.k,
    weights: [...weights, rrfWeight],
  });
}

/**
 * Reciprocal rank fusion: a chunk scores Σ weightᵢ / (k + rankᵢ) over the
 * rankings it appears in (rank from 1). Rank-based, so cosine similarities
 * and BM25 scores need no common scale. Returns each chunk once, with the
 * fused score, best first (ties: the order in which chunks were first seen).
 *
 * @example
 * reciprocalRankFusion([knnHits, bm25Hits], rrfOptionsFor(embedder.id));
 */
export function reciprocalRankFusion<T extends Candidate>(
  rankings: readonly (readonly T[])[],
  options: RrfOptions,
): T[] {
  const fused = new Map<string, { item: T; score: number; order: number }>();
  rankings.forEach((ranking, list) => {
    const weight = options.weights?.[list] ?? 1;
    ranking.forEach((item, index) => {
      const contribution = weight / (options.k + index + 1);
      const entry = fused.get(item.chunk.chunk_id);
      if (entry) {
        entry.score += contribution;
        // Keep the copy that carries an embedding (k-NN results do), MMR needs it.
        if (entry.item.chunk.embedding === undefined && item.chunk.embedding !== undefined) {
          entry.item = item;
        }
      } else {
        fused.set(item.chunk.chunk_id, { item, score: contribution, order: fused.size });
      }
    });
  });
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .map(({ item, score }) => ({ ...item, score }));
}

/**
 * Maximal marginal relevance (Carbonell & Goldstein, 1998): picks, one at a
 * time, the candidate maximising
 * `λ · relevance − (1 − λ) · max cosine(candidate, already picked)`, where
 * relevance is the candidate's score rescaled to [0, 1] within the list and
 * the cosine is between chunk embeddings (0 when either has none). Returns
 * the picks in order, each scored by that value when it was picked (issue 23
 * item 2): never higher than the pick before it, since every remaining
 * candidate's value only falls as the picks grow.
 */
export function maximalMarginalRelevance<T extends Candidate>(
  candidates: readonly T[],
  options: MmrOptions,
): T[] {
  const { lambda, limit } = options;
  const relevance = rescaled(candidates.map((candidate) => candidate.score));
  const unit = candidates.map((candidate) => unitVector(candidate.chunk.embedding));
  const nearestPicked = new Float64Array(candidates.length).fill(0);
  const remaining = new Set(candidates.keys());
  const picked: T[] = [];
  const pickedScores: number[] = [];
  while (picked.length < limit && remaining.size > 0) {
    let best = -1;
    let bestValue = Number.NEGATIVE_INFINITY;
    for (const index of remaining) {
      const value = lambda * (relevance[index] ?? 0) - (1 - lambda) * (nearestPicked[index] ?? 0);
      if (value > bestValue) {
        best = index;
        bestValue = value;
      }
    }
    const choice = candidates[best];
    if (choice === undefined) break;
    picked.push(choice);
    pickedScores.push(bestValue);
    remaining.delete(best);
    const chosen = unit[best];
    for (const index of remaining) {
      const similarity = cosine(chosen, unit[index]);
      if (similarity > (nearestPicked[index] ?? 0)) nearestPicked[index] = similarity;
    }
  }
  return picked.map((choice, index) => ({ ...choice, score: pickedScores[index] ?? 0 }));
}

/**
 * The re-ranking step of `rerank`: re-scores fused candidates by a convex
 * combination of their BM25 score and their cosine similarity to the query,
 * each min-max rescaled over the candidates:
 * `lexicalWeight · bm25′ + (1 − lexicalWeight) · cosine′`. Rank fusion
 * forgets by how much one chunk beat the next; this puts the margins back.
 * (A phrase and term-proximity re-score was tried first: it did not move
 * nDCG@10 on the training split beyond noise, see docs/quality.md.) Returns
 * the candidates with the new score, best first (ties: the fused order).
 */
export function convexCombinationRerank<T extends Candidate>(
  candidates: readonly T[],
  signals: RerankSignals,
  options: RerankOptions = RETRIEVAL_TUNING.rerank,
): T[] {
  const query = unitVector(signals.queryVector);
  const lexical = rescaled(
    candidates.map((candidate) => signals.lexicalScores.get(candidate.chunk.chunk_id) ?? 0),
  );
  const semantic = rescaled(
    candidates.map((candidate) => cosine(query, unitVector(candidate.chunk.embedding))),
  );
  return candidates
    .map((candidate, index) => ({
      candidate,
      index,
      score:
        options.lexicalWeight * (lexical[index] ?? 0) +
        (1 - options.lexicalWeight) * (semantic[index] ?? 0),
    }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map(({ candidate, score }) => ({ ...candidate, score }));
}

/** Min-max rescaling to [0, 1]; all 1 when every value is the same. */
function rescaled(values: readonly number[]): number[] {
  const low = Math.min(...values);
  const high = Math.max(...values);
  return values.map((value) => (high > low ? (value - low) / (high - low) : 1));
}

function unitVector(vector: ArrayLike<number> | undefined): Float64Array | undefined {
  if (vector === undefined || vector.length === 0) return undefined;
  const unit = Float64Array.from(vector);
  let norm = 0;
  for (const value of unit) norm += value * value;
  if (norm === 0) return undefined;
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < unit.length; i += 1) unit[i] = (unit[i] ?? 0) * scale;
  return unit;
}

function cosine(a: Float64Array | undefined, b: Float64Array | undefined): number {
  if (a === undefined || b === undefined || a.length !== b.length) return 0;
  let dot = 0;
  for (let i = 0; i < a.length; i += 1) dot += (a[i] ?? 0) * (b[i] ?? 0);
  return dot;
}
