/**
 * The strategies the eval measures: the D20 strategies exactly as the query
 * path ranks them (`rankByStrategy`), plus BM25 alone for the comparison
 * with the published baseline.
 */
import { rankByStrategy, type StrategySettings } from '../../layers/core/domain/retrieval/fusion';
import type { ScoredChunk } from '../../layers/core/ports/retrieval-index.port';

export const STRATEGIES = ['similarity', 'bm25', 'hybrid', 'mmr', 'rerank'] as const;
export type Strategy = (typeof STRATEGIES)[number];

/** What one query's two searches returned (each `RETRIEVAL_TUNING.candidates` long). */
export interface Searches {
  /** The query as written (the fusion's query-likelihood ranking reads it). */
  readonly query?: string;
  readonly queryVector: readonly number[];
  readonly knn: readonly ScoredChunk[];
  readonly bm25: readonly ScoredChunk[];
  /** The feedback-expanded BM25 search, when feedback ran (lexical-searches.ts). */
  readonly feedbackBm25?: readonly ScoredChunk[];
}

/**
 * Chunks ranked per strategy: as many as the searches return, so the
 * documents in the top 10 are never cut short (a document may have several
 * chunks). MMR picks this many too.
 */
export const RANKED_CHUNKS = 100;

/** The ranked chunks of one strategy; `ordered` when the scores do not follow the order (MMR). */
export function rankChunks(
  strategy: Strategy,
  searches: Searches,
  settings: StrategySettings,
): { chunks: readonly ScoredChunk[]; ordered: boolean } {
  if (strategy === 'bm25') return { chunks: searches.bm25, ordered: false };
  return {
    chunks: rankByStrategy(strategy, searches, RANKED_CHUNKS, settings),
    ordered: strategy === 'mmr',
  };
}

/**
 * A document-level run (document id → score) from ranked chunks: a
 * document scores as its best chunk. `ordered` lists (MMR) get scores that
 * decrease with rank, so the run keeps their order.
 */
export function documentRun(chunks: readonly ScoredChunk[], ordered: boolean): Map<string, number> {
  const run = new Map<string, number>();
  chunks.forEach((hit, rank) => {
    const score = ordered ? chunks.length - rank : hit.score;
    const held = run.get(hit.chunk.document_id);
    if (held === undefined || score > held) run.set(hit.chunk.document_id, score);
  });
  return run;
}
