import type {
  InitializeHandler,
  InitializeHandlerArguments,
  MetadataBearer,
  Pluggable,
} from '@smithy/types';
import { ServiceUnavailableError } from '../../domain/errors';

/** Seconds a caller is asked to wait when a backing service is throttling or down. */
const RETRY_AFTER_SECONDS = 5;

const THROTTLING = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
]);
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN']);

/** The SDK wraps socket errors ("AWS SDK error wrapper for Error: connect ECONNREFUSED …"). */
function isNetworkFailure(error: unknown): boolean {
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    const code = (current as NodeJS.ErrnoException).code;
    if (code && NETWORK.has(code)) return true;
    if ([...NETWORK].some((name) => current instanceof Error && current.message.includes(name)))
      return true;
  }
  return false;
}

function isOutage(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return (
    THROTTLING.has(error.name) || (status !== undefined && status >= 500) || isNetworkFailure(error)
  );
}

/**
 * An SDK client plugin: once the SDK's own retries are spent, throttling,
 * 5xx answers and network failures from an AWS service become
 * `ServiceUnavailableError` (503 with `Retry-After`), never a 500. Any other
 * error (a failed condition, a validation error) passes through untouched.
 */
export const outageAsUnavailable: Pluggable<object, MetadataBearer> = {
  applyToStack(stack) {
    stack.add(
      (next: InitializeHandler<object, MetadataBearer>) =>
        async (args: InitializeHandlerArguments<object>) => {
          try {
            return await next(args);
          } catch (error) {
            if (isOutage(error)) {
              throw new ServiceUnavailableError(
                'A backing service is busy or unavailable; retry shortly',
                RETRY_AFTER_SECONDS,
                { cause: error },
              );
            }
            throw error;
          }
        },
      { step: 'initialize', name: 'outageAsUnavailable' },
    );
  },
};
