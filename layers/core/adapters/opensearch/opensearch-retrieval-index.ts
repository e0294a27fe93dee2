import type {
  AggregationContainer,
  CompositeAggregationSource,
} from '@opensearch-project/opensearch/api/_types/_common.aggregations';
import { HEADING_BOOST } from '../../domain/retrieval/bm25';
import {
  type ChunkText,
  EmbedderMismatchError,
  type IndexedChunk,
  type IndexedDocument,
  type RetrievalIndex,
  type ScoredChunk,
  type SearchFilter,
  type WeightedTerm,
} from '../../ports/retrieval-index.port';
import { bulkBatches, groupByEmbedder } from './bulk-requests';
import { ensureIndex } from './ensure-index';
import { BulkIndexingError, type BulkItemFailure, SearchUnavailableError } from './errors';
import {
  BM25_FIELD,
  chunkIndexName,
  chunkIndexPattern,
  cosineFromScore,
  DEFAULT_INDEX_PREFIX,
  type EmbedderShape,
  HEADINGS_FIELD,
  otherChunkIndexes,
} from './index-definition';
import {
  bulkResponseSchema,
  compositeSchema,
  countSchema,
  deleteByQuerySchema,
  documentChunksSchema,
  documentsSchema,
  embedderHitsSchema,
  multiSearchSchema,
  scoredChunks,
  searchResult,
} from './retrieval-responses';
import type { SearchCalls } from './search-client';
import { errorFromStatus, isTransientStatus, withSearchErrors } from './translate-error';

export interface OpenSearchRetrievalIndexOptions {
  readonly client: SearchCalls;
  /**
   * Prefix of the chunk index names (one index per embedder, see index-definition.ts).
   * @default 'svc-chunks'
   */
  readonly indexPrefix?: string;
  /**
   * Time allowed to bulk writes and deletes, which can touch many chunks;
   * searches keep the client's timeout.
   * @default 60000
   */
  readonly writeTimeoutMs?: number;
}

/**
 * The HNSW candidate list is `k` with the Lucene engine, so a top-3 search
 * would look at 3 candidates. Asking for at least this many neighbours (and
 * returning `size: k`) buys recall cheaply on every OpenSearch version.
 */
const MIN_KNN_CANDIDATES = 100;

/** OpenSearch's upper bound for `k` in a k-NN query. */
const MAX_KNN_K = 10_000;

/** Documents per page when listing a data source's document hashes. */
const COMPOSITE_PAGE_SIZE = 1000;

/**
 * The retrieval index on OpenSearch (ARCHITECTURE: k-NN with HNSW and cosine,
 * BM25 on the same documents), through the official client's transport
 * (search-client.ts: the nine calls made here, without the client's 300 API modules).
 *
 * Choices, each explained where it is made:
 * - one index per embedder, named `<prefix>-<embedder slug>` (index-definition.ts);
 * - every chunk is routed by its `org_id`: an organization's chunks share a
 *   shard, every request carries `routing: org_id`, so a search reads one
 *   shard however many the index has, and the organization filter is applied
 *   on top of it, always (ARCHITECTURE: every read is scoped by its organization);
 * - writes are visible when `upsert` and the deletes return (`refresh`);
 * - timeouts, refused connections, 5xx and 429 become `SearchUnavailableError` (503).
 *
 * Hybrid fusion of `knn` and `bm25` happens above the port.
 *
 * @example
 * const index = new OpenSearchRetrievalIndex({ client: createOpenSearchClient({ url, timeoutMs: 5000 }) });
 * await index.knn({ orgId }, vector, embedder.id, 10);
 */
export class OpenSearchRetrievalIndex implements RetrievalIndex {
  private readonly client: SearchCalls;
  private readonly prefix: string;
  private readonly writeTimeoutMs: number;
  /** Indexes this instance has made sure exist, by name (so only the first write checks). */
  private readonly ensured = new Map<string, Promise<void>>();

  constructor(options: OpenSearchRetrievalIndexOptions) {
    this.client = options.client;
    this.prefix = options.indexPrefix ?? DEFAULT_INDEX_PREFIX;
    this.writeTimeoutMs = options.writeTimeoutMs ?? 60_000;
  }

