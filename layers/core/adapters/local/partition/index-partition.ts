import type { Bm25Parameters } from '../../../domain/retrieval/bm25';
import {
  type ChunkText,
  EmbedderMismatchError,
  type IndexedDocument,
  type ScoredChunk,
  type WeightedTerm,
} from '../../../ports/retrieval-index.port';
import { plainChunk, SnapshotChunk, type StoredChunk } from '../snapshot-chunk';
import { IntList } from './int-list';
import { LexicalIndex } from './lexical-index';
import type { GraphLoader, LoadedImage, PartitionImage, StoredChunkTable } from './partition-image';
import { type AnnSettings, DEFAULT_ANN, VectorStore } from './vector-store';

export type { GraphLoader, LoadedImage, PartitionImage } from './partition-image';
export { type AnnSettings, DEFAULT_ANN } from './vector-store';
export type { StoredChunk };

interface DataSourceEntry {
  /** Small integer naming the data source inside this partition (filters test it per chunk). */
  readonly number: number;
  /** document_id → its chunks' document numbers. */
  readonly documents: Map<string, Set<number>>;
  chunkCount: number;
  /** embedder_id → how many of this data source's chunks it embedded. */
  readonly embedders: Map<string, number>;
}

/**
 * Everything one organization has in the embedded index, in memory: chunk
 * metadata by document number, its vectors (vector-store.ts: one slab per
 * embedder, and a graph for large ones), and a BM25 inverted index
 * (lexical-index.ts). Nothing here can reach another organization's chunks:
 * EmbeddedIndex keeps one partition per organization.
 *
 * Document numbers only grow; a deleted chunk leaves a hole that searches
 * skip, and `compact()` renumbers once holes outnumber live chunks.
 */
/** A live chunk still in the snapshot's file (format 4): decoded when first asked for. */
const IN_FILE = Symbol('in the snapshot file');

export class IndexPartition {
  /** By document number: the chunk, IN_FILE for one not decoded yet, undefined for a hole. */
  #chunks: (StoredChunk | typeof IN_FILE | undefined)[] = [];
  /** Where IN_FILE chunks are read from; null once none is left. */
  #stored: StoredChunkTable | null = null;
  readonly #numberById = new Map<string, number>();
  #dataSourceOf = new IntList();
  readonly #dataSources = new Map<string, DataSourceEntry>();
  #nextDataSourceNumber = 0;
  #vectors: VectorStore;
  #lexical = new LexicalIndex();
  #live = 0;
  #holes = 0;
  /**
   * Whether `#numberById` and the data sources' `documents` hold every chunk.
   * A partition loaded from a snapshot fills them at its first change or
   * document listing, not at load: a million chunks' ids in a Map took a
   * good part of a restart that only needed to answer searches.
   */
  #membersKnown = true;

  constructor(ann: AnnSettings = DEFAULT_ANN) {
    this.#vectors = new VectorStore(ann);
  }

  get size(): number {
    return this.#live;
  }

  /** Adds a chunk, replacing the one with the same chunk_id. */
  insert(chunk: StoredChunk, embedding: ArrayLike<number>): void {
    // First, as it may refuse the chunk (vector length): nothing has changed yet then.
    const slabNumber = this.#vectors.slabFor(chunk.embedder_id, embedding.length);
    this.#knowMembers();
    const existing = this.#numberById.get(chunk.chunk_id);
    if (existing !== undefined) this.#remove(existing);

    const doc = this.#chunks.length;
    this.#chunks.push(chunk);
    this.#dataSourceOf.push(this.#join(doc, chunk).number);
    this.#vectors.add(doc, slabNumber, embedding);
    this.#lexical.add(doc, chunk);
    this.#live += 1;
  }

  /** Dimensions the embedder's vectors have here, if it embedded any chunk of this partition. */
  dimensionsOf(embedderId: string): number | undefined {
    return this.#vectors.dimensionsOf(embedderId);
  }

  deleteDocument(dataSourceId: string, documentId: string): void {
    this.#knowMembers();
    const members = this.#dataSources.get(dataSourceId)?.documents.get(documentId);
    for (const doc of [...(members ?? [])]) this.#remove(doc);
    this.#compactIfWorthIt();
  }

  deleteDataSource(dataSourceId: string): void {
    this.#knowMembers();
    const source = this.#dataSources.get(dataSourceId);
    for (const members of [...(source?.documents.values() ?? [])]) {
      for (const doc of [...members]) this.#remove(doc);
    }
    this.#compactIfWorthIt();
  }

