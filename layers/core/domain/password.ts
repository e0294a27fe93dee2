import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** What a password must be; long enough to resist guessing, bounded so hashing stays cheap. */
export const PASSWORD_POLICY = { minLength: 12, maxLength: 256 } as const;

/**
 * scrypt's cost parameters: N = 2^15, r = 8, p = 1 uses 32 MiB and
 * roughly 50–100 ms of one core per hash. Each hash records the parameters
 * it was made with, so raising them later leaves existing hashes readable
 * (`needsRehash` tells which to replace at the next sign-in).
 */
export const SCRYPT_PARAMETERS = { logN: 15, r: 8, p: 1, keyLength: 32, saltLength: 16 } as const;

interface ScryptParameters {
  readonly logN: number;
  readonly r: number;
  readonly p: number;
}

/** `scrypt$ln=15,r=8,p=1$<salt, base64url>$<hash, base64url>`, after the PHC string format. */
const HASH_PATTERN =
  /^scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9_-]{16,})\$([A-Za-z0-9_-]{32,})$/;

function derive(
  password: string,
  salt: Buffer,
  parameters: ScryptParameters,
  keyLength: number,
): Promise<Buffer> {
  const N = 2 ** parameters.logN;
  return new Promise((resolve, reject) => {
    scrypt(
      password.normalize('NFC'),
      salt,
      keyLength,
      // Node refuses more than 32 MiB unless told: 128·N·r bytes, plus headroom.
      { N, r: parameters.r, p: parameters.p, maxmem: 256 * N * parameters.r },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });
}

/** Hashes a password with a fresh salt; the result carries its parameters. */
export async function hashPassword(
  password: string,
  parameters: ScryptParameters = SCRYPT_PARAMETERS,
): Promise<string> {
  const salt = randomBytes(SCRYPT_PARAMETERS.saltLength);
  const key = await derive(password, salt, parameters, SCRYPT_PARAMETERS.keyLength);
  return `scrypt$ln=${parameters.logN},r=${parameters.r},p=${parameters.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

function parseHash(stored: string) {
  const match = HASH_PATTERN.exec(stored);
  if (!match) return null;
  const [, logN, r, p, salt, key] = match;
  const parameters = { logN: Number(logN), r: Number(r), p: Number(p) };
  // Bounds keep a corrupted or planted hash from asking for gigabytes.
  if (parameters.logN < 10 || parameters.logN > 20 || parameters.r < 1 || parameters.r > 32)
    return null;
  if (parameters.p < 1 || parameters.p > 16) return null;
  return {
    parameters,
    salt: Buffer.from(salt ?? '', 'base64url'),
    key: Buffer.from(key ?? '', 'base64url'),
  };
}

/**
 * True when `password` matches `stored`, compared in constant time. A hash
 * that cannot be read never matches.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (!parsed) return false;
  const candidate = await derive(password, parsed.salt, parsed.parameters, parsed.key.length);
  return candidate.length === parsed.key.length && timingSafeEqual(candidate, parsed.key);
}

/** True when `stored` was made with weaker parameters than today's. */
export function needsRehash(stored: string): boolean {
  const parsed = parseHash(stored);
  if (!parsed) return true;
  const { logN, r, p } = parsed.parameters;
  return logN < SCRYPT_PARAMETERS.logN || r < SCRYPT_PARAMETERS.r || p < SCRYPT_PARAMETERS.p;
}

let dummy: Promise<string> | undefined;

/**
 * A hash of nothing anyone knows, to verify against when there is no
 * account (or no password yet), so an unknown email costs what a wrong
 * password costs: the answer and its timing are the same.
 */
export function dummyPasswordHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(32).toString('base64url'));
  return dummy;
}
