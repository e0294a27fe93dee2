import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * P215 (as P90 for SSO): a sign-in that leaves for a provider is bound to the
 * browser that started it. The browser keeps `secret` in an HttpOnly cookie;
 * the pending flow keeps only `hash`, so a stored flow never holds what the
 * cookie holds.
 */
export interface BrowserBinding {
  readonly secret: string;
  readonly hash: string;
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

/** 256 random bits for the cookie, and their SHA-256 for the flow. */
export function newBrowserBinding(): BrowserBinding {
  const secret = randomBytes(32).toString('base64url');
  return { secret, hash: sha256(secret) };
}

/** Whether the cookie the callback brought is the one the flow was started with (constant time). */
export function isSameBrowser(secret: string | undefined, hash: string | undefined): boolean {
  if (secret === undefined || hash === undefined) return false;
  const a = Buffer.from(sha256(secret));
  const b = Buffer.from(hash);
  return a.length === b.length && timingSafeEqual(a, b);
}
