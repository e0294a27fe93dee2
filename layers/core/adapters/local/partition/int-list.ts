/** A growable Int32Array. */
export class IntList {
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
