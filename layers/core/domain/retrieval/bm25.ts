/**
 * Okapi BM25 as Lucene (and so OpenSearch and Anserini) scores it, for the
 * embedded index: the same formula on both retrieval adapters keeps their
 * rankings comparable.
 */

export interface Bm25Parameters {
  /** Term-frequency saturation. */
  readonly k1: number;
  /** Length normalisation: 0 ignores document length, 1 normalises fully. */
  readonly b: number;
}

/**
 * k1 0.9 and b 0.4: Anserini's defaults, behind the published BEIR BM25
 * figures we compare with (docs/quality.md); still the best pair on the
 * SciFact training queries in our grid.
 */
export const DEFAULT_BM25: Bm25Parameters = { k1: 0.9, b: 0.4 };

/**
 * Lucene's inverse document frequency, `ln(1 + (N - df + 0.5) / (df + 0.5))`:
 * always positive, so a term in every document still counts a little.
 */
export function bm25Idf(documentFrequency: number, documentCount: number): number {
  return Math.log(1 + (documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

/**
 * One term's contribution to one document's score: Lucene's
 * `idf · tf / (tf + k1 · (1 − b + b · dl / avgdl))` (Lucene dropped the
 * constant `k1 + 1` factor of the textbook formula; rankings are the same).
 */
export function bm25TermScore(
  idf: number,
  termFrequency: number,
  documentLength: number,
  averageLength: number,
  { k1, b }: Bm25Parameters,
): number {
  const lengthRatio = averageLength > 0 ? documentLength / averageLength : 1;
  return (idf * termFrequency) / (termFrequency + k1 * (1 - b + b * lengthRatio));
}

/**
 * The weight of a chunk's headings in BM25, beside title and text. The
 * score is BM25(title and text) + HEADING_BOOST × BM25(heading path), each
 * field on its own statistics, as OpenSearch scores a `bool.should` of two
 * `match` queries with a boost on the second; both retrieval adapters use it.
 * A chunk under "How long do refunds take?" matches that question by its
 * heading even when its text only says "5 business days". Half of title and
 * text's weight: a heading is a few words that stand for a whole section, so
 * it should lift a chunk, not outrank one whose text answers. Chosen, not
 * tuned: SciFact has no headings (its figures cannot move), and the project
 * question set is too small to tune on (docs/quality.md).
 */
export const HEADING_BOOST = 0.5;
