import type { APIGatewayProxyEvent } from 'aws-lambda';
import { SESSION_COOKIE_NAME } from '../domain/session';

/**
 * `svc_session`, `HttpOnly; Secure; SameSite=Lax; Path=/`, with an
 * expiry equal to the token's. Secure stays on the local runtime too:
 * browsers treat http://localhost and 127.0.0.1 as secure for cookies, and
 * curl sends Secure cookies there (docs/api-tour.md: sign in with a cookie jar).
 */
export function sessionCookie(token: string, expiresAt: number, now: number): string {
  const maxAge = Math.max(0, expiresAt - now);
  return [
    `${SESSION_COOKIE_NAME}=${token}`,
    `Max-Age=${maxAge}`,
    `Expires=${new Date(expiresAt * 1000).toUTCString()}`,
    'Path=/',
    'HttpOnly',
    'Secure',
    'SameSite=Lax',
  ].join('; ');
}

/** Clears the session cookie (logout, or a cookie that no longer works). */
export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE_NAME}=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/; HttpOnly; Secure; SameSite=Lax`;
}

/**
 * A cookie's value, if the request carries one. API Gateway passes every
 * `Cookie` header (HTTP/2 may split them); the first of that name wins, as
 * browsers send the most specific path first.
 */
export function cookieOf(event: APIGatewayProxyEvent, name: string): string | undefined {
  const values: string[] = [];
  for (const [header, list] of Object.entries(event.multiValueHeaders ?? {})) {
    if (header.toLowerCase() === 'cookie' && list) values.push(...list);
  }
  if (values.length === 0) {
    for (const [header, value] of Object.entries(event.headers ?? {})) {
      if (header.toLowerCase() === 'cookie' && value !== undefined) values.push(value);
    }
  }
  for (const header of values) {
    for (const part of header.split(';')) {
      const separator = part.indexOf('=');
      if (separator < 0) continue;
      if (part.slice(0, separator).trim() === name) {
        const value = part.slice(separator + 1).trim();
        return value === '' ? undefined : value;
      }
    }
  }
  return undefined;
}

/** The session cookie's value, if the request carries one. */
export function sessionCookieOf(event: APIGatewayProxyEvent): string | undefined {
  return cookieOf(event, SESSION_COOKIE_NAME);
}
