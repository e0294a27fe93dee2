import type { DocumentChunk } from '../domain/retrieval/chunker';
import type { ParsedDocument } from './document.port';

/**
 * Cuts a parsed document into chunks (`chunkDocument`, domain/retrieval),
 * wherever the deployment runs CPU-bound work: in the Lambda itself in the
 * cloud, in a parsing process on one machine so the API's event loop is never
 * held (issue 14).
 */
export interface DocumentChunker {
  chunk(document: ParsedDocument): Promise<readonly DocumentChunk[]>;
}

/**
 * The document could not be read or chunked within the limits of the place
 * that does the work (time, memory): it is refused with this reason, which
 * is safe to store and show. Retrying will not help, so it is not retried.
 */
export class DocumentRefusedError extends Error {
  readonly code = 'document_refused';

  constructor(reason: string) {
    super(reason);
    this.name = new.target.name;
  }
}
