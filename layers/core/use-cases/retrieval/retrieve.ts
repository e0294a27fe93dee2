import type { RagStrategy } from '../../domain/agent';
import { ConflictError } from '../../domain/errors';
import {
  RETRIEVAL_TUNING,
  rankByStrategy,
  strategySettingsFor,
} from '../../domain/retrieval/fusion';
import type { Embedder } from '../../ports/embedder.port';
import {
  EmbedderMismatchError,
  type RetrievalIndex,
  type ScoredChunk,
  type SearchFilter,
} from '../../ports/retrieval-index.port';
import { lexicalSearches } from './lexical-searches';

export interface RetrieveRequest {
  readonly orgId: string;
  /** Omitted: every data source of the organization. */
  readonly dataSourceIds?: readonly string[] | undefined;
  readonly query: string;
  readonly strategy: RagStrategy;
  readonly topK: number;
}

export interface RetrievedChunk {
  readonly chunk: ScoredChunk['chunk'];
  /** Cosine similarity of the chunk to the query (what `similarity_score` reports). */
  readonly similarity: number;
  /** Issue 23 item 2: the strategy's own score, the value that ordered the chunks (best first). */
  readonly score: number;
}

export interface RetrieveDependencies {
  readonly retrieval: RetrievalIndex;
  readonly embedder: Embedder;
}

/**
 * Retrieval strategies over the index's two searches (domain/retrieval/fusion.ts:
 * `similarity` k-NN, `hybrid` reciprocal-rank fusion with BM25, `mmr`,
 * `rerank`), with the settings tuned for the embedder; the BM25 side adds a
 * pseudo-relevance feedback search (lexical-searches.ts). Whatever the order,
 * each chunk reports its cosine similarity to the query, beside the
 * strategy's score that ordered it.
 */
export async function retrieve(
  deps: RetrieveDependencies,
  request: RetrieveRequest,
): Promise<{ chunks: RetrievedChunk[]; queryEmbedding: number[] }> {
  const [queryEmbedding = []] = await deps.embedder.embed([request.query], { purpose: 'query' });
  const filter: SearchFilter = {
    orgId: request.orgId,
    ...(request.dataSourceIds ? { dataSourceIds: request.dataSourceIds } : {}),
  };
  const pool = Math.max(request.topK, RETRIEVAL_TUNING.candidates);
  let knn: ScoredChunk[];
  try {
    knn = await deps.retrieval.knn(
      filter,
      queryEmbedding,
      deps.embedder.id,
      request.strategy === 'similarity' ? request.topK : pool,
    );
  } catch (error) {
    if (error instanceof EmbedderMismatchError) {
      // Issue 3: a clear error asking for a re-sync, never silent garbage.
      throw new ConflictError(`${error.message}: sync the agent's data sources again`, {
        indexed_with: error.indexedWith,
        searching_with: error.searchingWith,
      });
    }
    throw error;
  }
  const cosine = new Map(knn.map((found) => [found.chunk.chunk_id, found.score]));

  const settings = strategySettingsFor(deps.embedder.id);
  const lexical =
    request.strategy === 'similarity'
      ? { bm25: [] }
      : await lexicalSearches(deps.retrieval, filter, request.query, pool, knn, settings);
  const ranked = rankByStrategy(
    request.strategy,
    { query: request.query, knn, ...lexical, queryVector: queryEmbedding },
    request.topK,
    settings,
  );
  const chunks = ranked.slice(0, request.topK).map((found) => ({
    chunk: found.chunk,
    score: found.score,
    similarity: cosine.get(found.chunk.chunk_id) ?? cosineOf(queryEmbedding, found.chunk.embedding),
  }));
  return { chunks, queryEmbedding };
}

/** Cosine of two vectors (0 when either is missing); chunk vectors are stored unit-length. */
function cosineOf(a: readonly number[], b: ArrayLike<number> | undefined): number {
  if (!b || b.length !== a.length) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    dot += (a[i] ?? 0) * (b[i] ?? 0);
    na += (a[i] ?? 0) ** 2;
    nb += (b[i] ?? 0) ** 2;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
