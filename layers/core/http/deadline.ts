import { ServiceUnavailableError } from '../domain/errors';

/** Seconds a caller is asked to wait after its request ran out of time. */
export const DEADLINE_RETRY_AFTER_SECONDS = 5;

/**
 * middy's plugin options for every HTTP function. When the handler is still
 * running at the function's deadline (Lambda's remaining time; on one
 * machine, API Gateway's 29 s), middy stops waiting for it and calls
 * `timeoutEarlyResponse`, whose default throws a bare `TimeoutError`: a 500.
 * Running out of time is overload, not a fault of the request or of the
 * code, so it is the spec's `503 service_unavailable` ("maintenance or
 * overload") with `Retry-After`, like every other outage.
 */
export const deadlineOptions = {
  timeoutEarlyResponse(): never {
    throw new ServiceUnavailableError(
      'The service is overloaded and the request ran out of time; retry shortly',
      DEADLINE_RETRY_AFTER_SECONDS,
    );
  },
} as const;
