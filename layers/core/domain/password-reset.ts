import { createHash, randomBytes } from 'node:crypto';

/** How long a password reset link works (issue 22 item 9: one hour). */
export const PASSWORD_RESET_TTL_MS = 3600 * 1000;

const PASSWORD_RESET_PATTERN = /^svcpwr_[A-Za-z0-9_-]{43}$/;

/**
 * A single-use reset token, `svcpwr_` and 256 random bits (base64url),
 * as invitations. Only its hash is stored; the token is in the mail alone.
 */
export function generatePasswordResetToken(): string {
  return `svcpwr_${randomBytes(32).toString('base64url')}`;
}

export function isPasswordResetToken(value: string): boolean {
  return PASSWORD_RESET_PATTERN.test(value);
}

/** High-entropy tokens need no slow hash (as API keys). */
export function hashPasswordResetToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * A reset is bound to the password it replaces. Any change of the
 * password (a reset used, a change in Settings, the operator's CLI) gives a
 * new salted hash and so ends every link issued before it. A digest of the
 * stored hash, so the reset item holds nothing a password can be tested on.
 */
export function passwordFingerprint(passwordHash: string): string {
  return createHash('sha256').update(passwordHash, 'utf8').digest('hex').slice(0, 32);
}
