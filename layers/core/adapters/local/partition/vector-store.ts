import { AnnGraph } from '../ann-graph';
import { TopK } from '../top-k';
import { IntList } from './int-list';
import { type GraphLoader, type SlabImage, vectorsInMemory } from './partition-image';
import { scanSlab, slotScore, VectorSlab } from './vector-slab';

/** When the embedded index searches a graph rather than every vector. */
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

/** What a k-NN search may see, as the partition knows it. */
export interface VectorFilter {
  /** 1 for each data source number let through; null when all are. */
  readonly allowed: Uint8Array | null;
  /** Document number → its data source number. */
  readonly dataSourceOf: Int32Array;
  /** Whether a document number is a live chunk (deleted ones leave holes). */
  readonly isLive: (doc: number) => boolean;
  /** How many of the embedder's vectors the filter lets through (asked only for large slabs). */
  readonly visible: () => number;
}

/**
 * A partition's vectors: one slab per embedder, where each document's vector
 * sits (slab and slot), and, for slabs large enough, the approximate
 * nearest-neighbour graph a search walks instead of scanning every vector.
 */
export class VectorStore {
  readonly #slabs: VectorSlab[] = [];
  readonly #slabByEmbedder = new Map<string, number>();
  readonly #embedderOfSlab: string[] = [];
  #slabOf = new IntList();
  #slotOf = new IntList();
  /** Per slab: its graph, once the slab is large enough. */
  #graphs: (SlabGraph | undefined)[] = [];
  readonly #ann: AnnSettings;

  constructor(ann: AnnSettings = DEFAULT_ANN) {
    this.#ann = ann;
  }

  /** Dimensions the embedder's vectors have here, if it embedded any chunk. */
  dimensionsOf(embedderId: string): number | undefined {
    const slab = this.#slabByEmbedder.get(embedderId);
    return slab === undefined ? undefined : this.#slabs[slab]?.dimensions;
  }

  /**
   * The slab of `embedderId`'s vectors, made on first use; refuses a vector
   * length other than the slab's (a RangeError, before anything changes).
   */
  slabFor(embedderId: string, dimensions: number): number {
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

  /** Stores the vector of the newest document number `doc` in slab `slabNumber`. */
  add(doc: number, slabNumber: number, embedding: ArrayLike<number>): void {
    this.#slabOf.push(slabNumber);
    const slab = this.#slabs[slabNumber];
    this.#slotOf.push(slab?.add(doc, embedding) ?? -1);
    if (!slab) return;
    // The graph grows with the inserts, a batch of `pendingLimit` at a time (multi-threaded);
    // until its batch is added, searches scan the vector exactly. A first search after a bulk
    // load then finds the graph built, instead of waiting for all of it.
    const entry = this.#graphs[slabNumber];
    if (entry) {
      entry.pending.push(doc);
      if (entry.pending.size >= this.#ann.pendingLimit) {
        this.#catchUp(slabNumber, slab, entry, (other) => this.#holds(slabNumber, other));
      }
    } else if (slab.size >= this.#ann.minVectors) {
      this.#upToDateGraph(slabNumber, slab, (other) => this.#holds(slabNumber, other));
    }
  }

  /** Whether slab `slabNumber` holds the vector of live document `doc` (removal forgets the slab). */
  #holds(slabNumber: number, doc: number): boolean {
    return this.#slabOf.values[doc] === slabNumber;
  }

  /** Forgets a document's vector (its graph node too). */
  remove(doc: number): void {
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
    this.#slabOf.values[doc] = -1;
  }

