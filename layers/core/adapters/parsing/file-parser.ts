import type { FileParseOutcome, FileParser } from '../../ports/file-parser.port';
import { FileParseError, UnsupportedFileTypeError } from './errors';
import { parseFile } from './file-parsers';

/**
 * {@link parseFile} behind the port: a file of the wrong type or one that
 * cannot be read is an outcome to record on the file; anything else (out of
 * memory, a bug) is thrown so the ingestion message is retried.
 */
export const uploadedFileParser: FileParser = {
  async parse(bytes, filename, contentType): Promise<FileParseOutcome> {
    try {
      return { ok: true, document: await parseFile(bytes, filename, contentType) };
    } catch (error) {
      if (error instanceof UnsupportedFileTypeError || error instanceof FileParseError) {
        return { ok: false, reason: error.message };
      }
      throw error;
    }
  },
};
