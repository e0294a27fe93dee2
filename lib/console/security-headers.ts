/**
 * The web console's response headers, one list for both ways it is served:
 * the local runtime sets them on every console response, and the CloudFront
 * response headers policy carries the same values in the cloud (issue 21).
 * The CSP allows no inline script or style: every script and stylesheet is a
 * file of the console's own origin, and the API is called on that origin too.
 * `form-action 'self'`: SSO and connector sign-ins leave the console by
 * navigation (`location.assign`), never by a form posted to another origin.
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** One year, subdomains included: the console is only ever served over HTTPS in the cloud. */
export const CONSOLE_HSTS = 'max-age=31536000; includeSubDomains';

export const CONSOLE_SECURITY_HEADERS = {
  'Content-Security-Policy': CONSOLE_CONTENT_SECURITY_POLICY,
  'Strict-Transport-Security': CONSOLE_HSTS,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
} as const;