  /**
   * Indexes chunks under `_id: chunk_id`, in the index of the embedder that
   * made them (created on first use if the bootstrap has not). A chunk id is
   * one chunk whatever its embedder, so the same ids are removed from the
   * other embedders' indexes at the same time.
   */
  async upsert(chunks: readonly IndexedChunk[]): Promise<void> {
    const failures: BulkItemFailure[] = [];
    for (const [embedder, group] of groupByEmbedder(chunks)) {
      await this.ensure(embedder);
      const indexName = chunkIndexName(this.prefix, embedder.id);
      const [groupFailures] = await Promise.all([
        this.bulkIndex(indexName, group),
        this.removeFromOtherIndexes(indexName, group),
      ]);
      failures.push(...groupFailures);
    }
    if (failures.length === 0) return;
    // Bulk actions are independent: the chunks not listed were indexed.
    if (failures.every((failure) => isTransientStatus(failure.status))) {
      throw new SearchUnavailableError(
        `OpenSearch was too busy to index ${failures.length} chunk(s): ${failures
          .slice(0, 10)
          .map((failure) => failure.chunkId)
          .join(', ')}`,
        { cause: new BulkIndexingError(failures) },
      );
    }
    throw new BulkIndexingError(failures);
  }

  async deleteDocument(orgId: string, dataSourceId: string, documentId: string): Promise<void> {
    await this.deleteByQuery('deleteDocument', chunkIndexPattern(this.prefix), orgId, [
      { term: { org_id: orgId } },
      { term: { data_source_id: dataSourceId } },
      { term: { document_id: documentId } },
    ]);
  }

  async deleteDataSource(orgId: string, dataSourceId: string): Promise<void> {
    await this.deleteByQuery('deleteDataSource', chunkIndexPattern(this.prefix), orgId, [
      { term: { org_id: orgId } },
      { term: { data_source_id: dataSourceId } },
    ]);
  }

