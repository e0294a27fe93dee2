import * as z from 'zod/mini';

/**
 * P214 (issue 23 item 2): what orders a list of chunks. Strategies other
 * than `similarity` rank by something other than the cosine, so a client
 * that sorts or thresholds by `similarity_score` would get another order.
 */
export const RANK_DESCRIPTION =
  "The chunk's place in the strategy's ranking, from 1 (best); the list is in this order";
export const SCORE_DESCRIPTION =
  "The strategy's own score that ranked the chunk (similarity: cosine; hybrid: reciprocal rank fusion; mmr: marginal relevance at its pick; rerank: the re-ranker's); higher is better, comparable only within one list";
export const SIMILARITY_DESCRIPTION =
  "Cosine similarity of the chunk to the query, whatever the strategy; what similarity_threshold bounds, not the ranking's order";

/** D18: a cited source, as the Query result and the Interaction resource show it. */
export const citedSourceResource = z.object({
  chunk_id: z.string(),
  document_title: z.string(),
  document_url: z.nullable(z.string()),
  rank: z.int().check(z.describe(RANK_DESCRIPTION)),
  score: z.number().check(z.describe(SCORE_DESCRIPTION)),
  similarity_score: z.number().check(z.describe(SIMILARITY_DESCRIPTION)),
  chunk_text: z.string(),
});
