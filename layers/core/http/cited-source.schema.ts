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

export const DOCUMENT_TITLE_DESCRIPTION =
  "What a person recognises the document by: for an uploaded file, its file name, followed by ' — ' and its first heading or PDF title when that says something the name does not (e.g. 'express.md — Express'); for a web page, the page's title; for a knowledge base article, the article's title";
export const DOCUMENT_URL_DESCRIPTION =
  'Where the document opens. For an uploaded file, never null: the absolute address of GET /api/v1/data-sources/{data_source_id}/files/{document_id}/content, which (authenticated like any request) redirects to a download of the file good for 5 minutes. For a web page, the page; for a knowledge base article, the path of the article version that was indexed; for a connector, the document in its application. Null when the document has no address';

/** D18: a cited source, as the Query result and the Interaction resource show it. */
export const citedSourceResource = z.object({
  chunk_id: z.string(),
  document_id: z.string().check(z.describe('The document the chunk belongs to (doc_…)')),
  data_source_id: z.string().check(z.describe('The data source the document belongs to (ds_…)')),
  document_title: z.string().check(z.describe(DOCUMENT_TITLE_DESCRIPTION)),
  document_url: z.nullable(z.string()).check(z.describe(DOCUMENT_URL_DESCRIPTION)),
  rank: z.int().check(z.describe(RANK_DESCRIPTION)),
  score: z.number().check(z.describe(SCORE_DESCRIPTION)),
  similarity_score: z.number().check(z.describe(SIMILARITY_DESCRIPTION)),
  chunk_text: z.string(),
});
