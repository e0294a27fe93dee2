import type { TopK } from '../top-k';
import type { StoredVectors } from './partition-image';

/** Vectors a slab may hold and still be copied into memory by its first exact scan. */
const SCANNED_IN_MEMORY_BYTES = 64 * 1024 * 1024;

/** Rows a scan of vectors still in the file reads at once (1.5 MiB of 384-dimension rows). */
const ROWS_PER_READ = 1_024;

/**
 * The vectors of one embedder, unit length, back to back in one Float32Array
 * so the exact k-NN scan is a tight loop over contiguous memory. Removal
 * moves the last vector into the hole, keeping the slab dense.
 *
 * A slab loaded from a snapshot leaves its vectors in the file: a search
 * reads the rows it rescores (a few hundred through the graph) or streams
 * them block by block (an exact scan), and only the first change copies them
 * all into memory.
 */
export class VectorSlab {
  readonly dimensions: number;
  #data: Float32Array;
  #stored: StoredVectors | null = null;
  /** Slot → document number. */
  docs: Int32Array;
  size = 0;

  constructor(dimensions: number) {
    this.dimensions = dimensions;
    this.#data = new Float32Array(dimensions * 64);
    this.docs = new Int32Array(64);
  }

  /**
   * A slab over `vectors` (unit length already) for the documents `docs`,
   * slot by slot: the arrays themselves, not copies (a snapshot reads them
   * for this slab alone), so the slab is full and grows at its first add.
   */
  static over(
    dimensions: number,
    vectors: Float32Array | StoredVectors,
    docs: Int32Array,
  ): VectorSlab {
    const slab = new VectorSlab(dimensions);
    if (vectors instanceof Float32Array) slab.#data = vectors;
    else {
      slab.#data = new Float32Array(0);
      slab.#stored = vectors;
    }
    slab.docs = docs;
    slab.size = docs.length;
    return slab;
  }

  /** Whether the vectors are still in the snapshot's file. */
  get inFile(): boolean {
    return this.#stored !== null;
  }

  /** Every vector in memory (copied from the file first, once, when they are still there). */
  get data(): Float32Array {
    if (this.#stored) {
      this.#data = this.#stored.readAll();
      this.#stored = null;
    }
    return this.#data;
  }

  /** The vectors as a snapshot writes them: in memory, or still in the file (not copied then). */
  imageVectors(): Float32Array | StoredVectors {
    return this.#stored ?? this.#data.subarray(0, this.size * this.dimensions);
  }

  /** The vector in `slot`: a view when in memory, else read into `scratch` (or a new array). */
  row(slot: number, scratch?: Float32Array): Float32Array {
    if (!this.#stored) {
      return this.#data.subarray(slot * this.dimensions, (slot + 1) * this.dimensions);
    }
    const target = scratch ?? new Float32Array(this.dimensions);
    this.#stored.readRows(slot, target);
    return target;
  }

  /** Stores a vector scaled to unit length; returns its slot. */
  add(doc: number, vector: ArrayLike<number>): number {
    if (this.size === this.docs.length) {
      const capacity = Math.max(64, this.docs.length * 2);
      const data = new Float32Array(capacity * this.dimensions);
      data.set(this.data.subarray(0, this.size * this.dimensions));
      this.#data = data;
      const docs = new Int32Array(capacity);
      docs.set(this.docs);
      this.docs = docs;
    }
    let norm = 0;
    for (let i = 0; i < this.dimensions; i += 1) norm += (vector[i] ?? 0) ** 2;
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    const base = this.size * this.dimensions;
    const data = this.data;
    for (let i = 0; i < this.dimensions; i += 1) data[base + i] = (vector[i] ?? 0) * scale;
    this.docs[this.size] = doc;
    this.size += 1;
    return this.size - 1;
  }

  /** Removes a slot; returns the document whose vector moved into it (−1 if none did). */
  remove(slot: number): number {
    // In memory first: the file's rows no longer describe the slab once it changes.
    const data = this.data;
    const last = this.size - 1;
    this.size = last;
    if (slot === last) return -1;
    data.copyWithin(slot * this.dimensions, last * this.dimensions, (last + 1) * this.dimensions);
    const moved = this.docs[last] ?? -1;
    this.docs[slot] = moved;
    return moved;
  }

  /** The vector in `slot`: a view when in memory (copy it before the slab changes), else a copy. */
  vector(slot: number): Float32Array {
    return this.row(slot);
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
export function scanSlab(
  slab: VectorSlab,
  query: Float64Array,
  allowed: Uint8Array | null,
  dataSourceOf: Int32Array,
  best: TopK,
): void {
  // A small slab is copied into memory at its first scan (scanned every search, it is all hot anyway);
  // a large one, searched through its graph, is streamed on the rare scan a selective filter needs.
  if (!slab.inFile || slab.size * slab.dimensions * 4 <= SCANNED_IN_MEMORY_BYTES) {
    scanRows(
      slab.data,
      slab.docs,
      0,
      slab.size,
      slab.dimensions,
      query,
      allowed,
      dataSourceOf,
      best,
    );
    return;
  }
  // Vectors still in the file are streamed through one block: the scan copies none of them to keep.
  const block = new Float32Array(ROWS_PER_READ * slab.dimensions);
  for (let from = 0; from < slab.size; from += ROWS_PER_READ) {
    const rows = Math.min(ROWS_PER_READ, slab.size - from);
    const target = block.subarray(0, rows * slab.dimensions);
    slab.row(from, target);
    scanRows(target, slab.docs, from, rows, slab.dimensions, query, allowed, dataSourceOf, best);
  }
}

/** scanSlab's loop over `rows` rows of `data`, the first of them slot `firstSlot`. */
function scanRows(
  data: Float32Array,
  docs: Int32Array,
  firstSlot: number,
  rows: number,
  dimensions: number,
  query: Float64Array,
  allowed: Uint8Array | null,
  dataSourceOf: Int32Array,
  best: TopK,
): void {
  let threshold = best.threshold;
  const end = rows * dimensions;
  for (let base = 0, slot = firstSlot; base < end; base += dimensions, slot += 1) {
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
export function slotScore(
  slab: VectorSlab,
  slot: number,
  query: Float64Array,
  scratch?: Float32Array,
): number {
  const data = slab.row(slot, scratch);
  const stop = slab.dimensions;
  let even = 0;
  let odd = 0;
  let j = 0;
  for (; j + 1 < stop; j += 2) {
    even += (data[j] as number) * (query[j] as number);
    odd += (data[j + 1] as number) * (query[j + 1] as number);
  }
  if (j < stop) even += (data[j] as number) * (query[j] as number);
  return even + odd;
}
