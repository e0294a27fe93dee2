/** A chunk as indexed: text, where it came from, and its vector. Every chunk carries its organization. */
export interface IndexedChunk {
  readonly chunk_id: string;
  readonly org_id: string;
  readonly data_source_id: string;
  readonly document_id: string;
  readonly document_title: string;
  readonly document_url: string | null;
  /** Headings above the chunk, outermost first. */
  readonly heading_path: readonly string[];
  readonly text: string;
  /** Position of the chunk in its document, from 0. */
  readonly position: number;
  /** SHA-256 of the document's normalised content: unchanged documents are not re-embedded on re-sync. */
  readonly document_hash: string;
  /** The `Embedder.id` that made `embedding`. */
  readonly embedder_id: string;
  readonly embedding: readonly number[];
}

/** A chunk without its vector: what a preview of a document shows. */
export type ChunkText = Omit<IndexedChunk, 'embedding'>;

/** One document as the index holds it: what lists a data source's documents (crawled pages, synced items). */
export interface IndexedDocument {
  readonly document_id: string;
  /** As its first chunk (by position) carries it. */
  readonly document_title: string;
  readonly document_url: string | null;
  readonly chunks: number;
}

/** Which chunks a search may see: always one organization, optionally some of its data sources. */
export interface SearchFilter {
  readonly orgId: string;
  /** Omitted: all the organization's data sources. Empty: nothing. */
  readonly dataSourceIds?: readonly string[];
}

export interface ScoredChunk {
  /** `embedding`: the stored vector when the index returns it (the embedded index gives a Float32Array copy). */
  readonly chunk: Omit<IndexedChunk, 'embedding'> & { readonly embedding?: ArrayLike<number> };
  /** k-NN: cosine similarity in [-1, 1]; BM25: the raw BM25 score (≥ 0). */
  readonly score: number;
}

/**
 * A word added to a BM25 query with its own weight, where each word of the
 * query itself weighs 1: how pseudo-relevance feedback (domain/retrieval/
 * feedback.ts) hands its expansion terms to either index. A word that is
 * also in the query adds its weight to the query's.
 */
export interface WeightedTerm {
  /** One word as written; the index analyses it as it analyses the query. */
  readonly word: string;
  /** > 0. */
  readonly weight: number;
}

/** Thrown when the index was built by another embedder than the one searching (issue 3: a clear error asking for a re-sync). */
export class EmbedderMismatchError extends Error {
  constructor(
    readonly indexedWith: string,
    readonly searchingWith: string,
  ) {
    super(
      `The index was built with ${indexedWith}; searching with ${searchingWith} needs a re-sync`,
    );
    this.name = 'EmbedderMismatchError';
  }
}

/**
 * The retrieval index (OpenSearch k-NN + BM25 in the cloud, the embedded
 * index on one machine). Both adapters pass one contract suite.
 */
export interface RetrievalIndex {
  /** Adds or replaces chunks (by chunk_id). */
  upsert(chunks: readonly IndexedChunk[]): Promise<void>;
  /** Removes every chunk of one document. */
  deleteDocument(orgId: string, dataSourceId: string, documentId: string): Promise<void>;
  /** Removes every chunk of one data source. */
  deleteDataSource(orgId: string, dataSourceId: string): Promise<void>;
  /**
   * document_id → document_hash of what is indexed for a data source (for
   * re-sync diffs). With `embedderId`, a document any of whose chunks
   * another embedder made reports an empty hash, which no content has: a
   * re-sync after the deployment changed its embedder embeds every document
   * again instead of keeping vectors of the old model beside the new.
   */
  documentHashes(
    orgId: string,
    dataSourceId: string,
    embedderId?: string,
  ): Promise<Map<string, string>>;
  /** Nearest chunks by cosine similarity; refuses (EmbedderMismatchError) if matching chunks were embedded by another embedder. */
  knn(
    filter: SearchFilter,
    vector: readonly number[],
    embedderId: string,
    k: number,
  ): Promise<ScoredChunk[]>;
  /**
   * Best chunks by BM25 over text and title (and headings, boosted). With
   * `expansion`, each expansion word's BM25 is added times its weight.
   */
  bm25(
    filter: SearchFilter,
    query: string,
    k: number,
    expansion?: readonly WeightedTerm[],
  ): Promise<ScoredChunk[]>;
  /** Chunks visible to the filter. */
  count(filter: SearchFilter): Promise<number>;
  /** Every document indexed for a data source, one entry each, in no particular order. */
  documents(orgId: string, dataSourceId: string): Promise<IndexedDocument[]>;
  /** One document's first `limit` chunks by position, and how many it has in all. */
  documentChunks(
    orgId: string,
    dataSourceId: string,
    documentId: string,
    limit: number,
  ): Promise<{ readonly chunks: ChunkText[]; readonly total: number }>;
}
