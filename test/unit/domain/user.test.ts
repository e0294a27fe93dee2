import {
  continuedClaims,
  SESSION_POLICY,
  sessionExpiry,
} from '../../../layers/core/domain/session';
import {
  displayEmail,
  lookAlikeFolding,
  normalizeEmail,
  ROLES,
  roleAtLeast,
} from '../../../layers/core/domain/user';

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

  it('compares what is not an address folded and lower-cased as it is (sign-in answers it as unknown)', () => {
    expect(displayEmail('  No Address Here ')).toBeNull();
    expect(normalizeEmail('  No\uff21ddress ')).toBe('noaddress');
    expect(normalizeEmail('@Example.com')).toBe('@example.com');
  });

  it('folds look-alikes (NFKC) and puts the domain in its ASCII form (P213)', () => {
    expect(normalizeEmail('readonly@\uff41.example')).toBe('readonly@a.example');
    expect(normalizeEmail('\uff32eadonly@A.Example')).toBe('readonly@a.example');
    expect(normalizeEmail('anna@m\u00fcnchen.example')).toBe('anna@xn--mnchen-3ya.example');
    expect(displayEmail(' readonly@\uff41.example ')).toBe('readonly@a.example');
  });

  it('tells a look-alike address by what it folds to, and a plain one (accents typed apart included) by null', () => {
    expect(lookAlikeFolding('user@\uff41.example')).toBe('user@a.example');
    expect(lookAlikeFolding(' \ufb01le@example.com ')).toBe('file@example.com');
    expect(lookAlikeFolding('user@a.example')).toBeNull();
    expect(lookAlikeFolding('User@A.Example')).toBeNull();
    expect(lookAlikeFolding('Jose\u0301@example.com')).toBeNull();
  });

  it.each([
    ['a NUL', 'ada\u0000@example.com'],
    ['a control character', 'ada@exam\u0007ple.com'],
    ['a zero-width joiner', 'a\u200dda@example.com'],
    ['a bidirectional override', 'ada@\u202eexample.com'],
    ['a space inside', 'a da@example.com'],
    ['no local part', '@example.com'],
    ['no domain', 'ada@'],
    ['a single-label domain', 'ada@localhost'],
    ['no @ at all', 'ada.example.com'],
  ])('refuses an address with %s (P213)', (_, email) => {
    expect(displayEmail(email)).toBeNull();
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
