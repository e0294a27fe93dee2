import type { DataSource } from '../domain/data-source';
import type { ParsedDocument } from './document.port';

/** One document of a data source, as its reader found it. */
export type SourceItem =
  | {
      readonly status: 'ok';
      /** Stable per document across syncs (a page's URL, an uploaded file's id). */
      readonly key: string;
      /** The document's id when the source assigns its own (an uploaded file's); else derived from `key`. */
      readonly documentId?: string;
      readonly document: ParsedDocument;
      /** Changes only when the document's text does. */
      readonly contentHash: string;
    }
  | {
      readonly status: 'skipped';
      readonly key: string;
      readonly documentId?: string;
      /** `gone`: the document no longer exists (its chunks are deleted). */
      readonly reason: string;
      readonly detail: string;
    }
  | {
      /**
       * Everything yielded so far is indexed once the runner has handled
       * it, so a later run may start from `cursor` (an incremental reader's own
       * value, e.g. a last-modified time or a provider page token). The runner
       * commits it on the data source, while the job is current.
       */
      readonly status: 'checkpoint';
      readonly cursor: string;
    }
  | {
      /**
       * An incremental reader's list of every document that exists now
       * (keys). Indexed documents it does not list are deleted when the run ends
       * normally, since an incremental read does not yield what did not change.
       */
      readonly status: 'inventory';
      readonly keys: readonly string[];
    }
  | {
      /**
       * The reader reached a budget (the crawl's bytes or time) and read
       * no further: always last. Documents it did not reach are kept.
       */
      readonly status: 'stopped';
      readonly reason: string;
      readonly detail: string;
    };

/** Where an incremental read resumes. */
export interface ReadContext {
  /** The last committed cursor; `null` for a first (full) read. */
  readonly cursor: string | null;
  /** Whether the document of `key` is in the index now. */
  readonly isIndexed: (key: string) => boolean;
}

/**
 * Reads the documents of a data source: every one on each run (the website
 * crawler, the uploaded files), or, for connectors, what changed since the
 * context's cursor plus an inventory.
 */
export interface SourceReader {
  read(source: DataSource, signal: AbortSignal, context: ReadContext): AsyncIterable<SourceItem>;
  /** The most documents this source can yield, for progress (a website's `max_pages`); `null` if unknown. */
  expectedTotal(source: DataSource): number | null;
}
