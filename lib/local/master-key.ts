import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * A 256-bit key kept in a file beside the data it protects, readable by its
 * owner only (mode 0600), created on first start; `null` gives a fresh key
 * held in memory only.
 */
function loadOrCreateKeyFile(path: string | null, what: string): Buffer {
  if (path === null) return randomBytes(32);
  if (existsSync(path)) {
    const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${path} does not hold a 32-byte base64 ${what}`);
    return key;
  }
  mkdirSync(dirname(path), { recursive: true });
  const key = randomBytes(32);
  writeFileSync(path, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}

/**
 * The one-machine master key that seals secrets (D33's raw AES keyring).
 * Losing it makes the sealed secrets unreadable, like losing a KMS key.
 */
export function loadOrCreateMasterKey(path: string | null): Buffer {
  return loadOrCreateKeyFile(path, 'master key');
}

/**
 * The one-machine key that signs session JWTs (256 random bits; in the
 * cloud, the stack's session secret). Losing or replacing it signs every web
 * user out, nothing more.
 */
export function loadOrCreateSessionKey(path: string | null): Buffer {
  return loadOrCreateKeyFile(path, 'session signing key');
}
