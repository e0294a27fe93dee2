import type { TopK } from '../top-k';

/**
 * The vectors of one embedder, unit length, back to back in one Float32Array
 * so the exact k-NN scan is a tight loop over contiguous memory. Removal
 * moves the last vector into the hole, keeping the slab dense.
 */
export class VectorSlab {
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
export function scanSlab(
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
export function slotScore(slab: VectorSlab, slot: number, query: Float64Array): number {
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
