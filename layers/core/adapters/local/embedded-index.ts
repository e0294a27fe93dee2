import { type Bm25Parameters, DEFAULT_BM25 } from '../../domain/retrieval/bm25';
import type {
  ChunkText,
  IndexedChunk,
  IndexedDocument,
  RetrievalIndex,
  ScoredChunk,
  SearchFilter,
  WeightedTerm,
} from '../../ports/retrieval-index.port';
import { type IndexOperation, OrgIndexFiles } from './index-files';
import { type AnnSettings, DEFAULT_ANN, IndexPartition } from './partition/index-partition';
import { plainChunk } from './snapshot-chunk';

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
  /** When k-NN searches an ANN graph instead of every vector; tests lower `minVectors`. */
  readonly ann?: Partial<AnnSettings>;
}

const DEFAULT_COMPACT_LOG_BYTES = 64 * 1024 * 1024;

/**
 * The retrieval index on one machine (ARCHITECTURE.md: "embedded index,
 * cosine + BM25, persisted under .data/"): k-NN over float32 vectors (an
 * exact scan, or an HNSW graph whose candidates are rescored exactly once an
 * embedder has `ann.minVectors` vectors in an organization) and
 * BM25 over `document_title + "\n" + text`, with the same contract as the
 * OpenSearch adapter (test/contract/retrieval-index.contract.ts).
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
  readonly #ann: AnnSettings;
  readonly #partitions = new Map<string, Promise<IndexPartition>>();
  readonly #files = new Map<string, OrgIndexFiles>();
  /** Per organization, the last write to its files: the next one waits for it. */
  readonly #writes = new Map<string, Promise<void>>();
  /** Per organization, the operations waiting for the next write (P112: committed together). */
  readonly #waiting = new Map<
    string,
    {
      readonly operation: IndexOperation;
      readonly resolve: () => void;
      readonly reject: (error: unknown) => void;
    }[]
  >();

  constructor(options: EmbeddedIndexOptions = {}) {
    this.#directory = options.directory;
    this.#bm25 = { ...DEFAULT_BM25, ...options.bm25 };
    this.#compactLogBytes = options.compactLogBytes ?? DEFAULT_COMPACT_LOG_BYTES;
    this.#ann = { ...DEFAULT_ANN, ...options.ann };
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
          chunk: plainChunk(chunk),
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

  async documentHashes(
    orgId: string,
    dataSourceId: string,
    embedderId?: string,
  ): Promise<Map<string, string>> {
    return (await this.#partition(orgId)).documentHashes(dataSourceId, embedderId);
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

  async bm25(
    filter: SearchFilter,
    query: string,
    k: number,
    expansion: readonly WeightedTerm[] = [],
  ): Promise<ScoredChunk[]> {
    if (filter.dataSourceIds?.length === 0) return [];
    return (await this.#partition(filter.orgId)).bm25(
      filter.dataSourceIds,
      query,
      k,
      this.#bm25,
      expansion,
    );
  }

  async documents(orgId: string, dataSourceId: string): Promise<IndexedDocument[]> {
    return (await this.#partition(orgId)).documents(dataSourceId);
  }

  async documentChunks(
    orgId: string,
    dataSourceId: string,
    documentId: string,
    limit: number,
  ): Promise<{ chunks: ChunkText[]; total: number }> {
    return (await this.#partition(orgId)).documentChunks(dataSourceId, documentId, limit);
  }

  async count(filter: SearchFilter): Promise<number> {
    if (filter.dataSourceIds?.length === 0) return 0;
    return (await this.#partition(filter.orgId)).count(filter.dataSourceIds);
  }

  /**
   * Writes the snapshot (and graphs) of every organization loaded so far, after
   * its earlier writes, and empties its log: a start then loads without
   * replaying anything (the bench, and an operator's tool).
   */
  async snapshot(): Promise<void> {
    const written: Promise<void>[] = [];
    for (const [orgId, loading] of this.#partitions) {
      const files = this.#filesOf(orgId);
      if (!files) continue;
      const partition = await loading;
      const previous = this.#writes.get(orgId) ?? Promise.resolve();
      const write = previous.then(() => files.writeSnapshot(partition.image()));
      this.#writes.set(
        orgId,
        write.catch(() => undefined),
      );
      written.push(write);
    }
    await Promise.all(written);
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
    const files = this.#filesOf(orgId);
    if (!files) return new IndexPartition(this.#ann);
    const loaded = await files.load();
    let partition: IndexPartition;
    if (loaded.format === 1) {
      partition = new IndexPartition(this.#ann);
      for (const { chunk, embedding } of loaded.chunks) partition.insert(chunk, embedding);
    } else {
      partition = loaded.image
        ? IndexPartition.fromImage(loaded.image, loaded.loadGraph, this.#ann)
        : new IndexPartition(this.#ann);
    }
    for (const operation of loaded.operations) apply(partition, operation);
    // An older format is written again in format 4 once, so the next start is fast.
    if (loaded.format !== 4) await files.writeSnapshot(partition.image());
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

  /**
   * Logs one operation after the organization's earlier ones; rewrites the
   * snapshot when the log has grown. P112, group commit: operations that
   * arrive while the organization's previous write is being flushed are
   * written and flushed together by the next one (one write, one fdatasync),
   * each resolving once its own line is on disk, in call order as before.
   */
  #persist(orgId: string, partition: IndexPartition, operation: IndexOperation): Promise<void> {
    const files = this.#filesOf(orgId);
    if (!files) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      let group = this.#waiting.get(orgId);
      if (!group) {
        group = [];
        this.#waiting.set(orgId, group);
        const previous = this.#writes.get(orgId) ?? Promise.resolve();
        const waiting = group;
        const write = previous.then(async () => {
          // From here on, newer operations start the next group.
          if (this.#waiting.get(orgId) === waiting) this.#waiting.delete(orgId);
          try {
            await files.appendAll(waiting.map((entry) => entry.operation));
            if (files.logBytes > this.#compactLogBytes) {
              await files.writeSnapshot(partition.image());
            }
          } catch (error) {
            // Each caller of the group gets the error; the chain continues with the next group.
            for (const entry of waiting) entry.reject(error);
            return;
          }
          for (const entry of waiting) entry.resolve();
        });
        this.#writes.set(orgId, write);
      }
      group.push({ operation, resolve, reject });
    });
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
