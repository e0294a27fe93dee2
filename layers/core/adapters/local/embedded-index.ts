import { type Bm25Parameters, DEFAULT_BM25 } from '../../domain/retrieval/bm25';
import type {
  IndexedChunk,
  RetrievalIndex,
  ScoredChunk,
  SearchFilter,
} from '../../ports/retrieval-index.port';
import { type IndexOperation, OrgIndexFiles } from './index-files';
import { IndexPartition, type StoredChunk } from './index-partition';

export interface EmbeddedIndexOptions {
  /**
   * Where each organization's snapshot and log live (for the local runtime, a
   * folder under SVC_DATA_DIR). Omitted: memory only (tests, eval, benchmarks).
   */
  readonly directory?: string;
  /** @default DEFAULT_BM25 (k1 0.9, b 0.4) */
  readonly bm25?: Partial<Bm25Parameters>;
  /**
   * Log size after which an organization's snapshot is rewritten and its log
   * emptied. Larger: fewer rewrites while syncing; smaller: faster loading.
   * @default 64 MiB
   */
  readonly compactLogBytes?: number;
}

const DEFAULT_COMPACT_LOG_BYTES = 64 * 1024 * 1024;

/**
 * The retrieval index on one machine (ARCHITECTURE.md: "embedded index,
 * exact cosine + BM25, persisted under .data/"): exact k-NN over float32
 * vectors and BM25 over `document_title + "\n" + text`, with the same
 * contract as the OpenSearch adapter (test/contract/retrieval-index.contract.ts).
 *
 * Tenant isolation is structural: each organization has its own partition,
 * in memory and on disk, and a search reads only the partition of
 * `filter.orgId` — there is no query that spans two. Partitions are loaded
 * on first use. Writes change memory at once and resolve once they are
 * flushed to the organization's log (see index-files.ts); writes of one
 * organization reach its files in call order. One process owns a directory.
 *
 * @example
 * const index = new EmbeddedIndex({ directory: join(dataDir, 'index') });
 * await index.upsert(chunks);
 * const hits = await index.knn({ orgId }, vector, embedder.id, 10);
 */
export class EmbeddedIndex implements RetrievalIndex {
  readonly #directory: string | undefined;
  readonly #bm25: Bm25Parameters;
  readonly #compactLogBytes: number;
  readonly #partitions = new Map<string, Promise<IndexPartition>>();
  readonly #files = new Map<string, OrgIndexFiles>();
  /** Per organization, the last write to its files: the next one waits for it. */
  readonly #writes = new Map<string, Promise<void>>();

  constructor(options: EmbeddedIndexOptions = {}) {
    this.#directory = options.directory;
    this.#bm25 = { ...DEFAULT_BM25, ...options.bm25 };
    this.#compactLogBytes = options.compactLogBytes ?? DEFAULT_COMPACT_LOG_BYTES;
  }

  async upsert(chunks: readonly IndexedChunk[]): Promise<void> {
    const byOrg = new Map<string, IndexedChunk[]>();
    for (const chunk of chunks) {
      assertIndexable(chunk);
      const own = byOrg.get(chunk.org_id);
      if (own) own.push(chunk);
      else byOrg.set(chunk.org_id, [chunk]);
    }
    // Every organization's part is checked before any is applied, so a refused batch changes nothing.
    const batches: { orgId: string; partition: IndexPartition; own: IndexedChunk[] }[] = [];
    for (const [orgId, own] of byOrg) {
      const partition = await this.#partition(orgId);
      assertConsistentDimensions(partition, own);
      batches.push({ orgId, partition, own });
    }
    for (const { orgId, partition, own } of batches) {
      const operation: IndexOperation = {
        op: 'upsert',
        // Copies: the log is written after earlier writes, and the caller may reuse its arrays by then.
        chunks: own.map(({ embedding, ...chunk }) => ({
          chunk: storedCopy(chunk),
          embedding: [...embedding],
        })),
      };
      apply(partition, operation);
      await this.#persist(orgId, partition, operation);
    }
  }

  async deleteDocument(orgId: string, dataSourceId: string, documentId: string): Promise<void> {
    const partition = await this.#partition(orgId);
    const operation: IndexOperation = {
      op: 'deleteDocument',
      data_source_id: dataSourceId,
      document_id: documentId,
    };
    apply(partition, operation);
    await this.#persist(orgId, partition, operation);
  }

  async deleteDataSource(orgId: string, dataSourceId: string): Promise<void> {
    const partition = await this.#partition(orgId);
    const operation: IndexOperation = { op: 'deleteDataSource', data_source_id: dataSourceId };
    apply(partition, operation);
    await this.#persist(orgId, partition, operation);
  }

