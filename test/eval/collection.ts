/**
 * What the eval needs of a test collection, whichever it is (SciFact,
 * ArguAna): documents, queries, graded judgements, and, where queries are
 * themselves in the corpus (ArguAna), the document to drop from each query's
 * ranking (BEIR's `ignore_identical_ids`, Anserini's `-removeQuery`).
 */
export interface CollectionDocument {
  readonly id: string;
  readonly title: string;
  readonly text: string;
}

export interface CollectionQuery {
  readonly id: string;
  readonly text: string;
}

export interface Collection {
  readonly documents: readonly CollectionDocument[];
  readonly queries: readonly CollectionQuery[];
  /** query id → judged document id → relevance. */
  readonly qrels: ReadonlyMap<string, ReadonlyMap<string, number>>;
  /** query id → the document holding the query's own text, dropped from its ranking. */
  readonly ownDocument?: ReadonlyMap<string, string>;
}

/** `run` without the query's own document, when the collection names one. */
export function withoutQueryDocument(
  collection: Collection,
  queryId: string,
  run: ReadonlyMap<string, number>,
): Map<string, number> {
  const own = collection.ownDocument?.get(queryId);
  const kept = new Map(run);
  if (own !== undefined) kept.delete(own);
  return kept;
}
