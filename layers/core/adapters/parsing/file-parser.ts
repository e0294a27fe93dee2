import type { FileParseOutcome, FileParser } from '../../ports/file-parser.port';
import { FileParseError, UnsupportedFileTypeError } from './errors';
import { parseFile } from './file-parsers';
import { FileLimitExceededError } from './parse-limits';

/**
 * {@link parseFile} behind the port: a file of the wrong type, one that
 * cannot be read or one over a parse limit (P95) is an outcome to record on the file; anything else (out of
 * memory, a bug) is thrown so the ingestion message is retried.
 */
export const uploadedFileParser: FileParser = {
  async parse(bytes, filename, contentType): Promise<FileParseOutcome> {
    try {
      return { ok: true, document: await parseFile(bytes, filename, contentType) };
    } catch (error) {
      if (
        error instanceof UnsupportedFileTypeError ||
        error instanceof FileParseError ||
        error instanceof FileLimitExceededError
      ) {
        return { ok: false, reason: error.message };
      }
      throw error;
    }
  },
};
