import type { APIError } from 'openai';
import { ModelRateLimitedError, ModelUnavailableError } from '../../ports/answerer.port';
import { ModelRequestError } from '../../ports/model-request-error';
import { loadedOpenAiSdk } from './openai-client';
import { redactKeys, retryAfter } from './provider-responses';

export { redactKeys, retryAfter };

export interface ModelErrorContext {
  /** What was attempted, for the message: `chat completion`, `embedding`. */
  readonly operation: string;
  /** Our own watchdog gave up waiting (the SDK then reports an abort). */
  readonly timedOut: boolean;
  readonly timeoutMs: number;
  /** `Retry-After` when the provider names none. */
  readonly retryAfterSeconds: number;
}

function isModelError(error: unknown): error is ModelRequestError | ModelUnavailableError {
  return error instanceof ModelRequestError || error instanceof ModelUnavailableError;
}

/**
 * Sorts a failure from the OpenAI SDK into the two kinds the service treats
 * differently (issue 3): `ModelUnavailableError` when a later retry may work
 * (timeouts, connection errors, 408/409/429, 5xx, errors inside a stream —
 * 503 with Retry-After, never a 500), `ModelRequestError` when the
 * configuration is wrong (bad key, unknown model, used-up quota, a request
 * the provider rejects). Never called for the caller's own abort.
 */
export function toModelError(error: unknown, context: ModelErrorContext): Error {
  const { operation, retryAfterSeconds } = context;
  // The SDK wraps what our `apiKey` function threw (the cloud reads the key
  // from Secrets Manager): that error already says what went wrong.
  if (error instanceof Error && isModelError(error.cause)) return error.cause;
  // Loaded lazily with the first client: before that, nothing thrown can be the SDK's.
  const sdk = loadedOpenAiSdk();
  if (context.timedOut || (sdk && error instanceof sdk.APIConnectionTimeoutError)) {
    return new ModelUnavailableError(
      `The model provider did not answer the ${operation} within ${context.timeoutMs} ms`,
      retryAfterSeconds,
      { cause: error },
    );
  }
  if (sdk && error instanceof sdk.APIConnectionError) {
    return new ModelUnavailableError(
      `The model provider could not be reached for the ${operation}`,
      retryAfterSeconds,
      { cause: error },
    );
  }
  if (sdk && error instanceof sdk.APIError && error.status !== undefined) {
    const status = error.status;
    const reason = providerMessage(error);
    if (status === 429 && error.code === 'insufficient_quota') {
      return new ModelRequestError(
        `The model provider's quota is used up (429): ${reason}`,
        'quota',
        status,
        { cause: error },
      );
    }
    if (status === 429) {
      return new ModelRateLimitedError(
        `The model provider is rate limiting the ${operation} (429): ${reason}`,
        retryAfter(error.headers, retryAfterSeconds),
        { cause: error },
      );
    }
    if (status === 408 || status === 409 || status >= 500) {
      return new ModelUnavailableError(
        `The model provider refused the ${operation} for now (${status}): ${reason}`,
        retryAfter(error.headers, retryAfterSeconds),
        { cause: error },
      );
    }
    const failure =
      status === 401
        ? 'authentication'
        : status === 403
          ? 'permission'
          : status === 404
            ? 'model_not_found'
            : 'bad_request';
    return new ModelRequestError(
      `The model provider rejected the ${operation} (${status} ${failure}): ${reason}`,
      failure,
      status,
      { cause: error },
    );
  }
  // An `error` event inside a stream, a chunk that is not JSON, a connection
  // cut mid-body: the provider failed this once.
  return new ModelUnavailableError(
    `The model provider failed during the ${operation}: ${error instanceof Error ? redactKeys(error.message) : 'unknown error'}`,
    retryAfterSeconds,
    { cause: error },
  );
}

/** The provider's own explanation, without any key it quotes (keys never logged). */
function providerMessage(error: APIError): string {
  const body: unknown = error.error;
  const message =
    typeof body === 'object' &&
    body !== null &&
    'message' in body &&
    typeof body.message === 'string'
      ? body.message
      : error.message;
  return redactKeys(message);
}
