import type { Logger } from '@aws-lambda-powertools/logger';
import {
  AppError,
  ConflictError,
  ForbiddenError,
  InvalidRequestError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitExceededError,
  ServiceUnavailableError,
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
  [NotFoundError, 404],
  [MethodNotAllowedError, 405],
  [ConflictError, 409],
  [PayloadTooLargeError, 413],
  [UnsupportedMediaTypeError, 415],
  [RateLimitExceededError, 429],
  [ServiceUnavailableError, 503],
];

function statusOf(error: AppError): number {
  return STATUS_OF.find(([type]) => error instanceof type)?.[1] ?? 500;
}

/**
 * Turns any thrown error into a response in the path family's shape (D5).
 * Errors meant for the caller keep their message and details; anything else
 * is logged with its stack and answered as a bare `500 internal_error` with
 * the request id, so no internals leak.
 */
export function errorResponses(options: { readonly logger: Logger }): HttpMiddleware {
  const errorResponsesOnError = (request: HttpRequest): void => {
    const error = request.error;
    const state = request.context.svc;
    const requestId = state?.requestId ?? 'req_unknown';
    let view: ErrorView;
    if (error instanceof AppError) {
      view = {
        status: statusOf(error),
        code: error.code,
        message: error.message,
        details: error.details,
      };
    } else {
      options.logger.error('Unhandled error', { request_id: requestId, error: error as Error });
      view = {
        status: 500,
        code: 'internal_error',
        message: 'Internal error; quote the request_id when contacting support',
        details: {},
      };
    }
    const appError = error instanceof AppError ? error : undefined;
    const body =
      state?.errorShape === 'flat'
        ? flatErrorBody(view, appError, requestId)
        : nestedErrorBody(view, requestId);
    request.response = jsonResponse(view.status, body);
  };
  return { onError: errorResponsesOnError };
}
