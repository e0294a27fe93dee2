import type { Index } from 'usearch';

/**
 * An approximate nearest-neighbour graph (HNSW, usearch) over one embedder's
 * unit vectors, keyed by the partition's document numbers.
 *
 * It only proposes candidates: the partition rescores every candidate exactly
 * against its own float32 vectors, so scores are those of the exact search
 * and the graph may keep a lossy copy. It stores half-precision (f16) vectors:
 * half the memory of a second float32 copy, with no measurable loss of recall
 * once candidates are rescored.
 *
 * usearch is a native addon. It ships its Linux, macOS and Windows builds in
 * the npm tarball (nothing is downloaded or compiled at install) and is loaded
 * on first use, so only the embedded index (the local runtime, tests, bench)
 * ever loads it; no Lambda imports this module (test/infra/function-bundles).
 */

/** HNSW links per node (M). 16: recall ≥ 0.95 at 100k with a moderate graph (docs/benchmarks.md). */
const CONNECTIVITY = 16;
/** Candidates examined while inserting (efConstruction). */
const EXPANSION_ADD = 128;
/** Candidates examined while searching (ef); a search of more results examines that many. */
export const EXPANSION_SEARCH = 160;

type UsearchModule = typeof import('usearch');
let usearch: UsearchModule | undefined;

function library(): UsearchModule {
  // A plain require at first use: the addon is not loaded by a process that never builds a graph.
  usearch ??= require('usearch') as UsearchModule;
  return usearch;
}

export class AnnGraph {
  readonly dimensions: number;
  #index: Index;
  /**
   * The file a loaded graph is a read-only view of (memory-mapped: a restart
   * maps the file instead of reading and rebuilding it, 10× faster), until
   * the first change makes it a loaded copy; undefined once mutable.
   */
  #viewedFile: string | undefined;
  /** Keys added and not removed (usearch's own size counts removed ones until it reuses them). */
  #live = 0;
  /** Keys removed since the graph was built: searches still walk them, so many make the graph slow. */
  #removed = 0;

  private constructor(dimensions: number, index: Index) {
    this.dimensions = dimensions;
    this.#index = index;
  }

  static create(dimensions: number): AnnGraph {
    const { Index, MetricKind, ScalarKind } = library();
    return new AnnGraph(
      dimensions,
      new Index({
        dimensions,
        metric: MetricKind.IP,
        quantization: ScalarKind.F16,
        connectivity: CONNECTIVITY,
        expansion_add: EXPANSION_ADD,
        expansion_search: EXPANSION_SEARCH,
        multi: false,
      }),
    );
  }

  /**
   * A graph saved by `save`, as a view of its file until it first changes
   * (the file must stay until then: the snapshot that names it keeps it, and
   * `save` moves the view to the file it writes). `live` is the count of keys
   * it holds (the snapshot records it).
   */
  static load(path: string, dimensions: number, live: number): AnnGraph {
    const graph = AnnGraph.create(dimensions);
    graph.#index.view(path);
    graph.#viewedFile = path;
    if (graph.#index.dimensions() !== dimensions || graph.#index.size() !== live) {
      throw new Error(
        `${path}: a graph of ${graph.#index.size()} vectors of ${graph.#index.dimensions()} dimensions, expected ${live} of ${dimensions}`,
      );
    }
    graph.#live = live;
    return graph;
  }

  get size(): number {
    return this.#live;
  }

  get removed(): number {
    return this.#removed;
  }

  /** Adds `keys.length` vectors, back to back in `vectors` (unit length). Uses every core. */
  add(keys: readonly number[], vectors: Float32Array): void {
    if (keys.length === 0) return;
    this.#makeMutable();
    this.#index.add(BigUint64Array.from(keys, BigInt), vectors, 0);
    this.#live += keys.length;
  }

  remove(key: number): void {
    this.#makeMutable();
    const removed = this.#index.remove(BigInt(key)) as number;
    if (removed > 0) {
      this.#live -= removed;
      this.#removed += removed;
    }
  }

  /** Up to `k` keys, nearest first (by inner product of unit vectors: cosine). */
  search(query: Float32Array, k: number): number[] {
    if (this.#live === 0 || k < 1) return [];
    const { keys } = this.#index.search(query, Math.min(k, this.#live), 1);
    return Array.from(keys, Number);
  }

  /** Writes the graph to `path` (not flushed: the caller flushes and renames it into place). */
  save(path: string): void {
    this.#index.save(path);
    // The new file holds the same graph, and the snapshot being written keeps it rather than the old one.
    if (this.#viewedFile !== undefined) this.#viewedFile = path;
  }

  /** A view cannot change: the first change loads the file into memory instead (once). */
  #makeMutable(): void {
    if (this.#viewedFile === undefined) return;
    const loaded = AnnGraph.create(this.dimensions).#index;
    loaded.load(this.#viewedFile);
    this.#index = loaded;
    this.#viewedFile = undefined;
  }
}
