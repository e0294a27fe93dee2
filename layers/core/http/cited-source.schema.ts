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

export const QUOTED_RANGES_DESCRIPTION =
  "The parts of chunk_text the answer quotes or relies on, for highlighting: each { start, end } is a half-open range of UTF-16 code units into chunk_text (JavaScript string indices; end is not included), sorted and not overlapping. Empty in a stream's first sources event, which is sent before the answer exists, and when no sentence of the answer is supported by this source";

export const GROUNDEDNESS_DESCRIPTION =
  "How well the answer is grounded in what it cites, from 0 to 1 (3 decimals): the share of the answer's sentences that a passage they cite supports. A sentence is supported when it is a verbatim quote of a source it cites (ignoring differences in whitespace), or when most of its words (at least 70 %, rarer words weighing more) and all of its numbers occur within a few consecutive sentences of such a source. A sentence without a citation is not supported; sentences with no content words (such as 'Here is how:') are not counted. Computed the same way whatever model answered. An answer that makes no claim (the answer that nothing was found) scores 1";

/** A cited source, as the Query result and the Interaction resource show it. */
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
  quoted_ranges: z
    .array(
      z.object({
        start: z.int().check(z.minimum(0)),
        end: z.int().check(z.minimum(0)),
      }),
    )
    .check(z.describe(QUOTED_RANGES_DESCRIPTION)),
});
