import * as errors from '@opensearch-project/opensearch/lib/errors.js';
import { OpenSearchRequestError, SearchUnavailableError } from './errors';

/** What OpenSearch says about a failure: `{ error: { type, reason }, status }`, or less. */
export interface FailureCause {
  readonly type?: string;
  readonly reason?: string;
}

/** Statuses that mean "busy or down, try again": 429 (queues full) and every 5xx. */
export function isTransientStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * The error a failed OpenSearch answer (a whole response or one item of a
 * bulk or multi-search) becomes: transient ones are `SearchUnavailableError`
 * (503 with `Retry-After`), the rest `OpenSearchRequestError`.
 */
export function errorFromStatus(
  operation: string,
  status: number,
  cause: FailureCause | undefined,
  options?: ErrorOptions,
): Error {
  const type = cause?.type ?? 'unknown';
  const reason = cause?.reason ?? 'no reason given';
  if (isTransientStatus(status)) {
    return new SearchUnavailableError(
      `OpenSearch is unavailable for ${operation} (${status} ${type}): ${reason}`,
      options,
    );
  }
  return new OpenSearchRequestError(operation, status, type, reason, options);
}

function causeOf(body: unknown): FailureCause | undefined {
  if (typeof body !== 'object' || body === null || !('error' in body)) return undefined;
  const { error } = body;
  if (typeof error === 'string') return { reason: error };
  if (typeof error !== 'object' || error === null) return undefined;
  const type = 'type' in error && typeof error.type === 'string' ? error.type : undefined;
  const reason = 'reason' in error && typeof error.reason === 'string' ? error.reason : undefined;
  return { type, reason };
}

/**
 * Turns what the client threw into the service's errors. Timeouts, refused
 * or dropped connections (after the client's own retries) and 5xx/429
 * answers are outages; other answers are refusals. Anything else (a signing
 * failure, a bug) passes through unchanged.
 */
export function translateError(operation: string, error: unknown): unknown {
  if (error instanceof errors.TimeoutError) {
    return new SearchUnavailableError(`OpenSearch did not answer ${operation} in time`, {
      cause: error,
    });
  }
  if (error instanceof errors.ConnectionError || error instanceof errors.NoLivingConnectionsError) {
    return new SearchUnavailableError(`OpenSearch could not be reached for ${operation}`, {
      cause: error,
    });
  }
  if (error instanceof errors.ResponseError) {
    return errorFromStatus(operation, error.statusCode, causeOf(error.body), { cause: error });
  }
  return error;
}

/**
 * Runs one client call, translating what it throws (`translateError`).
 *
 * @example
 * const response = await withSearchErrors('count', () => client.count({ index }));
 */
export async function withSearchErrors<T>(operation: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    throw translateError(operation, error);
  }
}
