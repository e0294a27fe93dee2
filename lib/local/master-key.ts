import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The one-machine master key that seals secrets (D33's raw AES keyring), kept
 * beside the data it protects, readable by its owner only. Created on first
 * start; losing it makes the sealed secrets unreadable, like losing a KMS key.
 */
export function loadOrCreateMasterKey(path: string | null): Buffer {
  if (path === null) return randomBytes(32);
  if (existsSync(path)) {
    const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${path} does not hold a 32-byte base64 master key`);
    return key;
  }
  mkdirSync(dirname(path), { recursive: true });
  const key = randomBytes(32);
  writeFileSync(path, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}
