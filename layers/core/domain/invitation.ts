import { createHash, randomBytes } from 'node:crypto';

/** How long an invitation may be accepted. */
export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

const INVITATION_PATTERN = /^svcinv_[A-Za-z0-9_-]{43}$/;

/**
 * A single-use invitation token: `svcinv_` and 256 random bits (base64url).
 * Only its hash is stored; the token itself is shown once.
 */
export function generateInvitationToken(): string {
  return `svcinv_${randomBytes(32).toString('base64url')}`;
}

export function isInvitationToken(value: string): boolean {
  return INVITATION_PATTERN.test(value);
}

/** High-entropy tokens need no slow hash (as API keys). */
export function hashInvitationToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