  /**
   * document_id → document_hash. A document whose chunks disagree (a
   * re-sync interrupted half-way), or with a chunk another embedder than
   * `embedderId` made, reports an empty hash, which matches no real one, so
   * the next sync embeds it again.
   */
  documentHashes(dataSourceId: string, embedderId?: string): Map<string, string> {
    this.#knowMembers();
    const hashes = new Map<string, string>();
    for (const [documentId, members] of this.#dataSources.get(dataSourceId)?.documents ?? []) {
      const chunks = [...members].map((doc) => this.#chunkAt(doc));
      const seen = new Set(chunks.map((chunk) => chunk?.document_hash ?? ''));
      const foreign =
        embedderId !== undefined && chunks.some((chunk) => chunk?.embedder_id !== embedderId);
      hashes.set(documentId, seen.size === 1 && !foreign ? ([...seen][0] ?? '') : '');
    }
    return hashes;
  }

  /** Each indexed document of a data source: its first chunk's title and address, its chunk count. */
  documents(dataSourceId: string): IndexedDocument[] {
    this.#knowMembers();
    const listed: IndexedDocument[] = [];
    for (const [documentId, members] of this.#dataSources.get(dataSourceId)?.documents ?? []) {
      const first = this.#inOrder(members)[0];
      if (!first) continue;
      listed.push({
        document_id: documentId,
        document_title: first.document_title,
        document_url: first.document_url,
        chunks: members.size,
      });
    }
    return listed;
  }

  /** A document's chunks by position, the first `limit` of them (plain copies, text decoded). */
  documentChunks(
    dataSourceId: string,
    documentId: string,
    limit: number,
  ): { chunks: ChunkText[]; total: number } {
    this.#knowMembers();
    const members = this.#dataSources.get(dataSourceId)?.documents.get(documentId) ?? new Set();
    const chunks = this.#inOrder(members).slice(0, limit).map(plainChunk);
    return { chunks, total: members.size };
  }

  #inOrder(members: ReadonlySet<number>): StoredChunk[] {
    return [...members]
      .map((doc) => this.#chunkAt(doc))
      .filter((chunk): chunk is StoredChunk => chunk !== undefined)
      .sort((a, b) => a.position - b.position);
  }

  count(dataSourceIds: readonly string[] | undefined): number {
    if (dataSourceIds === undefined) return this.#live;
    let total = 0;
    for (const id of new Set(dataSourceIds)) total += this.#dataSources.get(id)?.chunkCount ?? 0;
    return total;
  }

  /**
   * k-NN by cosine similarity over the chunks the filter lets through (exact,
   * or through a graph for large slabs: vector-store.ts). Refuses
   * (EmbedderMismatchError) when any of those chunks was embedded by another
   * embedder: its vectors would be compared with incomparable ones.
   */
  knn(
    dataSourceIds: readonly string[] | undefined,
    vector: readonly number[],
    embedderId: string,
    k: number,
  ): ScoredChunk[] {
    const sources = this.#visibleSources(dataSourceIds);
    for (const source of sources) {
      for (const [other, count] of source.embedders) {
        if (other !== embedderId && count > 0) throw new EmbedderMismatchError(other, embedderId);
      }
    }
    const best = this.#vectors.nearest(embedderId, vector, k, {
      allowed: this.#allowedMask(dataSourceIds),
      dataSourceOf: this.#dataSourceOf.values,
      isLive: (doc) => this.#chunks[doc] !== undefined,
      visible: () =>
        sources.reduce((sum, source) => sum + (source.embedders.get(embedderId) ?? 0), 0),
    });
    if (!best) return [];
    return best.drain().map(({ id, score }) => this.#scored(id, Math.max(-1, Math.min(1, score))));
  }

