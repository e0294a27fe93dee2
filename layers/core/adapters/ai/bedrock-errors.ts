import { ModelRateLimitedError, ModelUnavailableError } from '../../ports/answerer.port';
import { ModelRequestError } from '../../ports/model-request-error';
import { retryAfter } from './provider-responses';

export interface BedrockErrorContext {
  /** What was attempted, for the message: `answer`, `embedding`. */
  readonly operation: string;
  /** The model id asked for, which every message names. */
  readonly modelId: string;
  /** The region it was asked in (where access is requested), when known. */
  readonly region: string | undefined;
  /** Our own watchdog gave up waiting (the SDK then reports an abort). */
  readonly timedOut: boolean;
  readonly timeoutMs: number;
  /** `Retry-After` when Bedrock names none. */
  readonly retryAfterSeconds: number;
}

/**
 * Seconds a caller is asked to wait when the model may not be used: access
 * is granted in minutes, not seconds, and nothing changes before then.
 */
export const ACCESS_DENIED_RETRY_AFTER_SECONDS = 300;

/** Exceptions that say "not now": Bedrock's own and the SDK's transport failures. */
const THROTTLED = new Set([
  'ThrottlingException',
  'ServiceQuotaExceededException',
  'ModelNotReadyException',
  'TooManyRequestsException',
]);
const UNAVAILABLE = new Set([
  'ServiceUnavailableException',
  'InternalServerException',
  'ModelTimeoutException',
  'ModelStreamErrorException',
  'ModelErrorException',
]);
const UNREACHABLE = new Set([
  'TimeoutError',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
]);

interface SdkErrorShape {
  readonly name?: unknown;
  readonly code?: unknown;
  readonly message?: unknown;
  readonly $metadata?: { readonly httpStatusCode?: unknown };
  readonly $response?: { readonly headers?: Record<string, string | undefined> };
}

/**
 * Sorts a failure of a Bedrock Runtime call into what the service answers
 * (issue 3's two kinds), by the exception's name, never by its text. The
 * messages are the service's own: they name the model, the region and what
 * to do, and carry none of AWS's wording (which can name the role and
 * account). Never called for the caller's own abort.
 *
 * - access denied (the model is not enabled for the account, or the role
 *   may not invoke it): `ModelUnavailableError` (503) naming the model and
 *   where in the AWS console access is requested;
 * - throttling, quotas, a model not ready: `ModelRateLimitedError` (503
 *   with Retry-After);
 * - Bedrock down or slow, a stream broken off, no connection, no
 *   credentials or region on one machine: `ModelUnavailableError`;
 * - an unknown model id or a request Bedrock rejects: `ModelRequestError`
 *   (the deployment's configuration is wrong; a 500 that says nothing more).
 */
export function toBedrockModelError(error: unknown, context: BedrockErrorContext): Error {
  const { operation, modelId, retryAfterSeconds } = context;
  const where = context.region ? ` in ${context.region}` : '';
  if (error instanceof ModelRequestError || error instanceof ModelUnavailableError) return error;
  const shape = (typeof error === 'object' && error !== null ? error : {}) as SdkErrorShape;
  const name = typeof shape.name === 'string' ? shape.name : '';
  const code = typeof shape.code === 'string' ? shape.code : '';
  const status =
    typeof shape.$metadata?.httpStatusCode === 'number' ? shape.$metadata.httpStatusCode : null;

  if (context.timedOut) {
    return new ModelUnavailableError(
      `Amazon Bedrock did not answer the ${operation} with ${modelId} within ${context.timeoutMs} ms`,
      retryAfterSeconds,
      { cause: error },
    );
  }
  if (name === 'AccessDeniedException' || status === 403) {
    return new ModelUnavailableError(
      `Amazon Bedrock refused access to the model ${modelId}${where}: in the AWS console, open Amazon Bedrock${where}, then Model access (Model catalog in newer consoles), and request access to this model; if it is granted already, the service's AWS role or credentials may not invoke it`,
      ACCESS_DENIED_RETRY_AFTER_SECONDS,
      { cause: error },
    );
  }
  if (THROTTLED.has(name) || status === 429) {
    return new ModelRateLimitedError(
      `Amazon Bedrock is throttling the ${operation} with ${modelId}${where}`,
      retryAfter(headersOf(shape), retryAfterSeconds),
      { cause: error },
    );
  }
  if (UNAVAILABLE.has(name) || (status !== null && (status >= 500 || status === 408))) {
    return new ModelUnavailableError(
      `Amazon Bedrock could not complete the ${operation} with ${modelId} for now`,
      retryAfter(headersOf(shape), retryAfterSeconds),
      { cause: error },
    );
  }
  if (name === 'CredentialsProviderError') {
    return new ModelUnavailableError(
      `No AWS credentials were found to call Amazon Bedrock (the default chain: AWS_PROFILE, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, SSO, the instance's role)`,
      retryAfterSeconds,
      { cause: error },
    );
  }
  if (typeof shape.message === 'string' && /region is missing/i.test(shape.message)) {
    return new ModelUnavailableError(
      'No AWS region is configured for Amazon Bedrock (AWS_REGION, or the profile’s region)',
      retryAfterSeconds,
      { cause: error },
    );
  }
  if (name === 'ResourceNotFoundException' || status === 404) {
    return new ModelRequestError(
      `Amazon Bedrock knows no model ${modelId}${where} (ResourceNotFoundException)`,
      'model_not_found',
      status,
      { cause: error },
    );
  }
  if (name === 'ValidationException' || (status !== null && status >= 400 && status < 500)) {
    return new ModelRequestError(
      `Amazon Bedrock rejected the ${operation} with ${modelId} (${name || status})`,
      'bad_request',
      status,
      { cause: error },
    );
  }
  // A connection refused or cut, a body that is not an event stream, a
  // stream that ended mid-message: Bedrock (or the way to it) failed once.
  const transport = UNREACHABLE.has(code) || UNREACHABLE.has(name) ? ' could not be reached' : '';
  return new ModelUnavailableError(
    transport
      ? `Amazon Bedrock${transport} for the ${operation} with ${modelId}`
      : `Amazon Bedrock failed during the ${operation} with ${modelId}`,
    retryAfterSeconds,
    { cause: error },
  );
}

function headersOf(shape: SdkErrorShape): Headers | undefined {
  const raw = shape.$response?.headers;
  if (!raw) return undefined;
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw))
    if (value !== undefined) headers.set(name, value);
  return headers;
}