  /**
   * Pages through a composite aggregation over (document_id, document_hash).
   * A document whose chunks disagree (an
   * update interrupted between its writes) reports an empty hash, as in the
   * embedded index: no content hash equals it, so the next sync redoes it.
   * So does a document with a chunk another embedder than `embedderId` made
   * (the deployment changed its embedder): its buckets name that embedder.
   */
  async documentHashes(
    orgId: string,
    dataSourceId: string,
    embedderId?: string,
  ): Promise<Map<string, string>> {
    const hashes = new Map<string, string>();
    const sources: Record<string, CompositeAggregationSource>[] = [
      { document_id: { terms: { field: 'document_id' } } },
      { document_hash: { terms: { field: 'document_hash' } } },
      ...(embedderId === undefined ? [] : [{ embedder_id: { terms: { field: 'embedder_id' } } }]),
    ];
    const pages = this.#documentBuckets(
      'documentHashes',
      orgId,
      dataSourceId,
      { sources },
      (body) => compositeSchema.parse(body).aggregations?.documents,
    );
    for await (const buckets of pages) {
      for (const { key } of buckets) {
        // Buckets come sorted by document id, so a second hash follows the first (maybe on the next page).
        const known = hashes.get(key.document_id);
        const foreign = embedderId !== undefined && key.embedder_id !== embedderId;
        hashes.set(key.document_id, known === undefined && !foreign ? key.document_hash : '');
      }
    }
    return hashes;
  }

  /**
   * k-NN in the searching embedder's index, with the organization and data
   * source filter inside the k-NN query (efficient filtering: `k` results
   * that match, not `k` results filtered afterwards).
   *
   * An `EmbedderMismatchError` when chunks the filter can see were embedded by
   * another embedder: one multi-search asks, in the same round trip, for one
   * such chunk in the other embedders' indexes. An empty result would hide
   * them; the caller is told to re-sync instead.
   *
   * Scores are mapped back to cosine similarity (`cosineFromScore`).
   */
  async knn(
    filter: SearchFilter,
    vector: readonly number[],
    embedderId: string,
    k: number,
  ): Promise<ScoredChunk[]> {
    const size = Math.min(Math.floor(k), MAX_KNN_K);
    // `!(size >= 1)` also catches a NaN k.
    if (!(size >= 1) || filter.dataSourceIds?.length === 0) return [];
    // A zero vector has no direction: nothing is similar to it, and OpenSearch refuses it under cosine.
    if (vector.every((value) => value === 0)) return [];
    const indexName = chunkIndexName(this.prefix, embedderId);
    const filterClauses = filterOf(filter);
    const response = await withSearchErrors('knn', () =>
      this.client.msearch({
        body: [
          // A missing index (nothing indexed with this embedder yet) is no hits, not an error.
          { index: indexName, routing: filter.orgId, ignore_unavailable: true },
          {
            size,
            query: {
              knn: {
                embedding: {
                  vector: [...vector],
                  k: Math.min(Math.max(size, MIN_KNN_CANDIDATES), MAX_KNN_K),
                  filter: { bool: { filter: filterClauses } },
                },
              },
            },
          },
          {
            index: otherChunkIndexes(this.prefix, indexName),
            routing: filter.orgId,
            ignore_unavailable: true,
            allow_no_indices: true,
          },
          {
            size: 1,
            terminate_after: 1,
            _source: ['embedder_id'],
            query: { bool: { filter: filterClauses } },
          },
        ],
      }),
    );
    const [nearest, others] = multiSearchSchema.parse(response.body).responses;
    const otherEmbedder = embedderHitsSchema.parse(searchResult('knn', others)).hits.hits[0];
    if (otherEmbedder) {
      throw new EmbedderMismatchError(otherEmbedder._source.embedder_id, embedderId);
    }
    const hits = scoredChunks(searchResult('knn', nearest), filter.orgId, cosineFromScore);
    // Two embedder ids with the same slug would share an index; ensureIndex refuses that, this is the last guard.
    const foreign = hits.find((hit) => hit.chunk.embedder_id !== embedderId);
    if (foreign) throw new EmbedderMismatchError(foreign.chunk.embedder_id, embedderId);
    return hits;
  }

  /**
   * BM25 over title and text (`title_and_text`, English analysis, the
   * embedded index's k1 and b), plus the heading path's BM25 (`heading_path.text`)
   * times `HEADING_BOOST`, in every chunk index: words do not depend on
   * the embedder. Raw BM25 scores, which use the shard's statistics (all
   * organizations on it) where the embedded index uses one organization's,
   * so scores differ a little between the two while rankings agree.
   * Vectors come with the hits, as from `knn` (MMR over fused results needs them).
   * Each expansion word is one more pair of `match` clauses boosted by its
   * weight (its headings clause by weight × `HEADING_BOOST`): a boost scales
   * a clause's BM25 as the embedded index scales an expansion term's.
   */
  async bm25(
    filter: SearchFilter,
    query: string,
    k: number,
    expansion: readonly WeightedTerm[] = [],
  ): Promise<ScoredChunk[]> {
    const size = Math.floor(k);
    if (!(size >= 1) || query.trim() === '' || filter.dataSourceIds?.length === 0) return [];
    const expansionClauses = expansion
      .filter(({ word, weight }) => weight > 0 && word.trim() !== '')
      .flatMap(({ word, weight }) => [
        { match: { [BM25_FIELD]: { query: word, boost: weight } } },
        { match: { [HEADINGS_FIELD]: { query: word, boost: weight * HEADING_BOOST } } },
      ]);
    const response = await withSearchErrors('bm25', () =>
      this.client.search({
        index: chunkIndexPattern(this.prefix),
        routing: filter.orgId,
        body: {
          size,
          query: {
            bool: {
              // Title and text, plus the headings boosted; a chunk matching either is a hit.
              should: [
                { match: { [BM25_FIELD]: { query } } },
                { match: { [HEADINGS_FIELD]: { query, boost: HEADING_BOOST } } },
                ...expansionClauses,
              ],
              minimum_should_match: 1,
              filter: filterOf(filter),
            },
          },
        },
      }),
    );
    return scoredChunks(response.body, filter.orgId, (score) => score);
  }

  /** Each document of a data source with its first chunk's title and address, by a composite aggregation over document_id. */
  async documents(orgId: string, dataSourceId: string): Promise<IndexedDocument[]> {
    const listed: IndexedDocument[] = [];
    const pages = this.#documentBuckets(
      'documents',
      orgId,
      dataSourceId,
      {
        sources: [{ document_id: { terms: { field: 'document_id' } } }],
        aggregations: {
          first: {
            top_hits: {
              size: 1,
              sort: [{ position: 'asc' }],
              _source: ['document_title', 'document_url'],
            },
          },
        },
      },
      (body) => documentsSchema.parse(body).aggregations?.documents,
    );
    for await (const buckets of pages) {
      for (const bucket of buckets) {
        const first = bucket.first.hits.hits[0]?._source;
        listed.push({
          document_id: bucket.key.document_id,
          document_title: first?.document_title ?? '',
          document_url: first?.document_url ?? null,
          chunks: bucket.doc_count,
        });
      }
    }
    return listed;
  }

  /**
   * The buckets of a composite aggregation over one data source's chunks,
   * a page at a time: it scales to any number of documents, unlike a
   * `terms` aggregation, whose size must be known up front.
   */
  async *#documentBuckets<Bucket>(
    operation: string,
    orgId: string,
    dataSourceId: string,
    aggregation: {
      readonly sources: Record<string, CompositeAggregationSource>[];
      readonly aggregations?: Record<string, AggregationContainer>;
    },
    parse: (
      body: unknown,
    ) =>
      | { readonly buckets: readonly Bucket[]; readonly after_key?: Record<string, string> }
      | undefined,
  ): AsyncGenerator<readonly Bucket[]> {
    let after: Record<string, string> | undefined;
    do {
      const response = await withSearchErrors(operation, () =>
        this.client.search({
          index: chunkIndexPattern(this.prefix),
          routing: orgId,
          body: {
            size: 0,
            query: {
              bool: {
                filter: [{ term: { org_id: orgId } }, { term: { data_source_id: dataSourceId } }],
              },
            },
            aggregations: {
              documents: {
                composite: {
                  size: COMPOSITE_PAGE_SIZE,
                  sources: aggregation.sources,
                  ...(after ? { after } : {}),
                },
                ...(aggregation.aggregations ? { aggregations: aggregation.aggregations } : {}),
              },
            },
          },
        }),
      );
      const page = parse(response.body);
      if (!page) return;
      yield page.buckets;
      after = page.buckets.length < COMPOSITE_PAGE_SIZE ? undefined : page.after_key;
    } while (after);
  }

  async documentChunks(
    orgId: string,
    dataSourceId: string,
    documentId: string,
    limit: number,
  ): Promise<{ chunks: ChunkText[]; total: number }> {
    const response = await withSearchErrors('documentChunks', () =>
      this.client.search({
        index: chunkIndexPattern(this.prefix),
        routing: orgId,
        body: {
          size: limit,
          track_total_hits: true,
          sort: [{ position: 'asc' }],
          _source: { excludes: ['embedding'] },
          query: {
            bool: {
              filter: [
                { term: { org_id: orgId } },
                { term: { data_source_id: dataSourceId } },
                { term: { document_id: documentId } },
              ],
            },
          },
        },
      }),
    );
    const { hits } = documentChunksSchema.parse(response.body);
    const chunks = hits.hits
      // The query filters by organization; this drops anything else, should it ever slip through.
      .filter((hit) => hit._source.org_id === orgId)
      .map(({ _source }) => ({ ..._source, document_url: _source.document_url ?? null }));
    return { chunks, total: hits.total.value };
  }

  async count(filter: SearchFilter): Promise<number> {
    if (filter.dataSourceIds?.length === 0) return 0;
    const response = await withSearchErrors('count', () =>
      this.client.count({
        index: chunkIndexPattern(this.prefix),
        routing: filter.orgId,
        body: { query: { bool: { filter: filterOf(filter) } } },
      }),
    );
    return countSchema.parse(response.body).count;
  }

  private ensure(embedder: EmbedderShape): Promise<void> {
    const indexName = chunkIndexName(this.prefix, embedder.id);
    let ensured = this.ensured.get(indexName);
    if (!ensured) {
      ensured = ensureIndex(this.client, { prefix: this.prefix, embedder }).then(() => undefined);
      // A failed check is not remembered: the next write tries again.
      ensured.catch(() => this.ensured.delete(indexName));
      this.ensured.set(indexName, ensured);
    }
    return ensured;
  }

  /**
   * Sends the chunks in bulk requests of at most MAX_BULK_BYTES. Only the last
   * request waits for a refresh (`wait_for`, which rides on the scheduled
   * refresh instead of forcing small segments); with the index's single
   * shard, that refresh makes every earlier request visible too.
   */
  private async bulkIndex(
    indexName: string,
    chunks: readonly IndexedChunk[],
  ): Promise<BulkItemFailure[]> {
    const failures: BulkItemFailure[] = [];
    const batches = bulkBatches(indexName, chunks);
    for (const [position, body] of batches.entries()) {
      const last = position === batches.length - 1;
      const response = await withSearchErrors('upsert', () =>
        this.client.bulk(
          { body, refresh: last ? 'wait_for' : false },
          { requestTimeout: this.writeTimeoutMs },
        ),
      );
      const result = bulkResponseSchema.parse(response.body);
      if (!result.errors) continue;
      for (const item of result.items) {
        for (const outcome of Object.values(item)) {
          if (!outcome.error) continue;
          failures.push({
            chunkId: outcome._id ?? 'unknown',
            status: outcome.status,
            type: outcome.error.type ?? 'unknown',
            reason: outcome.error.reason ?? 'no reason given',
          });
        }
      }
    }
    return failures;
  }

  /** Removes these chunk ids from the other embedders' indexes (none exist, usually: then it is a no-op). */
  private async removeFromOtherIndexes(
    indexName: string,
    chunks: readonly IndexedChunk[],
  ): Promise<void> {
    const idsByOrg = new Map<string, string[]>();
    for (const chunk of chunks) {
      idsByOrg.set(chunk.org_id, [...(idsByOrg.get(chunk.org_id) ?? []), chunk.chunk_id]);
    }
    for (const [orgId, chunkIds] of idsByOrg) {
      await this.deleteByQuery('upsert', otherChunkIndexes(this.prefix, indexName), orgId, [
        { term: { org_id: orgId } },
        { ids: { values: chunkIds } },
      ]);
    }
  }

  /**
   * `_delete_by_query` on the organization's shard. `refresh: true` (the only
   * choice delete-by-query has besides none) so a search right after the
   * delete no longer finds the chunks; `conflicts: proceed` so a chunk
   * rewritten meanwhile does not abort the whole delete.
   */
  private async deleteByQuery(
    operation: string,
    index: string,
    orgId: string,
    filter: readonly object[],
  ): Promise<void> {
    const response = await withSearchErrors(operation, () =>
      this.client.deleteByQuery(
        {
          index,
          routing: orgId,
          refresh: true,
          conflicts: 'proceed',
          allow_no_indices: true,
          ignore_unavailable: true,
          body: { query: { bool: { filter: [...filter] } } },
        },
        { requestTimeout: this.writeTimeoutMs },
      ),
    );
    const result = deleteByQuerySchema.parse(response.body);
    const [failure] = result.failures;
    if (failure) {
      throw errorFromStatus(operation, failure.status ?? 500, failure.cause);
    }
    if (result.timed_out) {
      throw new SearchUnavailableError(`OpenSearch timed out during ${operation}`);
    }
  }
}

/** The organization filter, always; the data source filter when given. */
function filterOf(filter: SearchFilter): object[] {
  const clauses: object[] = [{ term: { org_id: filter.orgId } }];
  if (filter.dataSourceIds) {
    clauses.push({ terms: { data_source_id: [...filter.dataSourceIds] } });
  }
  return clauses;
}
