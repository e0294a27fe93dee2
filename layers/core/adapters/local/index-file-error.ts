/** Thrown when an index file cannot be read back (not a torn last log line, which is skipped). */
export class IndexFileCorruptError extends Error {
  constructor(
    readonly file: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`${file}: ${message}`, options);
    this.name = 'IndexFileCorruptError';
  }
}
