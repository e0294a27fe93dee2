import type { ParsedDocument } from '../../ports/document.port';

/**
 * P110: how much one sync indexes at once. Indexing a page is a chain of
 * waits (the parsing process chunks it, the index log is flushed to disk,
 * OpenSearch answers), so a sync that indexed one page at a time left the
 * machine idle for most of each page; with several under way, their waits
 * overlap and the index's log writes are committed together. Bounded in
 * documents and in characters, so a few large files are not all held at
 * once (one is always allowed, whatever its size).
 */
export const INDEXING_PIPELINE_LIMITS = {
  documents: 8,
  characters: 4 * 1024 * 1024,
} as const;

/** A parsed document's size in characters, as the pipeline counts it. */
export function documentSize(document: ParsedDocument): number {
  let size = document.title.length;
  for (const section of document.sections) {
    for (const paragraph of section.paragraphs) size += paragraph.length;
  }
  return size;
}

/**
 * Runs a sync's indexing tasks a few at a time, one per document key. The
 * first failure stops it: later `add`s, `settled` and `drain` throw it (the
 * sync job then ends like any failed run and resumes from its message), after
 * the tasks already under way have finished, so nothing is left writing.
 */
export class IndexingPipeline {
  readonly #limits: { readonly documents: number; readonly characters: number };
  readonly #running = new Map<string, Promise<void>>();
  #characters = 0;
  #failure: { readonly error: unknown } | null = null;

  constructor(
    limits: { readonly documents: number; readonly characters: number } = INDEXING_PIPELINE_LIMITS,
  ) {
    this.#limits = limits;
  }

  /** Starts `task` for `key` once there is room; resolves when it has started. */
  async add(key: string, size: number, task: () => Promise<void>): Promise<void> {
    this.#throwIfFailed();
    while (
      this.#running.size > 0 &&
      (this.#running.size >= this.#limits.documents ||
        this.#characters + size > this.#limits.characters)
    ) {
      await Promise.race(this.#running.values());
      this.#throwIfFailed();
    }
    this.#characters += size;
    const running = task()
      .catch((error: unknown) => {
        this.#failure ??= { error };
      })
      .finally(() => {
        this.#running.delete(key);
        this.#characters -= size;
      });
    this.#running.set(key, running);
  }

  /** Waits for the task of `key`, if one is under way. */
  async settled(key: string): Promise<void> {
    await this.#running.get(key);
    this.#throwIfFailed();
  }

  /** Waits for every task under way. */
  async drain(): Promise<void> {
    while (this.#running.size > 0) await Promise.all(this.#running.values());
    this.#throwIfFailed();
  }

  #throwIfFailed(): void {
    if (this.#failure) throw this.#failure.error;
  }
}
