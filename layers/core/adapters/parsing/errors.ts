export { UnsupportedFileTypeError } from '../../domain/file-types';

/**
 * A file of an accepted type that could not be read (a damaged or encrypted
 * PDF, a DOCX that is not a valid package). The message is safe to store
 * and show; the library's error is the `cause`.
 */
export class FileParseError extends Error {
  readonly code = 'file_unreadable';

  constructor(
    readonly filename: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`could not read "${filename}": ${message}`, options);
    this.name = new.target.name;
  }
}

/**
 * HTML nested too deeply to parse in reasonable time (see
 * `MAX_HTML_NESTING`): refused rather than letting one page hold a worker's
 * CPU for minutes.
 */
export class DocumentTooComplexError extends Error {
  readonly code = 'document_too_complex';

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
