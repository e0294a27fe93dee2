import { ApiError } from '../../src/api/api-error';
import {
  passwordResetToken,
  requestMessage,
  resetMessage,
} from '../../src/screens/password-reset/password-reset-words';

const refusal = (
  status: number,
  details: Record<string, unknown>,
  retryAfter: number | null = null,
) => new ApiError(status, 'x', 'Refused', 'Refused', details, 'req_1', retryAfter);

describe('Password reset words (P270)', () => {
  it('reads a reset token from the fragment, and nothing else', () => {
    expect(passwordResetToken('#token=svcpwr_abc')).toBe('svcpwr_abc');
    expect(passwordResetToken('#token=svcinv_abc')).toBeNull();
    expect(passwordResetToken('')).toBeNull();
  });

  it('says when to ask again after too many requests', () => {
    expect(requestMessage(refusal(429, { reason: 'login_attempts' }, 240))).toBe(
      'Too many requests for this address. Try again in 4 min.',
    );
    expect(requestMessage(refusal(429, {}))).toMatch(/a few minutes/);
    expect(requestMessage(refusal(400, {}))).toBeNull();
  });

  it('explains a link that no longer works, and SSO', () => {
    const used = refusal(400, { fields: [{ path: 'token', message: 'invalid, used or expired' }] });

    expect(resetMessage(used)).toMatch(/^This link no longer works/);
    expect(resetMessage(refusal(403, { reason: 'sso_required' }))).toMatch(/signs in with SSO/);
    expect(
      resetMessage(refusal(400, { fields: [{ path: 'new_password', message: 'x' }] })),
    ).toBeNull();
    expect(resetMessage(new Error('other'))).toBeNull();
  });
});
