import { type Bm25Parameters, bm25Idf } from '../../domain/retrieval/bm25';
import { analyze } from '../../domain/retrieval/text-analysis';
import {
  EmbedderMismatchError,
  type IndexedChunk,
  type ScoredChunk,
  type WeightedTerm,
} from '../../ports/retrieval-index.port';
import { AnnGraph } from './ann-graph';
import { HeadingField } from './heading-field';
import { SnapshotChunk, type StoredChunk } from './snapshot-chunk';
import { TopK } from './top-k';

export type { StoredChunk };

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

  /**
   * A list over `values` itself, not a copy (a snapshot's postings are views
   * of one shared array): it is full, so its first push moves it to an array
   * of its own before writing anything.
   */
  static over(values: Int32Array): IntList {
    const list = new IntList(0);
    list.values = values;
    list.size = values.length;
    return list;
  }

  /** The values, as a view (valid until the next push). */
  view(): Int32Array {
    return this.values.subarray(0, this.size);
  }

  push(value: number): void {
    if (this.size === this.values.length) {
      const grown = new Int32Array(Math.max(4, this.values.length * 2));
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

  /**
   * A slab over `vectors` (unit length already) for the documents `docs`,
   * slot by slot: the arrays themselves, not copies (a snapshot reads them
   * for this slab alone), so the slab is full and grows at its first add.
   */
  static over(dimensions: number, vectors: Float32Array, docs: Int32Array): VectorSlab {
    const slab = new VectorSlab(dimensions);
    slab.data = vectors;
    slab.docs = docs;
    slab.size = docs.length;
    return slab;
  }

  /** Stores a vector scaled to unit length; returns its slot. */
  add(doc: number, vector: ArrayLike<number>): number {
    if (this.size === this.docs.length) {
      const capacity = Math.max(64, this.docs.length * 2);
      const data = new Float32Array(capacity * this.dimensions);
      data.set(this.data.subarray(0, this.size * this.dimensions));
      this.data = data;
      const docs = new Int32Array(capacity);
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

/**
 * The cosine of the vector in `slot` with `query`, added up in the order
 * scanSlab adds it, so a candidate the graph proposes gets the very score the
 * exact scan would give it.
 */
function slotScore(slab: VectorSlab, slot: number, query: Float64Array): number {
  const { data, dimensions } = slab;
  const base = slot * dimensions;
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
  return even + odd;
}

/**
 * Adds one term's BM25 contribution to `scores` for every chunk of its
 * postings: bm25TermScore with the length factor looked up, the same
 * operations in the same order, so the same score. A function of its own so
 * V8 optimises this loop alone.
 */
function accumulateBm25(
  postings: Postings,
  idf: number,
  normalization: Float64Array,
  scores: Float64Array,
): void {
  const docs = postings.docs.values;
  const frequencies = postings.frequencies.values;
  const size = postings.docs.size;
  for (let i = 0; i < size; i += 1) {
    const doc = docs[i] as number;
    const frequency = frequencies[i] as number;
    scores[doc] =
      (scores[doc] as number) + (idf * frequency) / (frequency + (normalization[doc] as number));
  }
}

/**
 * Offers each document of `docs` (every document below `size` when null)
 * whose score `wanted` accepts to `best`, and resets its score to 0. A score
 * is read into a local and compared with the threshold before any call, so
 * the loop allocates nothing (a double passed to a call that is not inlined
 * is boxed: 100k of them a search made the collector run every few searches).
 */
function collectTop(
  docs: Int32Array | null,
  size: number,
  scores: Float64Array,
  wanted: (doc: number) => boolean,
  best: TopK,
): void {
  let threshold = best.threshold;
  for (let i = 0; i < size; i += 1) {
    const doc = docs === null ? i : (docs[i] as number);
    const score = scores[doc] as number;
    if (score === 0) continue;
    scores[doc] = 0;
    if (score >= threshold && wanted(doc)) {
      best.offer(score, doc);
      threshold = best.threshold;
    }
  }
}

/** When the embedded index searches a graph rather than every vector (P100, P101). */
export interface AnnSettings {
  /**
   * An embedder's vectors in a partition below which k-NN stays an exact scan
   * (and no graph is built): exactly today's results for small indexes, and a
   * scan of this many vectors takes about as long as a graph search.
   * @default 10,000
   */
  readonly minVectors: number;
  /**
   * Vectors added since the graph was last brought up to date that a search
   * scans exactly before it adds them to the graph (in one multi-threaded batch).
   * @default 2,048
   */
  readonly pendingLimit: number;
  /**
   * How many more candidates than `k / (share of vectors the filter lets
   * through)` a filtered search asks the graph for.
   * @default 1.5
   */
  readonly overFetch: number;
}

export const DEFAULT_ANN: AnnSettings = { minVectors: 10_000, pendingLimit: 2_048, overFetch: 1.5 };

/** A slab's graph and the documents added to the slab since the graph last took them in. */
interface SlabGraph {
  readonly graph: AnnGraph;
  readonly pending: IntList;
}

/**
 * Everything a partition holds, by document number, for its snapshot
 * (index-files.ts): holes are null, postings keep dead entries, exactly as in
 * memory, so a graph keyed by document numbers stays valid when loaded.
 */
export interface PartitionImage {
  readonly chunks: readonly (StoredChunk | null)[];
  readonly lengths: Int32Array;
  readonly slabs: readonly {
    readonly embedderId: string;
    readonly dimensions: number;
    /** size × dimensions, slot order. */
    readonly vectors: Float32Array;
    /** Slot → document number. */
    readonly docs: Int32Array;
    /** Saves the slab's graph (covering every vector) to a path, when it has one. */
    readonly saveGraph: ((path: string) => number) | null;
  }[];
  readonly terms: readonly string[];
  readonly documentFrequencies: Int32Array;
  readonly postings: readonly { readonly docs: Int32Array; readonly frequencies: Int32Array }[];
}

/** A slab's graph as a snapshot names it: loads it, or says why not. */
export type GraphLoader = (slab: number, dimensions: number) => AnnGraph | undefined;

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
  /** P125: the heading paths' BM25 field, added to title and text's with its boost. */
  readonly #headings = new HeadingField();
  #live = 0;
  #totalLength = 0;
  #holes = 0;
  /** Per-document score accumulator for BM25, reused between searches. */
  #scores = new Float64Array(0);
  readonly #ann: AnnSettings;
  /** BM25 length factors by document, valid while the average length and the parameters stay. */
  #normalization:
    | { averageLength: number; k1: number; b: number; values: Float64Array }
    | undefined;
  /** Per slab: its graph, once the slab is large enough (P100). */
  #graphs: (SlabGraph | undefined)[] = [];

  constructor(ann: AnnSettings = DEFAULT_ANN) {
    this.#ann = ann;
  }

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
    // The graph takes the vector in at a later search, in a batch; until then searches scan it.
    this.#graphs[slabNumber]?.pending.push(doc);

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
    this.#headings.add(doc, chunk.heading_path);
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
   * re-sync interrupted half-way), or with a chunk another embedder than
   * `embedderId` made, reports an empty hash, which matches no real one, so
   * the next sync embeds it again.
   */
  documentHashes(dataSourceId: string, embedderId?: string): Map<string, string> {
    const hashes = new Map<string, string>();
    for (const [documentId, members] of this.#dataSources.get(dataSourceId)?.documents ?? []) {
      const chunks = [...members].map((doc) => this.#chunks[doc]);
      const seen = new Set(chunks.map((chunk) => chunk?.document_hash ?? ''));
      const foreign =
        embedderId !== undefined && chunks.some((chunk) => chunk?.embedder_id !== embedderId);
      hashes.set(documentId, seen.size === 1 && !foreign ? ([...seen][0] ?? '') : '');
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

    const allowed = this.#allowedMask(dataSourceIds);
    const best =
      this.#approximateKnn(slabNumber as number, query, allowed, dataSourceIds, embedderId, k) ??
      this.#exactKnn(slab, query, allowed, k);
    return best.drain().map(({ id, score }) => this.#scored(id, Math.max(-1, Math.min(1, score))));
  }

  #exactKnn(slab: VectorSlab, query: Float64Array, allowed: Uint8Array | null, k: number): TopK {
    const best = new TopK(k);
    scanSlab(slab, query, allowed, this.#dataSourceOf.values, best);
    return best;
  }

  /**
   * k-NN through the slab's graph (P100, P101), or undefined when the exact
   * scan must answer: the slab is small, the filter lets few vectors through,
   * or the graph's candidates held fewer than k the filter lets through.
   *
   * The graph is asked for `k` candidates, or with a filter for
   * `(k + 10) · overFetch / share` where `share` is the part of the slab the
   * filter lets through; every candidate and every vector added since the
   * graph was brought up to date is scored exactly, so the result differs from
   * the exact scan's only by what the graph missed (recall@10 ≥ 0.95 at 100k,
   * docs/benchmarks.md), and a filtered search still returns k results.
   */
  #approximateKnn(
    slabNumber: number,
    query: Float64Array,
    allowed: Uint8Array | null,
    dataSourceIds: readonly string[] | undefined,
    embedderId: string,
    k: number,
  ): TopK | undefined {
    const slab = this.#slabs[slabNumber];
    if (!slab || slab.size < this.#ann.minVectors) return undefined;
    let visible = slab.size;
    if (dataSourceIds !== undefined) {
      visible = 0;
      for (const source of this.#visibleSources(dataSourceIds)) {
        visible += source.embedders.get(embedderId) ?? 0;
      }
    }
    if (visible < this.#ann.minVectors) return undefined;
    const wanted =
      allowed === null
        ? k
        : Math.ceil(((k + 10) * this.#ann.overFetch * slab.size) / Math.max(1, visible));
    // Asking a graph for half its vectors costs more than scanning them all.
    if (wanted > slab.size / 2) return undefined;
    const { graph, pending } = this.#upToDateGraph(slabNumber, slab);

    const query32 = Float32Array.from(query);
    const best = new TopK(k);
    let found = 0;
    const consider = (doc: number) => {
      if (this.#chunks[doc] === undefined || this.#slabOf.values[doc] !== slabNumber) return;
      if (allowed !== null && allowed[this.#dataSourceOf.values[doc] as number] !== 1) return;
      found += 1;
      best.offer(slotScore(slab, this.#slotOf.values[doc] as number, query), doc);
    };
    for (const doc of graph.search(query32, wanted)) consider(doc);
    const recent = pending.view();
    for (let i = 0; i < recent.length; i += 1) consider(recent[i] as number);
    return found >= Math.min(k, visible) ? best : undefined;
  }

  /** The slab's graph, built or brought up to date first when it lags too far behind. */
  #upToDateGraph(slabNumber: number, slab: VectorSlab): SlabGraph {
    let entry = this.#graphs[slabNumber];
    if (!entry) {
      const graph = AnnGraph.create(slab.dimensions);
      graph.add(
        Array.from(slab.docs.subarray(0, slab.size)),
        slab.data.subarray(0, slab.size * slab.dimensions),
      );
      entry = { graph, pending: new IntList() };
      this.#graphs[slabNumber] = entry;
    } else if (entry.pending.size > this.#ann.pendingLimit) {
      this.#catchUp(slabNumber, slab, entry);
    }
    return entry;
  }

  /** Adds the live vectors added since to the graph. */
  #catchUp(slabNumber: number, slab: VectorSlab, entry: SlabGraph): void {
    const keys: number[] = [];
    for (const doc of entry.pending.view()) {
      if (this.#chunks[doc] !== undefined && this.#slabOf.values[doc] === slabNumber)
        keys.push(doc);
    }
    const vectors = new Float32Array(keys.length * slab.dimensions);
    keys.forEach((doc, i) => {
      vectors.set(slab.vector(this.#slotOf.values[doc] as number), i * slab.dimensions);
    });
    entry.graph.add(keys, vectors);
    entry.pending.size = 0;
  }

  /**
   * The best chunks by BM25 of `query` over title and text, plus the boosted
   * BM25 of their headings (P125), among those the filter lets through.
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
    const queryTerms = new Map<string, number>();
    // A term repeated in the query counts once per occurrence, as in Lucene's boolean query of term clauses.
    for (const term of analyze(query)) queryTerms.set(term, (queryTerms.get(term) ?? 0) + 1);
    for (const { word, weight } of expansion) {
      if (!(weight > 0)) continue;
      for (const term of analyze(word)) queryTerms.set(term, (queryTerms.get(term) ?? 0) + weight);
    }
    if (queryTerms.size === 0) return [];

    if (this.#scores.length < this.#chunks.length) {
      this.#scores = new Float64Array(Math.max(this.#chunks.length, this.#scores.length * 2));
    }
    const scores = this.#scores;
    const normalization = this.#lengthNormalization(parameters);
    // The accumulation is the whole cost of a search (a common term has a posting in most chunks),
    // so it checks nothing: a dead or filtered-out chunk gets a score too, and is left out below.
    let postingsRead = 0;
    for (const [term, occurrences] of queryTerms) {
      const postings = this.#postings.get(term);
      if (!postings || postings.documentFrequency === 0) continue;
      const idf = occurrences * bm25Idf(postings.documentFrequency, this.#live);
      accumulateBm25(postings, idf, normalization, scores);
      postingsRead += postings.docs.size;
    }
    const allowed = this.#allowedMask(dataSourceIds);
    const dataSourceOf = this.#dataSourceOf.values;
    const chunks = this.#chunks;
    const wanted = (doc: number) =>
      chunks[doc] !== undefined && (allowed === null || allowed[dataSourceOf[doc] as number] === 1);
    const headingDocs = this.#headings.scoreInto(queryTerms, wanted, scores, parameters);
    const best = new TopK(k);
    // Every chunk with a score is found again, then its score reset: by walking the postings just
    // read when they are few, by one pass over all chunks when they are many (cheaper than keeping a list).
    if (postingsRead < chunks.length / 8) {
      for (const term of queryTerms.keys()) {
        const postings = this.#postings.get(term);
        if (!postings || postings.documentFrequency === 0) continue;
        collectTop(postings.docs.values, postings.docs.size, scores, wanted, best);
      }
      collectTop(Int32Array.from(headingDocs), headingDocs.length, scores, wanted, best);
    } else {
      collectTop(null, chunks.length, scores, wanted, best);
    }
    return best.drain().map(({ id, score }) => this.#scored(id, score));
  }

  /**
   * The partition as its snapshot keeps it (index-files.ts). Views of live
   * memory: encode them before anything else changes the partition. Each
   * slab with a graph first takes in its pending vectors, so a saved graph
   * covers the whole slab.
   */
  image(): PartitionImage {
    const terms: string[] = [];
    const documentFrequencies = new Int32Array(this.#postings.size);
    const postings: { docs: Int32Array; frequencies: Int32Array }[] = [];
    for (const [term, entry] of this.#postings) {
      documentFrequencies[terms.length] = entry.documentFrequency;
      terms.push(term);
      postings.push({ docs: entry.docs.view(), frequencies: entry.frequencies.view() });
    }
    return {
      chunks: this.#chunks.map((chunk) => chunk ?? null),
      lengths: this.#lengthOf.view(),
      slabs: this.#slabs.map((slab, number) => {
        const entry = this.#graphs[number];
        if (entry && entry.pending.size > 0) this.#catchUp(number, slab, entry);
        return {
          embedderId: this.#embedderOfSlab[number] ?? '',
          dimensions: slab.dimensions,
          vectors: slab.data.subarray(0, slab.size * slab.dimensions),
          docs: slab.docs.subarray(0, slab.size),
          saveGraph: entry
            ? (path: string) => {
                entry.graph.save(path);
                return entry.graph.size;
              }
            : null,
        };
      }),
      terms,
      documentFrequencies,
      postings,
    };
  }

  /**
   * The partition a snapshot's image describes. `loadGraph` gives each slab
   * its saved graph, or undefined (none saved, or unreadable): the next
   * search then builds it again from the vectors.
   */
  static fromImage(
    image: PartitionImage,
    loadGraph: GraphLoader,
    ann: AnnSettings = DEFAULT_ANN,
  ): IndexPartition {
    const partition = new IndexPartition(ann);
    image.slabs.forEach(({ embedderId, dimensions, vectors, docs }, number) => {
      const slab = VectorSlab.over(dimensions, vectors, docs);
      partition.#slabs.push(slab);
      partition.#embedderOfSlab.push(embedderId);
      partition.#slabByEmbedder.set(embedderId, number);
      // A slab too small for a graph (or settings that want none) searches exactly: no graph to load.
      const graph = docs.length >= ann.minVectors ? loadGraph(number, dimensions) : undefined;
      if (graph) partition.#graphs[number] = { graph, pending: new IntList() };
    });
    const count = image.chunks.length;
    partition.#chunks = image.chunks.map((chunk) => chunk ?? undefined);
    partition.#lengthOf = IntList.over(image.lengths);
    partition.#dataSourceOf = new IntList(Math.max(4, count));
    partition.#slabOf = new IntList(Math.max(4, count));
    partition.#slotOf = new IntList(Math.max(4, count));
    partition.#dataSourceOf.size = count;
    partition.#slabOf.size = count;
    partition.#slotOf.size = count;
    partition.#slabOf.values.fill(-1);
    partition.#slabs.forEach((slab, number) => {
      for (let slot = 0; slot < slab.size; slot += 1) {
        const doc = slab.docs[slot] as number;
        partition.#slabOf.values[doc] = number;
        partition.#slotOf.values[doc] = slot;
      }
    });
    partition.#chunks.forEach((chunk, doc) => {
      if (!chunk) {
        partition.#holes += 1;
        return;
      }
      partition.#numberById.set(chunk.chunk_id, doc);
      const source = partition.#dataSource(chunk.data_source_id);
      let members = source.documents.get(chunk.document_id);
      if (!members) {
        members = new Set();
        source.documents.set(chunk.document_id, members);
      }
      members.add(doc);
      source.chunkCount += 1;
      source.embedders.set(chunk.embedder_id, (source.embedders.get(chunk.embedder_id) ?? 0) + 1);
      partition.#dataSourceOf.values[doc] = source.number;
      // P125's headings field is not in the snapshot: heading paths are short, so it is rebuilt from the chunks.
      partition.#headings.add(doc, chunk.heading_path);
      partition.#live += 1;
      partition.#totalLength += image.lengths[doc] ?? 0;
    });
    image.terms.forEach((term, i) => {
      const { docs, frequencies } = image.postings[i] ?? {
        docs: new Int32Array(0),
        frequencies: new Int32Array(0),
      };
      partition.#postings.set(term, {
        docs: IntList.over(docs),
        frequencies: IntList.over(frequencies),
        documentFrequency: image.documentFrequencies[i] ?? 0,
      });
    });
    return partition;
  }

  /**
   * Per document, BM25's length factor `k1 · (1 − b + b · dl / avgdl)`
   * (bm25TermScore's denominator less the frequency), computed once per
   * change of the partition rather than once per posting of every search.
   */
  #lengthNormalization(parameters: Bm25Parameters): Float64Array {
    const { k1, b } = parameters;
    const averageLength = this.#totalLength / this.#live;
    const cached = this.#normalization;
    if (
      cached &&
      cached.averageLength === averageLength &&
      cached.k1 === k1 &&
      cached.b === b &&
      cached.values.length >= this.#chunks.length
    ) {
      return cached.values;
    }
    const values = new Float64Array(this.#chunks.length);
    const lengthOf = this.#lengthOf.values;
    for (let doc = 0; doc < values.length; doc += 1) {
      const lengthRatio = averageLength > 0 ? (lengthOf[doc] as number) / averageLength : 1;
      values[doc] = k1 * (1 - b + b * lengthRatio);
    }
    this.#normalization = { averageLength, k1, b, values };
    return values;
  }

  #scored(doc: number, score: number): ScoredChunk {
    const chunk = this.#chunks[doc];
    if (!chunk) throw new Error(`Internal: document ${doc} is not live`);
    // A copy of the vector (one memcpy): the slab moves vectors when chunks are removed.
    const embedding = this.#vectorOf(doc).slice();
    return {
      chunk:
        chunk instanceof SnapshotChunk ? chunk.resultCopy({ embedding }) : { ...chunk, embedding },
      score,
    };
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

    const slabNumber = this.#slabOf.values[doc] ?? -1;
    const entry = this.#graphs[slabNumber];
    if (entry) {
      entry.graph.remove(doc);
      // Removed nodes still slow every search down: past as many as are live, the graph is rebuilt.
      if (entry.graph.removed > Math.max(this.#ann.minVectors, entry.graph.size)) {
        this.#graphs[slabNumber] = undefined;
      }
    }
    const slab = this.#slabs[slabNumber];
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
    this.#headings.remove(doc, chunk.heading_path);
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
    this.#headings.renumber(renumbered);
    this.#chunks = chunks;
    this.#dataSourceOf = dataSourceOf;
    this.#lengthOf = lengthOf;
    this.#slabOf = slabOf;
    this.#slotOf = slotOf;
    this.#holes = 0;
    this.#scores = new Float64Array(0);
    // Graphs are keyed by document numbers, which have just changed: the next search rebuilds them.
    this.#graphs = [];
    this.#normalization = undefined;
  }
}
