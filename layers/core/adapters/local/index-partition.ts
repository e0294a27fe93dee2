import { type Bm25Parameters, bm25Idf, bm25TermScore } from '../../domain/retrieval/bm25';
import { analyze } from '../../domain/retrieval/text-analysis';
import {
  EmbedderMismatchError,
  type IndexedChunk,
  type ScoredChunk,
} from '../../ports/retrieval-index.port';
import { TopK } from './top-k';

/** A chunk as the partition keeps it: the vector lives in its embedder's slab. */
export type StoredChunk = Omit<IndexedChunk, 'embedding'>;

/** What BM25 reads of a chunk (issue 3: "over text and title"), as Anserini's flat BEIR documents. */
export function bm25Text(chunk: Pick<IndexedChunk, 'document_title' | 'text'>): string {
  return `${chunk.document_title}\n${chunk.text}`;
}

/** A growable Int32Array. */
class IntList {
  values: Int32Array;
  size = 0;

  constructor(capacity = 4) {
    this.values = new Int32Array(capacity);
  }

  push(value: number): void {
    if (this.size === this.values.length) {
      const grown = new Int32Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.size] = value;
    this.size += 1;
  }
}

/** One term's postings: (document number, term frequency) pairs, and how many live documents hold it. */
interface Postings {
  readonly docs: IntList;
  readonly frequencies: IntList;
  documentFrequency: number;
}

/**
 * The vectors of one embedder, unit length, back to back in one Float32Array
 * so the exact k-NN scan is a tight loop over contiguous memory. Removal
 * moves the last vector into the hole, keeping the slab dense.
 */
class VectorSlab {
  readonly dimensions: number;
  data: Float32Array;
  /** Slot → document number. */
  docs: Int32Array;
  size = 0;

  constructor(dimensions: number) {
    this.dimensions = dimensions;
    this.data = new Float32Array(dimensions * 64);
    this.docs = new Int32Array(64);
  }

  /** Stores a vector scaled to unit length; returns its slot. */
  add(doc: number, vector: ArrayLike<number>): number {
    if (this.size === this.docs.length) {
      const data = new Float32Array(this.data.length * 2);
      data.set(this.data);
      this.data = data;
      const docs = new Int32Array(this.docs.length * 2);
      docs.set(this.docs);
      this.docs = docs;
    }
    let norm = 0;
    for (let i = 0; i < this.dimensions; i += 1) norm += (vector[i] ?? 0) ** 2;
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    const base = this.size * this.dimensions;
    for (let i = 0; i < this.dimensions; i += 1) this.data[base + i] = (vector[i] ?? 0) * scale;
    this.docs[this.size] = doc;
    this.size += 1;
    return this.size - 1;
  }

  /** Removes a slot; returns the document whose vector moved into it (−1 if none did). */
  remove(slot: number): number {
    const last = this.size - 1;
    this.size = last;
    if (slot === last) return -1;
    this.data.copyWithin(
      slot * this.dimensions,
      last * this.dimensions,
      (last + 1) * this.dimensions,
    );
    const moved = this.docs[last] ?? -1;
    this.docs[slot] = moved;
    return moved;
  }

  vector(slot: number): Float32Array {
    return this.data.subarray(slot * this.dimensions, (slot + 1) * this.dimensions);
  }
}

/**
 * Offers the cosine of `query` (unit length) with every vector of `slab`
 * whose data source `allowed` lets through (all when null) to `best`.
 *
 * The scan is the whole cost of a k-NN search (100k × 384 multiply-adds),
 * so it is written for V8: a function of its own (optimised on its own), one
 * running offset bounded by the row's end, two accumulators, and `as number`
 * for typed-array reads that are in bounds by construction (`?? 0` would add
 * a branch to every multiply). About twice as fast as a plain nested loop.
 */
function scanSlab(
  slab: VectorSlab,
  query: Float64Array,
  allowed: Uint8Array | null,
  dataSourceOf: Int32Array,
  best: TopK,
): void {
  const { data, docs, dimensions } = slab;
  let threshold = best.threshold;
  const end = slab.size * dimensions;
  for (let base = 0, slot = 0; base < end; base += dimensions, slot += 1) {
    if (allowed !== null && allowed[dataSourceOf[docs[slot] as number] as number] !== 1) continue;
    const stop = base + dimensions;
    let even = 0;
    let odd = 0;
    let j = base;
    let i = 0;
    for (; j + 1 < stop; j += 2, i += 2) {
      even += (data[j] as number) * (query[i] as number);
      odd += (data[j + 1] as number) * (query[i + 1] as number);
    }
    if (j < stop) even += (data[j] as number) * (query[i] as number);
    const score = even + odd;
    if (score > threshold) {
      best.offer(score, docs[slot] as number);
      threshold = best.threshold;
    }
  }
}

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
 * metadata by document number, one vector slab per embedder, and a BM25
 * inverted index. Nothing here can reach another organization's chunks:
 * EmbeddedIndex keeps one partition per organization.
 *
 * Document numbers only grow; a deleted chunk leaves a hole that searches
 * skip, and `compact()` renumbers once holes outnumber live chunks.
 */
