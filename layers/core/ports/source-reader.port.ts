import type { DataSource } from '../domain/data-source';
import type { ParsedDocument } from './document.port';

/** One document of a data source, as its reader found it. */
export type SourceItem =
  | {
      readonly status: 'ok';
      /** Stable per document across syncs (a page's URL, an uploaded file's id). */
      readonly key: string;
      readonly document: ParsedDocument;
      /** Changes only when the document's text does. */
      readonly contentHash: string;
    }
  | {
      readonly status: 'skipped';
      readonly key: string;
      /** `gone`: the document no longer exists (its chunks are deleted). */
      readonly reason: string;
      readonly detail: string;
    };

/** Reads every document of a data source (the website crawler, the uploaded files). */
export interface SourceReader {
  read(source: DataSource, signal: AbortSignal): AsyncIterable<SourceItem>;
  /** The most documents this source can yield, for progress (a website's `max_pages`); `null` if unknown. */
  expectedTotal(source: DataSource): number | null;
}
