import type { ScopeBucketReport } from './gcra';

/**
 * Every error the service means to show a caller. Each has a stable `code`
 * (the spec's error codes); the HTTP status for each class is chosen in one
 * place, the HTTP error middleware. Anything that is not an `AppError` is an
 * internal error and is never shown.
 */
export abstract class AppError extends Error {
  abstract readonly code: string;
  readonly details: Record<string, unknown>;

  constructor(message: string, details: Record<string, unknown> = {}, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.details = details;
  }
}

/** Missing field, bad format, unknown field, out-of-range value (spec: 400). */
export class InvalidRequestError extends AppError {
  readonly code = 'invalid_request';
}

/** Body larger than 1 MiB. */
export class PayloadTooLargeError extends AppError {
  readonly code = 'invalid_request';
}

/** A body that is not `application/json`. */
export class UnsupportedMediaTypeError extends AppError {
  readonly code = 'invalid_request';
}

/** The request conflicts with the resource's state (D20 disabled agent, data source in use). */
export class ConflictError extends AppError {
  readonly code = 'invalid_request';
}

/** Missing, malformed, unknown or revoked API key, or a key of the other environment. */
export class UnauthorizedError extends AppError {
  readonly code = 'unauthorized';
  /** The legacy flat body's `error` (the spec publishes 'Invalid API key'). */
  readonly title: string = 'Invalid API key';
}

/** A session cookie that is malformed, forged, expired or revoked, or whose user may no longer sign in. */
export class SessionUnauthorizedError extends UnauthorizedError {
  override readonly title = 'Invalid session';
}

/** A sign-in with an unknown email or a wrong password: one answer for both. */
export class InvalidCredentialsError extends UnauthorizedError {
  override readonly title = 'Invalid email or password';
}

/** A valid key without the scope the endpoint needs. */
export class ForbiddenError extends AppError {
  readonly code = 'forbidden';
  constructor(
    message: string,
    readonly requiredScope: string,
    readonly currentScopes: readonly string[],
  ) {
    super(message, { required_scope: requiredScope, current_scopes: [...currentScopes] });
  }
}

/** A signed-in user whose role is below the one the endpoint needs. */
export class RoleForbiddenError extends AppError {
  readonly code = 'forbidden';
  constructor(
    message: string,
    readonly requiredRole: string,
    readonly currentRole: string,
  ) {
    super(message, { required_role: requiredRole, current_role: currentRole });
  }
}

/**
 * A cookie-authenticated state change from another site, or without
 * the session's `X-CSRF-Token`; or an API key on an endpoint
 * only a signed-in user may call.
 */
export class RequestRefusedError extends AppError {
  readonly code = 'forbidden';
}

/**
 * An API key giving or taking the `admin` role, or changing a user
 * who has it (their own or a group's): that stays with a signed-in
 * administrator (D11's spirit: no key makes a person who manages keys).
 */
export class AdminRoleNeedsSessionError extends RequestRefusedError {
  constructor(message: string) {
    super(message, { reason: 'admin_role_needs_session' });
  }
}

/**
 * A request from an address outside the organization's IP allowlist.
 * The message names the address the service saw, so an administrator can
 * tell what to add (it is the caller's own address: nothing new is learnt).
 */
export class AddressNotAllowedError extends AppError {
  readonly code = 'forbidden';
  constructor(readonly sourceIp: string) {
    super(
      `Requests from ${sourceIp || 'an unknown address'} are not allowed by your organization's IP allowlist`,
      { reason: 'ip_not_allowed', source_ip: sourceIp },
    );
  }
}

/**
 * An SSO sign-in that did not prove who the user is (an invalid or
 * replayed assertion or ID token, a wrong state, an unknown user). The SSO
 * endpoints show it as the "Authentication failed" page; the message is for
 * the log, never shown.
 */
export class SsoAuthenticationFailedError extends UnauthorizedError {
  override readonly title = 'Authentication failed';
}

/** An SSO sign-in whose email is outside the organization's verified domains: "Unauthorized domain". */
export class UnauthorizedDomainError extends RequestRefusedError {}

/** A request naming another organization than the caller's. */
export class TenantMismatchError extends AppError {
  readonly code = 'forbidden';
}

/** Unknown route, or a well-formed id that does not exist in the caller's organization. */
export class NotFoundError extends AppError {
  readonly code = 'not_found';
}

/** A known path with a method it does not serve. */
export class MethodNotAllowedError extends AppError {
  readonly code = 'invalid_request';
  constructor(
    message: string,
    readonly allowedMethods: readonly string[],
  ) {
    super(message, { allowed_methods: [...allowedMethods] });
  }
}

export const RATE_LIMIT_REASONS = [
  'scope_rate',
  'plan_rate',
  'daily_requests',
  'daily_tokens',
  'concurrency',
  // Failed sign-ins, per account and per source address.
  'login_attempts',
] as const;
export type RateLimitReason = (typeof RATE_LIMIT_REASONS)[number];

/** A limit was exceeded; `retryAfterSeconds` goes to `Retry-After`. */
export class RateLimitExceededError extends AppError {
  readonly code = 'rate_limit_exceeded';
  constructor(
    readonly reason: RateLimitReason,
    readonly limit: number,
    readonly resetAt: Date,
    readonly retryAfterSeconds: number,
    /** The scope bucket as it stands, for the `X-RateLimit-*` headers of the refusal. */
    readonly bucket?: ScopeBucketReport,
  ) {
    super(`Rate limit exceeded (${reason.replace('_', ' ')}); retry after ${retryAfterSeconds} s`, {
      reason,
      limit,
      reset_at: resetAt.toISOString(),
      retry_after: retryAfterSeconds,
    });
  }
}

/** A dependency is down or overloaded; the caller should retry later. */
export class ServiceUnavailableError extends AppError {
  readonly code = 'service_unavailable';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    options?: ErrorOptions,
  ) {
    super(message, { retry_after: retryAfterSeconds }, options);
  }
}

/**
 * The provider behind an organization's own model key refused
 * the call for good — the key is wrong, revoked, out of quota, or may not
 * use the agent's model. 424 Failed Dependency: the request was fine, the
 * organization's provider account is what must be fixed. The message
 * carries the provider's reason, never the key.
 */
export class ModelProviderRefusedError extends AppError {
  readonly code = 'model_provider_refused';
}

/**
 * The provider behind an organization's own model key is rate
 * limiting that key: 429 with the provider's `Retry-After` (the rate limits'
 * `X-RateLimit-*` headers describe our buckets, not the provider's, and are
 * not sent for it).
 */
export class ModelProviderRateLimitedError extends AppError {
  readonly code = 'rate_limit_exceeded';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    details: Record<string, unknown> = {},
    options?: ErrorOptions,
  ) {
    super(
      message,
      { reason: 'model_provider', retry_after: retryAfterSeconds, ...details },
      options,
    );
  }
}