  /** Vectors of the embedder its graph holds (0 without a graph), those waiting for the next batch apart. */
  graphSize(embedderId: string): number {
    const slab = this.#slabByEmbedder.get(embedderId);
    return slab === undefined ? 0 : (this.#graphs[slab]?.graph.size ?? 0);
  }

  /** A document's vector, as stored (a view: copy it before anything changes the store). */
  vectorOf(doc: number): Float32Array {
    const slab = this.#slabs[this.#slabOf.values[doc] ?? -1];
    return slab ? slab.vector(this.#slotOf.values[doc] ?? 0) : new Float32Array(0);
  }

  /**
   * The `k` nearest of `embedderId`'s vectors to `vector` by cosine, among
   * those the filter lets through (scores not yet clamped); null when this
   * embedder has no vectors here, k < 1 or the query is the zero vector.
   */
  nearest(
    embedderId: string,
    vector: readonly number[],
    k: number,
    filter: VectorFilter,
  ): TopK | null {
    const slabNumber = this.#slabByEmbedder.get(embedderId);
    const slab = slabNumber === undefined ? undefined : this.#slabs[slabNumber];
    if (slabNumber === undefined || !slab || k < 1) return null;
    const dimensions = slab.dimensions;
    if (vector.length !== dimensions) {
      throw new RangeError(
        `The query vector has ${vector.length} dimensions; ${embedderId} made ${dimensions} here`,
      );
    }
    const query = new Float64Array(dimensions);
    let norm = 0;
    for (let i = 0; i < dimensions; i += 1) norm += (vector[i] ?? 0) ** 2;
    if (norm === 0) return null;
    const scale = 1 / Math.sqrt(norm);
    for (let i = 0; i < dimensions; i += 1) query[i] = (vector[i] ?? 0) * scale;
    return (
      this.#approximate(slabNumber, slab, query, filter, k) ?? this.#exact(slab, query, filter, k)
    );
  }

  #exact(slab: VectorSlab, query: Float64Array, filter: VectorFilter, k: number): TopK {
    const best = new TopK(k);
    scanSlab(slab, query, filter.allowed, filter.dataSourceOf, best);
    return best;
  }

  /**
   * k-NN through the slab's graph, or undefined when the exact
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
  #approximate(
    slabNumber: number,
    slab: VectorSlab,
    query: Float64Array,
    filter: VectorFilter,
    k: number,
  ): TopK | undefined {
    if (slab.size < this.#ann.minVectors) return undefined;
    const { allowed, dataSourceOf, isLive } = filter;
    const visible = allowed === null ? slab.size : filter.visible();
    if (visible < this.#ann.minVectors) return undefined;
    const wanted =
      allowed === null
        ? k
        : Math.ceil(((k + 10) * this.#ann.overFetch * slab.size) / Math.max(1, visible));
    // Asking a graph for half its vectors costs more than scanning them all.
    if (wanted > slab.size / 2) return undefined;
    const { graph, pending } = this.#upToDateGraph(slabNumber, slab, isLive);

    const query32 = Float32Array.from(query);
    const best = new TopK(k);
    let found = 0;
    // Where a candidate's vector is read when it is still in the snapshot's file.
    const scratch = new Float32Array(slab.dimensions);
    const consider = (doc: number) => {
      if (!isLive(doc) || this.#slabOf.values[doc] !== slabNumber) return;
      if (allowed !== null && allowed[dataSourceOf[doc] as number] !== 1) return;
      found += 1;
      best.offer(slotScore(slab, this.#slotOf.values[doc] as number, query, scratch), doc);
    };
    for (const doc of graph.search(query32, wanted)) consider(doc);
    const recent = pending.view();
    for (let i = 0; i < recent.length; i += 1) consider(recent[i] as number);
    return found >= Math.min(k, visible) ? best : undefined;
  }

  /** The slab's graph, built or brought up to date first when it lags too far behind. */
  #upToDateGraph(
    slabNumber: number,
    slab: VectorSlab,
    isLive: (doc: number) => boolean,
  ): SlabGraph {
    let entry = this.#graphs[slabNumber];
    if (!entry) {
      const graph = AnnGraph.create(slab.dimensions);
      // A copy for the build alone when the vectors are in the file: the slab itself stays there.
      graph.add(Array.from(slab.docs.subarray(0, slab.size)), vectorsInMemory(slab.imageVectors()));
      entry = { graph, pending: new IntList() };
      this.#graphs[slabNumber] = entry;
    } else if (entry.pending.size > this.#ann.pendingLimit) {
      this.#catchUp(slabNumber, slab, entry, isLive);
    }
    return entry;
  }

