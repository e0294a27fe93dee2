import { newId } from '../../../layers/core/domain/ids';
import {
  endedByCutoff,
  SESSION_COOKIE_NAME,
  type SessionCutoffs,
  signedInAtMs,
  signInMethodOf,
} from '../../../layers/core/domain/session';

const T = 1_750_000_000_123;
const none: SessionCutoffs = { user: null, passwordSessions: [] };
const session = (signedInAt: number, method: 'password' | 'sso' = 'password') => {
  const id = newId('session', signedInAt);
  return { id, signedInAtMs: signedInAtMs(id), method } as const;
};

describe('Domain: the session cookie (spec, Session)', () => {
  it('is named svc_session, as the spec names it for browsers and clients', () => {
    expect(SESSION_COOKIE_NAME).toBe('svc_session');
  });
});

describe('Domain: session cutoffs (P222, P223)', () => {
  it('reads the sign-in time from the session id to the millisecond', () => {
    expect(signedInAtMs(newId('session', T))).toBe(T);
    expect(signedInAtMs(newId('session', T + 1))).toBe(T + 1);
  });

  it('counts an id it cannot read as the oldest session', () => {
    expect(signedInAtMs('sess_zzzzzzzzzzzzzzzzzzzzzzzzzz')).toBe(0);
    expect(signedInAtMs('sess_')).toBe(0);
  });

  it('reads a token without auth_method as a password session (tokens from before the claim)', () => {
    const claims = { sub: 'u', org: 'o', jti: 'j', iat: 0, exp: 1, auth_time: 0 };
    expect(signInMethodOf(claims)).toBe('password');
    expect(signInMethodOf({ ...claims, auth_method: 'sso' })).toBe('sso');
  });

  it('ends no session without cutoffs', () => {
    expect(endedByCutoff(session(T), none)).toBe(false);
  });

  it("ends every session signed in before the user's cutoff, password or SSO", () => {
    const cutoffs = { ...none, user: T };
    expect(endedByCutoff(session(T - 1), cutoffs)).toBe(true);
    expect(endedByCutoff(session(T - 1, 'sso'), cutoffs)).toBe(true);
  });

  it("keeps a session signed in at the cutoff's millisecond or later (a password change's own)", () => {
    const cutoffs = { ...none, user: T };
    expect(endedByCutoff(session(T), cutoffs)).toBe(false);
    expect(endedByCutoff(session(T + 1), cutoffs)).toBe(false);
  });

  it('ends only password sessions by an enforce_sso cutoff', () => {
    const cutoffs = { ...none, passwordSessions: [{ at: T, keptSessionId: null }] };
    expect(endedByCutoff(session(T - 1), cutoffs)).toBe(true);
    expect(endedByCutoff(session(T - 1, 'sso'), cutoffs)).toBe(false);
    expect(endedByCutoff(session(T), cutoffs)).toBe(false);
  });

  it('keeps the session of the administrator who set an enforce_sso cutoff, and only that one', () => {
    const admin = session(T - 5);
    const other = session(T - 5);
    const cutoffs = { ...none, passwordSessions: [{ at: T, keptSessionId: admin.id }] };
    expect(endedByCutoff(admin, cutoffs)).toBe(false);
    expect(endedByCutoff(other, cutoffs)).toBe(true);
  });

  it('ends a session any of its cutoffs ends (its organization, its email domain)', () => {
    const admin = session(T - 5);
    const cutoffs = {
      ...none,
      passwordSessions: [
        { at: T, keptSessionId: admin.id },
        { at: T + 10, keptSessionId: null },
      ],
    };
    expect(endedByCutoff(admin, cutoffs)).toBe(true);
  });

  it("does not let the kept session outlive the user's own cutoff", () => {
    const admin = session(T - 5);
    const cutoffs = { user: T - 1, passwordSessions: [{ at: T, keptSessionId: admin.id }] };
    expect(endedByCutoff(admin, cutoffs)).toBe(true);
  });
});
