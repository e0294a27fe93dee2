import { ModelRateLimitedError, ModelUnavailableError } from '../../ports/answerer.port';
import { ModelRequestError } from '../../ports/model-request-error';
import { redactKeys, retryAfter } from './provider-responses';

export interface AnthropicErrorContext {
  readonly timedOut: boolean;
  readonly timeoutMs: number;
  readonly retryAfterSeconds: number;
}

/** The fields of the SDK's `APIError` this needs, read structurally (the SDK is loaded lazily). */
interface ApiErrorShape {
  readonly status?: number | undefined;
  readonly headers?: Headers | undefined;
  readonly error?: unknown;
  readonly message: string;
  readonly name: string;
}

function isApiError(error: unknown): error is ApiErrorShape {
  return error instanceof Error && 'status' in error && 'headers' in error;
}

/**
 * Anthropic's error body: `{"type":"error","error":{"type":"authentication_error",
 * "message":"invalid x-api-key"}}` (docs.anthropic.com, Errors). The
 * provider's own words, without any key.
 */
function providerReason(error: ApiErrorShape): { type: string | null; message: string } {
  const body = error.error as { error?: { type?: unknown; message?: unknown } } | undefined;
  const inner = body?.error;
  return {
    type: typeof inner?.type === 'string' ? inner.type : null,
    message: redactKeys(typeof inner?.message === 'string' ? inner.message : error.message),
  };
}

/**
 * Sorts a failure of Anthropic's Messages API as toModelError does OpenAI's
 * (issue 3): timeouts, connection errors, 408/409, 5xx and 529
 * `overloaded_error` (also as an `error` event inside a stream) are
 * `ModelUnavailableError`; 429 is `ModelRateLimitedError` with the
 * provider's `retry-after`; 401, 403, 404, 402 and other 4xx are
 * `ModelRequestError` with the provider's reason.
 */
export function toAnthropicModelError(error: unknown, context: AnthropicErrorContext): Error {
  const { retryAfterSeconds } = context;
  if (context.timedOut || (error instanceof Error && error.name === 'APIConnectionTimeoutError')) {
    return new ModelUnavailableError(
      `The model provider did not answer the message within ${context.timeoutMs} ms`,
      retryAfterSeconds,
      { cause: error },
    );
  }
  if (error instanceof Error && error.name === 'APIConnectionError') {
    return new ModelUnavailableError(
      'The model provider could not be reached for the message',
      retryAfterSeconds,
      { cause: error },
    );
  }
  if (isApiError(error) && typeof error.status === 'number') {
    const { status } = error;
    const reason = providerReason(error);
    const said = `${reason.type ? `${reason.type}: ` : ''}${reason.message}`;
    if (status === 429) {
      return new ModelRateLimitedError(
        `The model provider is rate limiting the message (429): ${said}`,
        retryAfter(error.headers, retryAfterSeconds),
        { cause: error },
      );
    }
    if (status === 408 || status === 409 || status >= 500) {
      return new ModelUnavailableError(
        `The model provider refused the message for now (${status}): ${said}`,
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
            : status === 402
              ? 'quota'
              : 'bad_request';
    return new ModelRequestError(
      `The model provider rejected the message (${status} ${failure}): ${said}`,
      failure,
      status,
      { cause: error },
    );
  }
  // An `error` event inside the stream (`overloaded_error`, `api_error`), a cut connection.
  const reason = isApiError(error)
    ? providerReason(error)
    : { type: null, message: error instanceof Error ? redactKeys(error.message) : 'unknown error' };
  return new ModelUnavailableError(
    `The model provider failed during the message: ${reason.type ? `${reason.type}: ` : ''}${reason.message}`,
    retryAfterSeconds,
    { cause: error },
  );
}
