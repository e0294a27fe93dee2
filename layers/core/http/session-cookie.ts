import type { APIGatewayProxyEvent } from 'aws-lambda';
import { SESSION_COOKIE_NAME } from '../domain/session';

/**
 * D12: `svc_session`, `HttpOnly; Secure; SameSite=Lax; Path=/`, with an
 * expiry equal to the token's. Secure stays on the local runtime too:
 * browsers treat http://localhost and 127.0.0.1 as secure for cookies, and
 * curl sends Secure cookies there (README: sign in with a cookie jar).
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
 * The session cookie's value, if the request carries one. API Gateway passes
 * every `Cookie` header (HTTP/2 may split them); the first `svc_session`
 * wins, as browsers send the most specific path first.
 */
export function sessionCookieOf(event: APIGatewayProxyEvent): string | undefined {
  const values: string[] = [];
  for (const [name, list] of Object.entries(event.multiValueHeaders ?? {})) {
    if (name.toLowerCase() === 'cookie' && list) values.push(...list);
  }
  if (values.length === 0) {
    for (const [name, value] of Object.entries(event.headers ?? {})) {
      if (name.toLowerCase() === 'cookie' && value !== undefined) values.push(value);
    }
  }
  for (const header of values) {
    for (const part of header.split(';')) {
      const separator = part.indexOf('=');
      if (separator < 0) continue;
      if (part.slice(0, separator).trim() === SESSION_COOKIE_NAME) {
        const value = part.slice(separator + 1).trim();
        return value === '' ? undefined : value;
      }
    }
  }
  return undefined;
}