  /** Adds the live vectors added since to the graph. */
  #catchUp(
    slabNumber: number,
    slab: VectorSlab,
    entry: SlabGraph,
    isLive: (doc: number) => boolean,
  ): void {
    const keys: number[] = [];
    for (const doc of entry.pending.view()) {
      if (isLive(doc) && this.#slabOf.values[doc] === slabNumber) keys.push(doc);
    }
    const vectors = new Float32Array(keys.length * slab.dimensions);
    keys.forEach((doc, i) => {
      vectors.set(slab.vector(this.#slotOf.values[doc] as number), i * slab.dimensions);
    });
    entry.graph.add(keys, vectors);
    entry.pending.size = 0;
  }

  /**
   * The slabs as a snapshot keeps them: views of live memory. Each slab with
   * a graph first takes in its pending vectors, so a saved graph covers the
   * whole slab.
   */
  image(isLive: (doc: number) => boolean): SlabImage[] {
    return this.#slabs.map((slab, number) => {
      const entry = this.#graphs[number];
      if (entry && entry.pending.size > 0) this.#catchUp(number, slab, entry, isLive);
      return {
        embedderId: this.#embedderOfSlab[number] ?? '',
        dimensions: slab.dimensions,
        vectors: slab.imageVectors(),
        docs: slab.docs.subarray(0, slab.size),
        saveGraph: entry
          ? (path: string) => {
              entry.graph.save(path);
              return entry.graph.size;
            }
          : null,
      };
    });
  }

  /**
   * The store a snapshot's slabs describe, for `count` document numbers.
   * `loadGraph` gives each slab its saved graph, or undefined (none saved,
   * or unreadable): the next search then builds it again from the vectors.
   */
  static fromImage(
    slabs: readonly SlabImage[],
    count: number,
    loadGraph: GraphLoader,
    ann: AnnSettings,
  ): VectorStore {
    const store = new VectorStore(ann);
    slabs.forEach(({ embedderId, dimensions, vectors, docs }, number) => {
      const slab = VectorSlab.over(dimensions, vectors, docs);
      store.#slabs.push(slab);
      store.#embedderOfSlab.push(embedderId);
      store.#slabByEmbedder.set(embedderId, number);
      // A slab too small for a graph (or settings that want none) searches exactly: no graph to load.
      const graph = docs.length >= ann.minVectors ? loadGraph(number, dimensions) : undefined;
      if (graph) store.#graphs[number] = { graph, pending: new IntList() };
    });
    store.#slabOf = new IntList(Math.max(4, count));
    store.#slotOf = new IntList(Math.max(4, count));
    store.#slabOf.size = count;
    store.#slotOf.size = count;
    store.#slabOf.values.fill(-1);
    store.#slabs.forEach((slab, number) => {
      for (let slot = 0; slot < slab.size; slot += 1) {
        const doc = slab.docs[slot] as number;
        store.#slabOf.values[doc] = number;
        store.#slotOf.values[doc] = slot;
      }
    });
    return store;
  }

  /**
   * Compaction: document `kept[i]` becomes document `i` (`renumbered` maps
   * every old number to its new one, −1 for holes). Graphs are keyed by
   * document numbers, which have just changed: the next search rebuilds them.
   */
  renumber(renumbered: Int32Array, kept: readonly number[]): void {
    const slabOf = new IntList(Math.max(4, kept.length));
    const slotOf = new IntList(Math.max(4, kept.length));
    for (const doc of kept) {
      slabOf.push(this.#slabOf.values[doc] ?? 0);
      slotOf.push(this.#slotOf.values[doc] ?? 0);
    }
    for (const slab of this.#slabs) {
      for (let slot = 0; slot < slab.size; slot += 1) {
        slab.docs[slot] = renumbered[slab.docs[slot] ?? 0] ?? -1;
      }
    }
    this.#slabOf = slabOf;
    this.#slotOf = slotOf;
    this.#graphs = [];
  }
}
