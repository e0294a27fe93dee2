import * as z from 'zod/mini';

/** D18: a cited source, as the Query result and the Interaction resource show it. */
export const citedSourceResource = z.object({
  chunk_id: z.string(),
  document_title: z.string(),
  document_url: z.nullable(z.string()),
  similarity_score: z.number(),
  chunk_text: z.string(),
});
