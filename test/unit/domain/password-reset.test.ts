import {
  generatePasswordResetToken,
  hashPasswordResetToken,
  isPasswordResetToken,
  passwordFingerprint,
} from '../../../layers/core/domain/password-reset';

describe('Password reset tokens (P266)', () => {
  it('makes 256-bit tokens of their own kind, never an invitation', () => {
    const token = generatePasswordResetToken();

    expect(token).toMatch(/^svcpwr_[A-Za-z0-9_-]{43}$/);
    expect(isPasswordResetToken(token)).toBe(true);
    expect(isPasswordResetToken(`svcinv_${token.slice(7)}`)).toBe(false);
    expect(generatePasswordResetToken()).not.toBe(token);
  });

  it('stores a hash, not the token', () => {
    const token = generatePasswordResetToken();

    expect(hashPasswordResetToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashPasswordResetToken(token)).not.toContain(token.slice(7));
  });

  it('fingerprints the password hash it replaces, so a new password ends older links', () => {
    expect(passwordFingerprint('scrypt$a')).toBe(passwordFingerprint('scrypt$a'));
    expect(passwordFingerprint('scrypt$a')).not.toBe(passwordFingerprint('scrypt$b'));
    expect(passwordFingerprint('scrypt$a')).toMatch(/^[0-9a-f]{32}$/);
  });
});
