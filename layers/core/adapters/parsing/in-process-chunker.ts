import { chunkDocument } from '../../domain/retrieval/chunker';
import type { DocumentChunker } from '../../ports/document-chunker.port';

/** Chunks in the calling process: the cloud's workers, bounded by their Lambda's timeout and memory. */
export const inProcessChunker: DocumentChunker = {
  async chunk(document) {
    return chunkDocument(document);
  },
};
