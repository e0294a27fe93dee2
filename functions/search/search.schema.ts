import * as z from 'zod';
import { AGENT_LIMITS } from '../../layers/core/domain/agent';
import { isId } from '../../layers/core/domain/ids';
import { INTERACTION_LIMITS } from '../../layers/core/domain/interaction';

/** POST /api/v1/semantic-search (spec; D17, D21). */
export const semanticSearchBody = z.strictObject({
  query: z.string().trim().min(1, 'must not be empty').max(INTERACTION_LIMITS.queryMax),
  org_id: z.string().refine((value) => isId('organization', value), 'must be an org_ id'),
  top_k: z.int().min(1).max(100).default(10),
  similarity_threshold: z.number().min(0).max(1).default(0),
  data_source_ids: z
    .array(z.string().refine((value) => isId('dataSource', value), 'must be a ds_ id'))
    .max(AGENT_LIMITS.dataSourcesMax)
    .optional(),
  include_embedding: z.boolean().default(false),
});

export const semanticSearchResult = z.object({
  chunks: z.array(
    z.object({
      chunk_id: z.string(),
      text: z.string(),
      similarity_score: z.number(),
      document_id: z.string(),
      document_title: z.string(),
      document_url: z.string().nullable(),
      data_source_id: z.string(),
      heading_path: z.array(z.string()),
    }),
  ),
  query_embedding: z.array(z.number()).optional(),
  metadata: z.object({ total_chunks_searched: z.int(), latency_ms: z.int(), embedder: z.string() }),
});
