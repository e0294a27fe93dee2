import { decodeTime } from 'ulid';
import { ID_PREFIXES } from './ids';

/**
 * The web session's session rules: a sliding expiry of 7 days from each authenticated
 * request, never past 30 days from sign-in; the web application refreshes
 * when less than an hour remains.
 */
export const SESSION_POLICY = {
  slidingSeconds: 7 * 24 * 3600,
  absoluteSeconds: 30 * 24 * 3600,
  refreshWindowSeconds: 3600,
} as const;

/** Spec, Session: the cookie's name. */
export const SESSION_COOKIE_NAME = 'svc_session';

/** P222: how a session was signed in: with a password (or an invitation's), or through SSO. */
export const SIGN_IN_METHODS = ['password', 'sso'] as const;
export type SignInMethod = (typeof SIGN_IN_METHODS)[number];

/** The claims of a session JWT, times in epoch seconds. */
export interface SessionClaims {
  /** The user's id. */
  readonly sub: string;
  /** The user's organization. */
  readonly org: string;
  /** The session's id (`sess_…`): kept across re-issues, new at each sign-in, revoked at logout. */
  readonly jti: string;
  readonly iat: number;
  readonly exp: number;
  /** When the user signed in: the 30-day cap counts from here. */
  readonly auth_time: number;
  /**
   * P222: how the session was signed in. Absent on tokens issued before the
   * claim existed, which were all password sign-ins: read as `password`.
   */
  readonly auth_method?: SignInMethod;
}

/** The expiry a token issued at `now` gets: 7 days on, capped at 30 days from sign-in. */
export function sessionExpiry(authTime: number, now: number): number {
  return Math.min(now + SESSION_POLICY.slidingSeconds, authTime + SESSION_POLICY.absoluteSeconds);
}

/**
 * The claims of the token that continues a session at `now`: same user,
 * organization, session id and sign-in time, expiry moved on.
 */
export function continuedClaims(claims: SessionClaims, now: number): SessionClaims {
  return { ...claims, iat: now, exp: sessionExpiry(claims.auth_time, now) };
}

/** P222: a token without `auth_method` predates the claim, when only passwords signed in. */
export function signInMethodOf(claims: SessionClaims): SignInMethod {
  return claims.auth_method ?? 'password';
}

/**
 * P222: when the session was signed in, in epoch milliseconds, read from its
 * id (`sess_<ULID>`: a ULID starts with its creation time in ms). `auth_time`
 * has whole seconds only, which could not tell a session begun in the same
 * second as a cutoff from one begun just before it. An id that cannot be
 * read (never issued by us: tokens are signed) counts as the oldest session.
 */
export function signedInAtMs(sessionId: string): number {
  try {
    return decodeTime(sessionId.slice(ID_PREFIXES.session.length + 1));
  } catch {
    return 0;
  }
}

/**
 * A moment (epoch ms) before which password sessions no longer count,
 * set by `enforce_sso`, except the session of the administrator who set it
 * (so a misconfigured identity provider does not lock them out at once).
 */
export interface PasswordSessionCutoff {
  readonly at: number;
  readonly keptSessionId: string | null;
}

/**
 * P222: what ends sessions before their time: the user's own cutoff in
 * epoch ms (set by deactivation, a password change or reset, an
 * administrator's "sign out everywhere") and, for password sessions only,
 * those `enforce_sso` set for the user's organization and email domain.
 */
export interface SessionCutoffs {
  readonly user: number | null;
  readonly passwordSessions: readonly PasswordSessionCutoff[];
}

/**
 * P222: whether a session has ended by a cutoff: signed in strictly before
 * the user's cutoff, or a password session signed in strictly before a
 * password-session cutoff that does not keep it. A session signed in at the
 * cutoff's millisecond or later counts (a password change re-issues the
 * caller's session at the moment of the change). Re-issuing a session
 * keeps its id, so a sliding refresh never moves it past a cutoff.
 */
export function endedByCutoff(
  session: {
    readonly id: string;
    readonly signedInAtMs: number;
    readonly method: SignInMethod;
  },
  cutoffs: SessionCutoffs,
): boolean {
  if (cutoffs.user !== null && session.signedInAtMs < cutoffs.user) return true;
  return (
    session.method === 'password' &&
    cutoffs.passwordSessions.some(
      (cutoff) => session.signedInAtMs < cutoff.at && cutoff.keptSessionId !== session.id,
    )
  );
}
