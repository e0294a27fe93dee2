import type { ParsedDocument } from './document.port';

/** A file's text, or why the file itself cannot be read (not a failure of ours: retrying will not help). */
export type FileParseOutcome =
  | { readonly ok: true; readonly document: ParsedDocument }
  | { readonly ok: false; readonly reason: string };

/** Turns an uploaded file's bytes into a document (the upload rules' types). */
export interface FileParser {
  parse(bytes: Buffer, filename: string, contentType?: string): Promise<FileParseOutcome>;
}
