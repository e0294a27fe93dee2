import { randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * D10's key format, written out again independently of the service's code, so
 * the tests check the decision rather than the implementation: `svcsk_<env>_`,
 * 30 base62 characters, then the CRC32 (zlib) of all that in base62 `0-9A-Za-z`,
 * left-padded with `0` to 6 characters.
 */
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(value: number, width: number): string {
  let out = '';
  for (let rest = value; rest > 0; rest = Math.floor(rest / 62)) out = BASE62[rest % 62] + out;
  return out.padStart(width, '0');
}

/** A key with a valid shape and checksum that no organization holds. */
export function wellFormedKey(environment: 'live' | 'test'): string {
  let secret = '';
  for (let i = 0; i < 30; i += 1) secret += BASE62[randomInt(62)];
  const body = `svcsk_${environment}_${secret}`;
  return body + base62(crc32(body) >>> 0, 6);
}

/** The same key with its last checksum character changed: a typo the checksum must catch. */
export function withBadChecksum(key: string): string {
  const last = key.slice(-1);
  return key.slice(0, -1) + (last === 'a' ? 'b' : 'a');
}