  /**
   * The best chunks by BM25 of `query` over title and text, plus the boosted
   * BM25 of their headings, among those the filter lets through.
   * Each expansion word's terms add its weight to the term's (a query word weighs 1).
   */
  bm25(
    dataSourceIds: readonly string[] | undefined,
    query: string,
    k: number,
    parameters: Bm25Parameters,
    expansion: readonly WeightedTerm[] = [],
  ): ScoredChunk[] {
    if (k < 1 || this.#live === 0) return [];
    const allowed = this.#allowedMask(dataSourceIds);
    const dataSourceOf = this.#dataSourceOf.values;
    const chunks = this.#chunks;
    const wanted = (doc: number) =>
      chunks[doc] !== undefined && (allowed === null || allowed[dataSourceOf[doc] as number] === 1);
    const best = this.#lexical.search(
      query,
      expansion,
      k,
      parameters,
      { live: this.#live, count: chunks.length },
      wanted,
    );
    return best ? best.drain().map(({ id, score }) => this.#scored(id, score)) : [];
  }

  /**
   * The partition as its snapshot keeps it (index-files.ts). Views of live
   * memory: encode them before anything else changes the partition.
   */
  image(): PartitionImage {
    this.#decodeAll();
    return {
      chunks: this.#chunks.map((chunk) => (chunk === IN_FILE ? null : (chunk ?? null))),
      slabs: this.#vectors.image((doc) => this.#chunks[doc] !== undefined),
      ...this.#lexical.image(),
    };
  }

  /**
   * The partition a snapshot's image describes. `loadGraph` gives each slab
   * its saved graph, or undefined (none saved, or unreadable): the next
   * search then builds it again from the vectors.
   */
  static fromImage(
    image: LoadedImage,
    loadGraph: GraphLoader,
    ann: AnnSettings = DEFAULT_ANN,
  ): IndexPartition {
    const partition = new IndexPartition(ann);
    const table = Array.isArray(image.chunks) ? null : (image.chunks as StoredChunkTable);
    const count = table ? table.count : (image.chunks as readonly unknown[]).length;
    partition.#vectors = VectorStore.fromImage(image.slabs, count, loadGraph, ann);
    partition.#dataSourceOf = new IntList(Math.max(4, count));
    partition.#dataSourceOf.size = count;
    partition.#membersKnown = false;
    if (table) {
      partition.#fromTable(table, image);
    } else {
      const chunks = image.chunks as readonly (StoredChunk | null)[];
      partition.#chunks = chunks.map((chunk) => chunk ?? undefined);
      chunks.forEach((chunk, doc) => {
        if (!chunk) {
          partition.#holes += 1;
          return;
        }
        partition.#dataSourceOf.values[doc] = partition.#join(doc, chunk).number;
        partition.#live += 1;
      });
    }
    const chunks = partition.#chunks;
    partition.#lexical = LexicalIndex.fromImage(
      image,
      (doc) => chunks[doc] !== undefined,
      table ? table.headings : headingsOf(chunks),
    );
    return partition;
  }

  /**
   * A format-4 image's columns, without decoding a chunk: data source numbers
   * as the snapshot gives them, counts from them and from the slabs.
   */
  #fromTable(table: StoredChunkTable, image: LoadedImage): void {
    const count = table.count;
    const sources = table.dataSources.map((id, number) => ({
      id,
      number,
      chunkCount: 0,
      embedders: new Map<string, number>(),
    }));
    this.#chunks = new Array(count);
    this.#dataSourceOf.values.set(table.dataSourceOf);
    for (let doc = 0; doc < count; doc += 1) {
      const number = table.dataSourceOf[doc] as number;
      const source = sources[number];
      if (!source) {
        this.#chunks[doc] = undefined;
        this.#holes += 1;
        continue;
      }
      this.#chunks[doc] = IN_FILE;
      source.chunkCount += 1;
      this.#live += 1;
    }
    // Each live chunk's vector is in its embedder's slab: the slabs count chunks by embedder.
    for (const slab of image.slabs) {
      const perSource = new Int32Array(sources.length);
      for (const doc of slab.docs) {
        const number = table.dataSourceOf[doc] as number;
        perSource[number] = (perSource[number] ?? 0) + 1;
      }
      perSource.forEach((embedded, number) => {
        if (embedded > 0) sources[number]?.embedders.set(slab.embedderId, embedded);
      });
    }
    for (const source of sources) {
      if (source.chunkCount === 0) continue;
      this.#dataSources.set(source.id, {
        number: source.number,
        documents: new Map(),
        chunkCount: source.chunkCount,
        embedders: source.embedders,
      });
    }
    this.#nextDataSourceNumber = sources.length;
    this.#stored = table;
  }

  /** Renumbers live chunks densely and drops dead postings. */
  compact(): void {
    this.#knowMembers();
    const renumbered = new Int32Array(this.#chunks.length).fill(-1);
    const kept: number[] = [];
    const chunks: StoredChunk[] = [];
    const dataSourceOf = new IntList(Math.max(4, this.#live));
    this.#chunks.forEach((chunk, doc) => {
      if (!chunk || chunk === IN_FILE) return;
      renumbered[doc] = chunks.length;
      this.#numberById.set(chunk.chunk_id, chunks.length);
      kept.push(doc);
      chunks.push(chunk);
      dataSourceOf.push(this.#dataSourceOf.values[doc] ?? 0);
    });
    for (const source of this.#dataSources.values()) {
      for (const [documentId, members] of source.documents) {
        source.documents.set(documentId, new Set([...members].map((doc) => renumbered[doc] ?? -1)));
      }
    }
    this.#vectors.renumber(renumbered, kept);
    this.#lexical.renumber(renumbered, kept);
    this.#chunks = chunks;
    this.#dataSourceOf = dataSourceOf;
    this.#holes = 0;
  }

  #scored(doc: number, score: number): ScoredChunk {
    const chunk = this.#chunkAt(doc);
    if (!chunk) throw new Error(`Internal: document ${doc} is not live`);
    // A copy of the vector (one memcpy): the slab moves vectors when chunks are removed.
    const embedding = this.#vectors.vectorOf(doc).slice();
    return {
      chunk:
        chunk instanceof SnapshotChunk ? chunk.resultCopy({ embedding }) : { ...chunk, embedding },
      score,
    };
  }

  #visibleSources(dataSourceIds: readonly string[] | undefined): DataSourceEntry[] {
    if (dataSourceIds === undefined) return [...this.#dataSources.values()];
    return dataSourceIds.flatMap((id) => this.#dataSources.get(id) ?? []);
  }

  /** 1 for each data source number the filter lets through; null when it lets all through. */
  #allowedMask(dataSourceIds: readonly string[] | undefined): Uint8Array | null {
    if (dataSourceIds === undefined) return null;
    const mask = new Uint8Array(this.#nextDataSourceNumber);
    for (const source of this.#visibleSources(dataSourceIds)) mask[source.number] = 1;
    return mask;
  }

  /** Records chunk `doc` among its data source's (made on first use); returns that data source. */
  #join(doc: number, chunk: StoredChunk): DataSourceEntry {
    let source = this.#dataSources.get(chunk.data_source_id);
    if (!source) {
      source = {
        number: this.#nextDataSourceNumber,
        documents: new Map(),
        chunkCount: 0,
        embedders: new Map(),
      };
      this.#nextDataSourceNumber += 1;
      this.#dataSources.set(chunk.data_source_id, source);
    }
    if (this.#membersKnown) this.#addMember(source, doc, chunk);
    source.chunkCount += 1;
    source.embedders.set(chunk.embedder_id, (source.embedders.get(chunk.embedder_id) ?? 0) + 1);
    return source;
  }

  #addMember(source: DataSourceEntry, doc: number, chunk: StoredChunk): void {
    this.#numberById.set(chunk.chunk_id, doc);
    let members = source.documents.get(chunk.document_id);
    if (!members) {
      members = new Set();
      source.documents.set(chunk.document_id, members);
    }
    members.add(doc);
  }

  /** Fills the chunk-id map and the documents' members of a partition loaded from a snapshot, once. */
  #knowMembers(): void {
    if (this.#membersKnown) return;
    this.#decodeAll();
    this.#chunks.forEach((chunk, doc) => {
      const source = chunk && chunk !== IN_FILE && this.#dataSources.get(chunk.data_source_id);
      if (chunk && chunk !== IN_FILE && source) this.#addMember(source, doc, chunk);
    });
    this.#membersKnown = true;
  }

  /** The chunk of document `doc`, decoded from the snapshot's file (and kept) the first time. */
  #chunkAt(doc: number): StoredChunk | undefined {
    const chunk = this.#chunks[doc];
    if (chunk !== IN_FILE) return chunk;
    if (!this.#stored) throw new Error(`Internal: document ${doc} is in no file`);
    const decoded = this.#stored.chunk(doc);
    this.#chunks[doc] = decoded;
    return decoded;
  }

  /** Decodes every chunk still in the snapshot's file (one read), before a change or a listing. */
  #decodeAll(): void {
    const stored = this.#stored;
    if (!stored) return;
    const all = stored.all();
    this.#chunks.forEach((chunk, doc) => {
      if (chunk === IN_FILE) this.#chunks[doc] = all[doc] ?? undefined;
    });
    this.#stored = null;
  }

  #remove(doc: number): void {
    const chunk = this.#chunkAt(doc);
    if (!chunk) return;
    this.#chunks[doc] = undefined;
    this.#numberById.delete(chunk.chunk_id);
    this.#holes += 1;

    const source = this.#dataSources.get(chunk.data_source_id);
    if (source) {
      const members = source.documents.get(chunk.document_id);
      members?.delete(doc);
      if (members?.size === 0) source.documents.delete(chunk.document_id);
      source.chunkCount -= 1;
      const embedded = (source.embedders.get(chunk.embedder_id) ?? 1) - 1;
      if (embedded > 0) source.embedders.set(chunk.embedder_id, embedded);
      else source.embedders.delete(chunk.embedder_id);
      if (source.chunkCount === 0) this.#dataSources.delete(chunk.data_source_id);
    }
    this.#vectors.remove(doc);
    this.#lexical.remove(doc, chunk);
    this.#live -= 1;
  }

  #compactIfWorthIt(): void {
    if (this.#holes > 1024 && this.#holes > this.#live) this.compact();
  }
}

/** The heading paths of the chunks that have one, by document number. */
function headingsOf(
  chunks: readonly (StoredChunk | typeof IN_FILE | undefined)[],
): Map<number, readonly string[]> {
  const headings = new Map<number, readonly string[]>();
  chunks.forEach((chunk, doc) => {
    if (chunk && chunk !== IN_FILE && chunk.heading_path.length > 0) {
      headings.set(doc, chunk.heading_path);
    }
  });
  return headings;
}