  async documentHashes(orgId: string, dataSourceId: string): Promise<Map<string, string>> {
    return (await this.#partition(orgId)).documentHashes(dataSourceId);
  }

  async knn(
    filter: SearchFilter,
    vector: readonly number[],
    embedderId: string,
    k: number,
  ): Promise<ScoredChunk[]> {
    if (filter.dataSourceIds?.length === 0) return [];
    return (await this.#partition(filter.orgId)).knn(filter.dataSourceIds, vector, embedderId, k);
  }

  async bm25(filter: SearchFilter, query: string, k: number): Promise<ScoredChunk[]> {
    if (filter.dataSourceIds?.length === 0) return [];
    return (await this.#partition(filter.orgId)).bm25(filter.dataSourceIds, query, k, this.#bm25);
  }

  async count(filter: SearchFilter): Promise<number> {
    if (filter.dataSourceIds?.length === 0) return 0;
    return (await this.#partition(filter.orgId)).count(filter.dataSourceIds);
  }

  /** Waits until every write so far is on disk (or has failed). */
  async close(): Promise<void> {
    await Promise.all([...this.#writes.values()]);
  }

  /** The organization's partition, loaded from its files on first use. */
  #partition(orgId: string): Promise<IndexPartition> {
    let partition = this.#partitions.get(orgId);
    if (!partition) {
      partition = this.#load(orgId);
      this.#partitions.set(orgId, partition);
      // A failed load is not cached: the next call tries again (and reports the error again).
      partition.catch(() => this.#partitions.delete(orgId));
    }
    return partition;
  }

  async #load(orgId: string): Promise<IndexPartition> {
    const partition = new IndexPartition();
    const files = this.#filesOf(orgId);
    if (!files) return partition;
    const { chunks, operations } = await files.load();
    for (const { chunk, embedding } of chunks) partition.insert(chunk, embedding);
    for (const operation of operations) apply(partition, operation);
    return partition;
  }

  #filesOf(orgId: string): OrgIndexFiles | undefined {
    if (this.#directory === undefined) return undefined;
    let files = this.#files.get(orgId);
    if (!files) {
      files = new OrgIndexFiles(this.#directory, orgId);
      this.#files.set(orgId, files);
    }
    return files;
  }

  /** Logs one operation after the organization's earlier ones; rewrites the snapshot when the log has grown. */
  #persist(orgId: string, partition: IndexPartition, operation: IndexOperation): Promise<void> {
    const files = this.#filesOf(orgId);
    if (!files) return Promise.resolve();
    const previous = this.#writes.get(orgId) ?? Promise.resolve();
    const write = previous.then(async () => {
      await files.append(operation);
      if (files.logBytes > this.#compactLogBytes) await files.writeSnapshot(partition.entries());
    });
    // The chain continues after a failed write; the caller of that write gets its error.
    this.#writes.set(
      orgId,
      write.catch(() => undefined),
    );
    return write;
  }
}

function apply(partition: IndexPartition, operation: IndexOperation): void {
  switch (operation.op) {
    case 'upsert':
      for (const { chunk, embedding } of operation.chunks) partition.insert(chunk, embedding);
      return;
    case 'deleteDocument':
      partition.deleteDocument(operation.data_source_id, operation.document_id);
      return;
    case 'deleteDataSource':
      partition.deleteDataSource(operation.data_source_id);
      return;
  }
}

/** A copy the caller cannot change afterwards (the index hands out copies of it too). */
function storedCopy(chunk: StoredChunk): StoredChunk {
  return {
    chunk_id: chunk.chunk_id,
    org_id: chunk.org_id,
    data_source_id: chunk.data_source_id,
    document_id: chunk.document_id,
    document_title: chunk.document_title,
    document_url: chunk.document_url,
    heading_path: [...chunk.heading_path],
    text: chunk.text,
    position: chunk.position,
    document_hash: chunk.document_hash,
    embedder_id: chunk.embedder_id,
  };
}

/** One embedder's vectors all have one length, in the batch and with what is already indexed. */
function assertConsistentDimensions(
  partition: IndexPartition,
  chunks: readonly IndexedChunk[],
): void {
  const dimensions = new Map<string, number>();
  for (const chunk of chunks) {
    const expected = dimensions.get(chunk.embedder_id) ?? partition.dimensionsOf(chunk.embedder_id);
    if (expected !== undefined && expected !== chunk.embedding.length) {
      throw new RangeError(
        `Chunk ${chunk.chunk_id}: ${chunk.embedder_id} vectors have ${expected} dimensions, this one ${chunk.embedding.length}`,
      );
    }
    dimensions.set(chunk.embedder_id, chunk.embedding.length);
  }
}

function assertIndexable(chunk: IndexedChunk): void {
  if (chunk.org_id.length === 0) throw new RangeError(`Chunk ${chunk.chunk_id} has no org_id`);
  if (chunk.embedding.length === 0 || !chunk.embedding.every(Number.isFinite)) {
    throw new RangeError(`Chunk ${chunk.chunk_id} needs a vector of finite numbers`);
  }
}
