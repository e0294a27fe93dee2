import {
  continuedClaims,
  SESSION_POLICY,
  sessionExpiry,
} from '../../../layers/core/domain/session';
import { normalizeEmail, ROLES, roleAtLeast } from '../../../layers/core/domain/user';

describe('Roles (D13)', () => {
  it('orders the roles, each granting what the ones before it grant', () => {
    expect(ROLES).toEqual(['readonly', 'train', 'configure', 'admin']);
    expect(roleAtLeast('admin', 'readonly')).toBe(true);
    expect(roleAtLeast('configure', 'train')).toBe(true);
    expect(roleAtLeast('train', 'configure')).toBe(false);
    expect(roleAtLeast('readonly', 'train')).toBe(false);
  });
});

describe('Emails (P60)', () => {
  it('compares emails trimmed, in one Unicode form and lower case', () => {
    expect(normalizeEmail('  Ada@Example.COM ')).toBe('ada@example.com');
    expect(normalizeEmail('Jose\u0301@example.com')).toBe(normalizeEmail('José@example.com'));
  });
});

describe('Session expiry (D12)', () => {
  const day = 24 * 3600;

  it('slides 7 days from each request, capped at 30 days from sign-in', () => {
    expect(sessionExpiry(0, 0)).toBe(7 * day);
    expect(sessionExpiry(0, 20 * day)).toBe(27 * day);
    expect(sessionExpiry(0, 25 * day)).toBe(SESSION_POLICY.absoluteSeconds);
  });

  it('continues a session with the same ids and sign-in time', () => {
    const claims = {
      sub: 'usr_x',
      org: 'org_x',
      jti: 'sess_x',
      iat: 0,
      exp: 7 * day,
      auth_time: 0,
    };

    expect(continuedClaims(claims, 3 * day)).toEqual({ ...claims, iat: 3 * day, exp: 10 * day });
  });
});
