import {
  type AppError,
  ForbiddenError,
  RateLimitExceededError,
  RoleForbiddenError,
  UnauthorizedError,
} from '../domain/errors';

/** What a caller sees of a failed request, before it is put in a shape. */
export interface ErrorView {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly details: Record<string, unknown>;
}

/** The nested shape, used by `/api/v1`: the same for every status. */
export function nestedErrorBody(view: ErrorView, requestId: string): Record<string, unknown> {
  return {
    error: { code: view.code, message: view.message, details: view.details },
    request_id: requestId,
  };
}

/**
 * The flat shapes, used by legacy paths: the spec's published bodies for 401,
 * 403 and 429 (a role refusal names roles where a scope refusal names
 * scopes), and for other statuses `{ error, status, code, details }` in
 * the same spirit. Every one carries `request_id`.
 */
export function flatErrorBody(
  view: ErrorView,
  error: AppError | undefined,
  requestId: string,
): Record<string, unknown> {
  if (error instanceof UnauthorizedError) {
    return { error: error.title, status: 401, message: view.message, request_id: requestId };
  }
  if (error instanceof ForbiddenError) {
    return {
      error: 'Insufficient permissions',
      required_scope: error.requiredScope,
      current_scopes: error.currentScopes,
      request_id: requestId,
    };
  }
  if (error instanceof RoleForbiddenError) {
    return {
      error: 'Insufficient permissions',
      required_role: error.requiredRole,
      current_role: error.currentRole,
      request_id: requestId,
    };
  }
  if (error instanceof RateLimitExceededError) {
    return {
      error: 'Rate limit exceeded',
      limit: error.limit,
      reset_at: error.resetAt.toISOString(),
      retry_after: error.retryAfterSeconds,
      reason: error.reason,
      request_id: requestId,
    };
  }
  return {
    error: view.message,
    status: view.status,
    code: view.code,
    details: view.details,
    request_id: requestId,
  };
}
