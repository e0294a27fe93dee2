import { createHash, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { Environment } from './environments';

/**
 * D10 key format: `svcsk_<env>_` + 30 random base62 characters + a 6-character
 * base62 CRC32 of everything before it. The checksum lets us refuse a mistyped
 * or truncated key without a database lookup, and lets secret scanners find
 * leaked keys with few false positives (as GitHub's tokens do).
 */
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = /^svcsk_(live|test)_([0-9A-Za-z]{30})([0-9A-Za-z]{6})$/;

export const API_KEY_PREFIX = { live: 'svcsk_live_', test: 'svcsk_test_' } as const;

function toBase62(value: number, width: number): string {
  let out = '';
  let rest = value;
  while (rest > 0) {
    out = BASE62.charAt(rest % 62) + out;
    rest = Math.floor(rest / 62);
  }
  return out.padStart(width, '0');
}

/** The 6-character checksum of a key body (prefix + secret), as D10 defines it. */
export function apiKeyChecksum(body: string): string {
  return toBase62(crc32(body) >>> 0, CHECKSUM_LENGTH);
}

/** Generates a fresh key value for `environment`. Show it once; store only its hash. */
export function generateApiKey(environment: Environment): string {
  let secret = '';
  for (let i = 0; i < SECRET_LENGTH; i += 1) secret += BASE62.charAt(randomInt(62));
  const body = `${API_KEY_PREFIX[environment]}${secret}`;
  return body + apiKeyChecksum(body);
}

export type ParsedApiKey =
  | { readonly ok: true; readonly environment: Environment }
  | { readonly ok: false; readonly problem: 'malformed' | 'bad_checksum' };

/** Checks shape and checksum; a key that fails here never reaches the database. */
export function parseApiKey(value: string): ParsedApiKey {
  const match = KEY_PATTERN.exec(value);
  if (!match) return { ok: false, problem: 'malformed' };
  const [, environment, secret, checksum] = match;
  const body = `svcsk_${environment}_${secret}`;
  if (apiKeyChecksum(body) !== checksum) return { ok: false, problem: 'bad_checksum' };
  return { ok: true, environment: environment as Environment };
}

/** Keys are stored as a SHA-256 hash (D10): high-entropy secrets need no slow hash. */
export function hashApiKey(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** The last four characters, safe to show in listings. */
export function apiKeyLast4(value: string): string {
  return value.slice(-4);
}
