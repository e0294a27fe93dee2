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
       * The reader reached a budget (the crawl's bytes or time, P98) and read
       * no further: always last. Documents it did not reach are kept.
       */
      readonly status: 'stopped';
      readonly reason: string;
      readonly detail: string;
    };

/** Reads every document of a data source (the website crawler, the uploaded files). */
export interface SourceReader {
  read(source: DataSource, signal: AbortSignal): AsyncIterable<SourceItem>;
  /** The most documents this source can yield, for progress (a website's `max_pages`); `null` if unknown. */
  expectedTotal(source: DataSource): number | null;
}
