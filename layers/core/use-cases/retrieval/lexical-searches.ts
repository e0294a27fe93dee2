import { documentationWords } from '../../domain/retrieval/documentation-words';
import { feedbackTerms } from '../../domain/retrieval/feedback';
import { fuseSearches, type StrategySettings, usesFeedback } from '../../domain/retrieval/fusion';
import type { RetrievalIndex, ScoredChunk, SearchFilter } from '../../ports/retrieval-index.port';

/**
 * The weight of the documentation's word for a question's word ("directory"
 * for "folder") beside the question's own words (1 each): enough to find a
 * passage that says it the manual's way, too little to outrank one that
 * says it the user's way. Measured in docs/quality.md.
 */
const DOCUMENTATION_WORD_WEIGHT = 0.5;

export interface LexicalSearches {
  /** BM25 of the query as written, with the documentation's words for a user's. */
  readonly bm25: ScoredChunk[];
  /** BM25 of the query with its feedback terms; absent when feedback is off or found no terms. */
  readonly feedbackBm25?: ScoredChunk[];
}

/**
 * The BM25 side of a hybrid search: BM25 of the query (with the
 * documentation's words for a user's, at a lower weight), then, with feedback
 * on, a second BM25 search with the expansion terms drawn from the best
 * passages of the first fused ranking (k-NN and BM25, as `hybrid` fuses
 * them). The passages are chunks both searches already returned, so
 * feedback reads no more chunks; its cost is the second search, bounded by
 * the number of expansion terms. Both index adapters take the terms through
 * `RetrievalIndex.bm25`, so they rank alike.
 *
 * @example
 * const { bm25, feedbackBm25 } = await lexicalSearches(index, filter, query, 100, knn, settings);
 */
export async function lexicalSearches(
  retrieval: RetrievalIndex,
  filter: SearchFilter,
  query: string,
  pool: number,
  knn: readonly ScoredChunk[],
  settings: StrategySettings,
): Promise<LexicalSearches> {
  const documentation = documentationWords(query).map((word) => ({
    word,
    weight: DOCUMENTATION_WORD_WEIGHT,
  }));
  const bm25 = await retrieval.bm25(
    filter,
    query,
    pool,
    documentation.length > 0 ? documentation : undefined,
  );
  if (!usesFeedback(settings) || bm25.length === 0) return { bm25 };
  const firstRanking = fuseSearches({ knn, bm25, queryVector: [] }, settings);
  const expansion = feedbackTerms(
    query,
    firstRanking.map((found) => ({
      text: `${found.chunk.document_title}\n${found.chunk.text}`,
      score: found.score,
    })),
    settings.feedback,
  );
  if (expansion.length === 0) return { bm25 };
  return { bm25, feedbackBm25: await retrieval.bm25(filter, query, pool, expansion) };
}
