import * as z from 'zod/mini';
import { AGENT_DEFAULTS, AGENT_LIMITS, RAG_STRATEGIES } from '../../layers/core/domain/agent';
import { isId } from '../../layers/core/domain/ids';
import { INTERACTION_LIMITS } from '../../layers/core/domain/interaction';
import {
  DOCUMENT_TITLE_DESCRIPTION,
  DOCUMENT_URL_DESCRIPTION,
  RANK_DESCRIPTION,
  SCORE_DESCRIPTION,
  SIMILARITY_DESCRIPTION,
} from '../../layers/core/http/cited-source.schema';

/** POST /api/v1/semantic-search (spec). */
export const semanticSearchBody = z.strictObject({
  query: z
    .string()
    .check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(INTERACTION_LIMITS.queryMax)),
  org_id: z.string().check(z.refine((value) => isId('organization', value), 'must be an org_ id')),
  top_k: z._default(z.int().check(z.minimum(1), z.maximum(100)), 10),
  similarity_threshold: z._default(
    z
      .number()
      .check(
        z.minimum(0),
        z.maximum(1),
        z.describe(
          'The least cosine similarity (similarity_score) a chunk may have; not the score',
        ),
      ),
    0,
  ),
  data_source_ids: z.optional(
    z
      .array(z.string().check(z.refine((value) => isId('dataSource', value), 'must be a ds_ id')))
      .check(z.maxLength(AGENT_LIMITS.dataSourcesMax)),
  ),
  include_embedding: z._default(z.boolean(), false),
  /** Issue 10: the retrieval strategy to rank with; agents' default (`hybrid`) when omitted. */
  rag_strategy: z._default(z.enum(RAG_STRATEGIES), AGENT_DEFAULTS.ragStrategy),
});

export const semanticSearchResult = z.object({
  chunks: z.array(
    z.object({
      chunk_id: z.string(),
      text: z.string(),
      rank: z.int().check(z.describe(RANK_DESCRIPTION)),
      score: z.number().check(z.describe(SCORE_DESCRIPTION)),
      similarity_score: z.number().check(z.describe(SIMILARITY_DESCRIPTION)),
      document_id: z.string().check(z.describe('The document the chunk belongs to (doc_…)')),
      document_title: z.string().check(z.describe(DOCUMENT_TITLE_DESCRIPTION)),
      document_url: z.nullable(z.string()).check(z.describe(DOCUMENT_URL_DESCRIPTION)),
      data_source_id: z
        .string()
        .check(z.describe('The data source the document belongs to (ds_…)')),
      heading_path: z.array(z.string()),
    }),
  ),
  query_embedding: z.optional(z.array(z.number())),
  metadata: z.object({
    total_chunks_searched: z.int(),
    latency_ms: z.int(),
    embedder: z.string(),
    /** The strategy that ranked the chunks. */
    rag_strategy: z.enum(RAG_STRATEGIES),
  }),
});
