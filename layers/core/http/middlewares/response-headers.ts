import {
  MethodNotAllowedError,
  ModelProviderRateLimitedError,
  RateLimitExceededError,
  ServiceUnavailableError,
} from '../../domain/errors';
import type { ScopeBucketReport } from '../../domain/gcra';
import type { HttpMiddleware, HttpRequest } from '../request-state';

/**
 * Spec, Transport: HSTS with max-age 31536000; the rest is standard API
 * hardening. A constant set rather than `@middy/http-security-headers`
 * (issue 8), whose defaults are a browser page's (and would need most of
 * them turned off for a JSON API): six fixed headers do not earn a dependency.
 */
export const SECURITY_HEADERS = {
  'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
} as const;

/** The scope bucket, in the classic `X-RateLimit-*` and the IETF draft's headers. */
function rateLimitHeaders(report: ScopeBucketReport): Record<string, string> {
  const { policy, state } = report;
  const resetSeconds = Math.ceil(state.fullAt / 1000);
  const used = Math.max(0, policy.perMinute - state.remaining);
  const name = report.scope.toLowerCase();
  return {
    'X-RateLimit-Limit': String(policy.perMinute),
    'X-RateLimit-Remaining': String(state.remaining),
    'X-RateLimit-Reset': String(resetSeconds),
    'X-RateLimit-Used': String(used),
    'RateLimit-Policy': `"${name}";q=${policy.perMinute};w=60;burst=${policy.burst}`,
    RateLimit: `"${name}";r=${state.remaining};t=${Math.max(0, Math.ceil((state.fullAt - report.at) / 1000))}`,
  };
}

/**
 * The successor path with this request's ids filled in; none when one is
 * unknown (a legacy path that takes the id in its body, with no valid id):
 * no link rather than a broken one such as `/api/v1/interactions//feedback`.
 */
function successorLink(request: HttpRequest): string | undefined {
  const successor = request.context.svc.route?.successor;
  if (!successor) return undefined;
  let complete = true;
  const path = successor.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = request.context.svc.params[name];
    if (value === undefined || value === '') complete = false;
    return encodeURIComponent(value ?? '');
  });
  return complete ? `<${path}>; rel="successor-version"` : undefined;
}

function hasSetCookie(response: { headers?: object; multiValueHeaders?: object }): boolean {
  const names = [
    ...Object.keys(response.headers ?? {}),
    ...Object.keys(response.multiValueHeaders ?? {}),
  ];
  return names.some((name) => name.toLowerCase() === 'set-cookie');
}

/**
 * Last to touch every response, success or error: request id, security
 * headers, rate-limit headers, `Retry-After`, `Allow`, and the legacy
 * deprecation headers.
 */
export function responseHeaders(): HttpMiddleware {
  const addHeaders = (request: HttpRequest): void => {
    const response = request.response;
    if (!response) return;
    const state = request.context.svc;
    const headers: Record<string, string> = {
      ...SECURITY_HEADERS,
      'X-Request-Id': state.requestId,
    };
    const report =
      state.rateLimit ??
      (request.error instanceof RateLimitExceededError ? request.error.bucket : undefined);
    if (report) Object.assign(headers, rateLimitHeaders(report));
    if (
      request.error instanceof RateLimitExceededError ||
      request.error instanceof ModelProviderRateLimitedError ||
      request.error instanceof ServiceUnavailableError
    ) {
      headers['Retry-After'] = String(request.error.retryAfterSeconds);
    }
    if (request.error instanceof MethodNotAllowedError) {
      headers.Allow = request.error.allowedMethods.join(', ');
    }
    // The continued session (or a clearing), unless the operation set a cookie itself.
    if (state.setCookie && !hasSetCookie(response)) {
      response.multiValueHeaders = {
        ...response.multiValueHeaders,
        'Set-Cookie': [state.setCookie],
      };
    }
    if (state.route?.api === 'legacy') {
      headers.Deprecation = 'true';
      const link = successorLink(request);
      if (link) headers.Link = link;
    }
    response.headers = { ...headers, ...response.headers };
  };
  return { after: addHeaders, onError: addHeaders };
}
