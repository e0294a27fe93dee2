/** Turns text into vectors (the offline hashing embedder, or a provider's model). */
export interface Embedder {
  /**
   * Names the model and its settings, e.g. `offline-hash-v1/384` or
   * `openai/text-embedding-3-small/1536`. Stored with every indexed chunk, so
   * a search with another embedder is refused instead of returning garbage.
   */
  readonly id: string;
  readonly dimensions: number;
  /** One unit-length vector per text, in order. */
  embed(texts: readonly string[]): Promise<number[][]>;
}
