import type { Logger } from '@aws-lambda-powertools/logger';
import {
  AddressNotAllowedError,
  AppError,
  ConflictError,
  ForbiddenError,
  InvalidRequestError,
  MethodNotAllowedError,
  ModelProviderRateLimitedError,
  ModelProviderRefusedError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitExceededError,
  RequestRefusedError,
  RoleForbiddenError,
  ServiceUnavailableError,
  TenantMismatchError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
} from '../../domain/errors';
import { type ErrorView, flatErrorBody, nestedErrorBody } from '../error-body';
import type { HttpMiddleware, HttpRequest } from '../request-state';
import { jsonResponse } from '../responses';

/** The one place errors become HTTP statuses (STYLE.md §4). */
const STATUS_OF: ReadonlyArray<readonly [abstract new (...args: never[]) => AppError, number]> = [
  [InvalidRequestError, 400],
  [UnauthorizedError, 401],
  [ForbiddenError, 403],
  [RoleForbiddenError, 403],
  [RequestRefusedError, 403],
  [TenantMismatchError, 403],
  [AddressNotAllowedError, 403],
  [NotFoundError, 404],
  [MethodNotAllowedError, 405],
  [ConflictError, 409],
  [PayloadTooLargeError, 413],
  [UnsupportedMediaTypeError, 415],
  [ModelProviderRefusedError, 424],
  [RateLimitExceededError, 429],
  [ModelProviderRateLimitedError, 429],
  [ServiceUnavailableError, 503],
];

function statusOf(error: AppError): number {
  return STATUS_OF.find(([type]) => error instanceof type)?.[1] ?? 500;
}

/**
 * What a caller may see of an error: its own message and details for errors
 * meant for callers; for anything else a bare `internal_error` (logged here
 * with its stack, never shown).
 */
export function errorViewOf(error: unknown, logger: Logger, requestId: string): ErrorView {
  if (error instanceof AppError) {
    return {
      status: statusOf(error),
      code: error.code,
      message: error.message,
      details: error.details,
    };
  }
  logger.error('Unhandled error', { request_id: requestId, error: error as Error });
  return {
    status: 500,
    code: 'internal_error',
    message: 'Internal error; quote the request_id when contacting support',
    details: {},
  };
}

/**
 * Turns any thrown error into a response in the path family's shape.
 * Errors meant for the caller keep their message and details; anything else
 * is logged with its stack and answered as a bare `500 internal_error` with
 * the request id, so no internals leak.
 *
 * Ours rather than `@middy/http-error-handler` (issue 8): that one answers
 * with the error's message as a plain body and knows one shape, where D5 has
 * two (v1's nested `error` object and the legacy flat one) plus the request
 * id and the rate limits' `Retry-After`.
 */
export function errorResponses(options: { readonly logger: Logger }): HttpMiddleware {
  const errorResponsesOnError = (request: HttpRequest): void => {
    const error = request.error;
    const state = request.context.svc;
    const requestId = state?.requestId ?? 'req_unknown';
    const view = errorViewOf(error, options.logger, requestId);
    const appError = error instanceof AppError ? error : undefined;
    const body =
      state?.errorShape === 'flat'
        ? flatErrorBody(view, appError, requestId)
        : nestedErrorBody(view, requestId);
    request.response = jsonResponse(view.status, body);
  };
  return { onError: errorResponsesOnError };
}