export class IndexPartition {
  #chunks: (StoredChunk | undefined)[] = [];
  readonly #numberById = new Map<string, number>();
  #dataSourceOf = new IntList();
  #lengthOf = new IntList();
  #slabOf = new IntList();
  #slotOf = new IntList();
  readonly #slabs: VectorSlab[] = [];
  readonly #slabByEmbedder = new Map<string, number>();
  readonly #embedderOfSlab: string[] = [];
  readonly #dataSources = new Map<string, DataSourceEntry>();
  #nextDataSourceNumber = 0;
  readonly #postings = new Map<string, Postings>();
  #live = 0;
  #totalLength = 0;
  #holes = 0;
  /** Per-document score accumulator for BM25, reused between searches. */
  #scores = new Float64Array(0);

  get size(): number {
    return this.#live;
  }

  /** Adds a chunk, replacing the one with the same chunk_id. */
  insert(chunk: StoredChunk, embedding: ArrayLike<number>): void {
    // First, as it may refuse the chunk (vector length): nothing has changed yet then.
    const slabNumber = this.#slab(chunk.embedder_id, embedding.length);
    const existing = this.#numberById.get(chunk.chunk_id);
    if (existing !== undefined) this.#remove(existing);

    const doc = this.#chunks.length;
    this.#chunks.push(chunk);
    this.#numberById.set(chunk.chunk_id, doc);

    const source = this.#dataSource(chunk.data_source_id);
    let members = source.documents.get(chunk.document_id);
    if (!members) {
      members = new Set();
      source.documents.set(chunk.document_id, members);
    }
    members.add(doc);
    source.chunkCount += 1;
    source.embedders.set(chunk.embedder_id, (source.embedders.get(chunk.embedder_id) ?? 0) + 1);
    this.#dataSourceOf.push(source.number);

    this.#slabOf.push(slabNumber);
    this.#slotOf.push(this.#slabs[slabNumber]?.add(doc, embedding) ?? -1);

    const terms = analyze(bm25Text(chunk));
    const frequencies = new Map<string, number>();
    for (const term of terms) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
    for (const [term, frequency] of frequencies) {
      let postings = this.#postings.get(term);
      if (!postings) {
        postings = { docs: new IntList(), frequencies: new IntList(), documentFrequency: 0 };
        this.#postings.set(term, postings);
      }
      postings.docs.push(doc);
      postings.frequencies.push(frequency);
      postings.documentFrequency += 1;
    }
    this.#lengthOf.push(terms.length);
    this.#totalLength += terms.length;
    this.#live += 1;
  }

  /** Dimensions the embedder's vectors have here, if it embedded any chunk of this partition. */
  dimensionsOf(embedderId: string): number | undefined {
    const slab = this.#slabByEmbedder.get(embedderId);
    return slab === undefined ? undefined : this.#slabs[slab]?.dimensions;
  }

  deleteDocument(dataSourceId: string, documentId: string): void {
    const members = this.#dataSources.get(dataSourceId)?.documents.get(documentId);
    for (const doc of [...(members ?? [])]) this.#remove(doc);
    this.#compactIfWorthIt();
  }

  deleteDataSource(dataSourceId: string): void {
    const source = this.#dataSources.get(dataSourceId);
    for (const members of [...(source?.documents.values() ?? [])]) {
      for (const doc of [...members]) this.#remove(doc);
    }
    this.#compactIfWorthIt();
  }

