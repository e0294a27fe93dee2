import { ServiceUnavailableError } from '../../domain/errors';

/** Seconds a caller is asked to wait when OpenSearch is down, slow or overloaded. */
export const SEARCH_RETRY_AFTER_SECONDS = 5;

/**
 * OpenSearch did not answer in time, refused the connection, answered 5xx or
 * 429 (queues full). A `ServiceUnavailableError`, so the HTTP error
 * middleware answers 503 with `Retry-After`, like every other outage of a
 * backing service.
 */
export class SearchUnavailableError extends ServiceUnavailableError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, SEARCH_RETRY_AFTER_SECONDS, options);
  }
}

/** One chunk the bulk API refused, with OpenSearch's reason. */
export interface BulkItemFailure {
  readonly chunkId: string;
  readonly status: number;
  readonly type: string;
  readonly reason: string;
}

/**
 * Some chunks of a bulk request were refused for a reason retrying will not
 * fix (a mapping error, a wrong dimension, a zero vector under cosine). The
 * others were indexed: bulk actions are independent.
 */
export class BulkIndexingError extends Error {
  constructor(readonly failures: readonly BulkItemFailure[]) {
    super(
      `OpenSearch refused ${failures.length} chunk(s): ${failures
        .slice(0, 10)
        .map(
          (failure) => `${failure.chunkId} (${failure.status} ${failure.type}: ${failure.reason})`,
        )
        .join('; ')}${failures.length > 10 ? '; …' : ''}`,
    );
    this.name = 'BulkIndexingError';
  }
}

/** OpenSearch refused a request (4xx other than 429): a bug or a misconfigured index, not an outage. */
export class OpenSearchRequestError extends Error {
  constructor(
    readonly operation: string,
    readonly status: number,
    readonly type: string,
    reason: string,
    options?: ErrorOptions,
  ) {
    super(`OpenSearch refused ${operation} (${status} ${type}): ${reason}`, options);
    this.name = 'OpenSearchRequestError';
  }
}

/** The index exists with mappings this code cannot use (another embedder's, another dimension). */
export class IndexDefinitionConflictError extends Error {
  constructor(
    readonly indexName: string,
    message: string,
  ) {
    super(`Index ${indexName}: ${message}`);
    this.name = 'IndexDefinitionConflictError';
  }
}
