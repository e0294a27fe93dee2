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
  embed(texts: readonly string[], options?: EmbedOptions): Promise<number[][]>;
}

export interface EmbedOptions {
  /**
   * `query`: a question, embedded while its caller waits: an adapter fails
   * at once rather than wait out a provider's throttle (the caller gets 503
   * with Retry-After), and a model that embeds questions apart from passages
   * is told. `document` (default): chunks being indexed, where waiting is
   * cheaper than failing a sync.
   */
  readonly purpose?: 'query' | 'document';
}
