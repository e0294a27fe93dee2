/**
 * Keeps the `k` best of a stream of (score, id) pairs in a binary min-heap:
 * O(n log k) for n offers, no sort of all n. Equal scores prefer the lower
 * id, so results are deterministic.
 */
export class TopK {
  readonly k: number;
  readonly #scores: Float64Array;
  readonly #ids: Int32Array;
  #size = 0;

  constructor(k: number) {
    this.k = Math.max(0, Math.floor(k));
    this.#scores = new Float64Array(this.k);
    this.#ids = new Int32Array(this.k);
  }

  /** The score an offer must beat once the heap is full (−∞ before). */
  get threshold(): number {
    return this.#size < this.k ? Number.NEGATIVE_INFINITY : (this.#scores[0] ?? 0);
  }

  offer(score: number, id: number): void {
    if (this.k === 0) return;
    if (this.#size < this.k) {
      this.#scores[this.#size] = score;
      this.#ids[this.#size] = id;
      this.#size += 1;
      this.#siftUp(this.#size - 1);
    } else if (this.#worse(0, score, id)) {
      this.#scores[0] = score;
      this.#ids[0] = id;
      this.#siftDown(0);
    }
  }

  /** The kept pairs, best first. */
  drain(): { id: number; score: number }[] {
    const result: { id: number; score: number }[] = [];
    for (let i = 0; i < this.#size; i += 1) {
      result.push({ id: this.#ids[i] ?? 0, score: this.#scores[i] ?? 0 });
    }
    this.#size = 0;
    return result.sort((a, b) => b.score - a.score || a.id - b.id);
  }

  /** Whether the entry at `index` ranks below (score, id). */
  #worse(index: number, score: number, id: number): boolean {
    const held = this.#scores[index] ?? 0;
    return held < score || (held === score && (this.#ids[index] ?? 0) > id);
  }

  #swap(a: number, b: number): void {
    const score = this.#scores[a] ?? 0;
    const id = this.#ids[a] ?? 0;
    this.#scores[a] = this.#scores[b] ?? 0;
    this.#ids[a] = this.#ids[b] ?? 0;
    this.#scores[b] = score;
    this.#ids[b] = id;
  }

  #siftUp(start: number): void {
    let index = start;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.#worse(index, this.#scores[parent] ?? 0, this.#ids[parent] ?? 0)) break;
      this.#swap(index, parent);
      index = parent;
    }
  }

  #siftDown(start: number): void {
    let index = start;
    for (;;) {
      const left = 2 * index + 1;
      const right = left + 1;
      let smallest = index;
      if (
        left < this.#size &&
        this.#worse(left, this.#scores[smallest] ?? 0, this.#ids[smallest] ?? 0)
      ) {
        smallest = left;
      }
      if (
        right < this.#size &&
        this.#worse(right, this.#scores[smallest] ?? 0, this.#ids[smallest] ?? 0)
      ) {
        smallest = right;
      }
      if (smallest === index) return;
      this.#swap(index, smallest);
      index = smallest;
    }
  }
}
