import type { ParsedDocument } from '../../../layers/core/ports/document.port';

/** A job for the parsing process (sent in batches, `ParsingJob[]`, with V8 serialization: `bytes` arrives as bytes). */
export type ParsingJob =
  | {
      readonly id: number;
      readonly kind: 'parse';
      readonly bytes: Uint8Array;
      readonly filename: string;
      readonly contentType: string | undefined;
    }
  | { readonly id: number; readonly kind: 'chunk'; readonly document: ParsedDocument }
  /** A crawled HTML page (decoded), parsed as `parseHtmlPage` does. */
  | { readonly id: number; readonly kind: 'page'; readonly html: string; readonly url: string };

export type ParsingReply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | {
      readonly id: number;
      readonly ok: false;
      readonly message: string;
      /** The error's class name (`DocumentTooComplexError`: the page is past the parser's limits). */
      readonly name: string;
    };

/** Sent once, when the process has loaded the parsers and takes jobs. */
export interface ParsingReady {
  readonly ready: true;
}
