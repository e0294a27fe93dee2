/**
 * Thrown by a queue worker's record handler for a message that must come
 * back: Powertools' batch processor reports it as a batch item failure, and
 * SQS delivers it again after its visibility timeout (or the delay the
 * dispatcher set).
 */
export class RetryLaterError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RetryLaterError';
  }
}