  /**
   * document_id → document_hash. A document whose chunks disagree (a
   * re-sync interrupted half-way) reports an empty hash, which matches no
   * real one, so the next sync embeds it again.
   */
  documentHashes(dataSourceId: string): Map<string, string> {
    const hashes = new Map<string, string>();
    for (const [documentId, members] of this.#dataSources.get(dataSourceId)?.documents ?? []) {
      const seen = new Set([...members].map((doc) => this.#chunks[doc]?.document_hash ?? ''));
      hashes.set(documentId, seen.size === 1 ? ([...seen][0] ?? '') : '');
    }
    return hashes;
  }

  count(dataSourceIds: readonly string[] | undefined): number {
    if (dataSourceIds === undefined) return this.#live;
    let total = 0;
    for (const id of new Set(dataSourceIds)) total += this.#dataSources.get(id)?.chunkCount ?? 0;
    return total;
  }

  /**
   * Exact k-NN by cosine similarity over the chunks the filter lets through.
   * Refuses (EmbedderMismatchError) when any of those chunks was embedded by
   * another embedder: its vectors would be compared with incomparable ones.
   */
  knn(
    dataSourceIds: readonly string[] | undefined,
    vector: readonly number[],
    embedderId: string,
    k: number,
  ): ScoredChunk[] {
    for (const source of this.#visibleSources(dataSourceIds)) {
      for (const [other, count] of source.embedders) {
        if (other !== embedderId && count > 0) throw new EmbedderMismatchError(other, embedderId);
      }
    }
    const slabNumber = this.#slabByEmbedder.get(embedderId);
    const slab = slabNumber === undefined ? undefined : this.#slabs[slabNumber];
    if (!slab || k < 1) return [];
    const dimensions = slab.dimensions;
    if (vector.length !== dimensions) {
      throw new RangeError(
        `The query vector has ${vector.length} dimensions; ${embedderId} made ${dimensions} here`,
      );
    }
    const query = new Float64Array(dimensions);
    let norm = 0;
    for (let i = 0; i < dimensions; i += 1) norm += (vector[i] ?? 0) ** 2;
    if (norm === 0) return [];
    const scale = 1 / Math.sqrt(norm);
    for (let i = 0; i < dimensions; i += 1) query[i] = (vector[i] ?? 0) * scale;

    const best = new TopK(k);
    scanSlab(slab, query, this.#allowedMask(dataSourceIds), this.#dataSourceOf.values, best);
    return best.drain().map(({ id, score }) => this.#scored(id, Math.max(-1, Math.min(1, score))));
  }

  /** The best chunks by BM25 of `query` over title and text, among those the filter lets through. */
  bm25(
    dataSourceIds: readonly string[] | undefined,
    query: string,
    k: number,
    parameters: Bm25Parameters,
  ): ScoredChunk[] {
    if (k < 1 || this.#live === 0) return [];
    const queryTerms = new Map<string, number>();
    // A term repeated in the query counts once per occurrence, as in Lucene's boolean query of term clauses.
    for (const term of analyze(query)) queryTerms.set(term, (queryTerms.get(term) ?? 0) + 1);
    if (queryTerms.size === 0) return [];

    if (this.#scores.length < this.#chunks.length) {
      this.#scores = new Float64Array(Math.max(this.#chunks.length, this.#scores.length * 2));
    }
    const scores = this.#scores;
    const touched: number[] = [];
    const allowed = this.#allowedMask(dataSourceIds);
    const dataSourceOf = this.#dataSourceOf.values;
    const lengthOf = this.#lengthOf.values;
    const chunks = this.#chunks;
    const averageLength = this.#totalLength / this.#live;
    for (const [term, occurrences] of queryTerms) {
      const postings = this.#postings.get(term);
      if (!postings || postings.documentFrequency === 0) continue;
      const idf = occurrences * bm25Idf(postings.documentFrequency, this.#live);
      const docs = postings.docs.values;
      const frequencies = postings.frequencies.values;
      for (let i = 0; i < postings.docs.size; i += 1) {
        const doc = docs[i] ?? 0;
        if (chunks[doc] === undefined) continue;
        if (allowed !== null && allowed[dataSourceOf[doc] ?? 0] !== 1) continue;
        if (scores[doc] === 0) touched.push(doc);
        scores[doc] =
          (scores[doc] ?? 0) +
          bm25TermScore(idf, frequencies[i] ?? 0, lengthOf[doc] ?? 0, averageLength, parameters);
      }
    }
    const best = new TopK(k);
    for (const doc of touched) {
      best.offer(scores[doc] ?? 0, doc);
      scores[doc] = 0;
    }
    return best.drain().map(({ id, score }) => this.#scored(id, score));
  }

  /** Every live chunk with its stored vector, in document order (for snapshots). */
  *entries(): Generator<{ chunk: StoredChunk; embedding: Float32Array }> {
    for (let doc = 0; doc < this.#chunks.length; doc += 1) {
      const chunk = this.#chunks[doc];
      if (chunk) yield { chunk, embedding: this.#vectorOf(doc) };
    }
  }

  #scored(doc: number, score: number): ScoredChunk {
    const chunk = this.#chunks[doc];
    if (!chunk) throw new Error(`Internal: document ${doc} is not live`);
    return { chunk: { ...chunk, embedding: Array.from(this.#vectorOf(doc)) }, score };
  }

  #vectorOf(doc: number): Float32Array {
    const slab = this.#slabs[this.#slabOf.values[doc] ?? -1];
    return slab ? slab.vector(this.#slotOf.values[doc] ?? 0) : new Float32Array(0);
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

  #dataSource(id: string): DataSourceEntry {
    let source = this.#dataSources.get(id);
    if (!source) {
      source = {
        number: this.#nextDataSourceNumber,
        documents: new Map(),
        chunkCount: 0,
        embedders: new Map(),
      };
      this.#nextDataSourceNumber += 1;
      this.#dataSources.set(id, source);
    }
    return source;
  }

  #slab(embedderId: string, dimensions: number): number {
    const existing = this.#slabByEmbedder.get(embedderId);
    if (existing !== undefined) {
      const have = this.#slabs[existing]?.dimensions;
      if (have !== dimensions) {
        throw new RangeError(
          `${embedderId} vectors have ${have} dimensions here; this chunk's has ${dimensions}`,
        );
      }
      return existing;
    }
    this.#slabs.push(new VectorSlab(dimensions));
    this.#embedderOfSlab.push(embedderId);
    this.#slabByEmbedder.set(embedderId, this.#slabs.length - 1);
    return this.#slabs.length - 1;
  }

  #remove(doc: number): void {
    const chunk = this.#chunks[doc];
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

    const slab = this.#slabs[this.#slabOf.values[doc] ?? -1];
    if (slab) {
      const moved = slab.remove(this.#slotOf.values[doc] ?? 0);
      if (moved >= 0) this.#slotOf.values[moved] = this.#slotOf.values[doc] ?? 0;
    }

    // Postings keep the dead entry (searches skip it) until compaction; the term statistics change now.
    for (const term of new Set(analyze(bm25Text(chunk)))) {
      const postings = this.#postings.get(term);
      if (postings) postings.documentFrequency -= 1;
    }
    const length = this.#lengthOf.values[doc] ?? 0;
    this.#totalLength -= length;
    this.#live -= 1;
  }

  #compactIfWorthIt(): void {
    if (this.#holes > 1024 && this.#holes > this.#live) this.compact();
  }

  /** Renumbers live chunks densely and drops dead postings. */
  compact(): void {
    const renumbered = new Int32Array(this.#chunks.length).fill(-1);
    const chunks: StoredChunk[] = [];
    const dataSourceOf = new IntList(Math.max(4, this.#live));
    const lengthOf = new IntList(Math.max(4, this.#live));
    const slabOf = new IntList(Math.max(4, this.#live));
    const slotOf = new IntList(Math.max(4, this.#live));
    this.#chunks.forEach((chunk, doc) => {
      if (!chunk) return;
      renumbered[doc] = chunks.length;
      this.#numberById.set(chunk.chunk_id, chunks.length);
      chunks.push(chunk);
      dataSourceOf.push(this.#dataSourceOf.values[doc] ?? 0);
      lengthOf.push(this.#lengthOf.values[doc] ?? 0);
      slabOf.push(this.#slabOf.values[doc] ?? 0);
      slotOf.push(this.#slotOf.values[doc] ?? 0);
    });
    for (const slab of this.#slabs) {
      for (let slot = 0; slot < slab.size; slot += 1) {
        slab.docs[slot] = renumbered[slab.docs[slot] ?? 0] ?? -1;
      }
    }
    for (const source of this.#dataSources.values()) {
      for (const [documentId, members] of source.documents) {
        source.documents.set(documentId, new Set([...members].map((doc) => renumbered[doc] ?? -1)));
      }
    }
    for (const [term, postings] of this.#postings) {
      if (postings.documentFrequency === 0) {
        this.#postings.delete(term);
        continue;
      }
      const docs = new IntList(postings.documentFrequency);
      const frequencies = new IntList(postings.documentFrequency);
      for (let i = 0; i < postings.docs.size; i += 1) {
        const doc = renumbered[postings.docs.values[i] ?? 0] ?? -1;
        if (doc < 0) continue;
        docs.push(doc);
        frequencies.push(postings.frequencies.values[i] ?? 0);
      }
      this.#postings.set(term, {
        docs,
        frequencies,
        documentFrequency: postings.documentFrequency,
      });
    }
    this.#chunks = chunks;
    this.#dataSourceOf = dataSourceOf;
    this.#lengthOf = lengthOf;
    this.#slabOf = slabOf;
    this.#slotOf = slotOf;
    this.#holes = 0;
    this.#scores = new Float64Array(0);
  }
}
