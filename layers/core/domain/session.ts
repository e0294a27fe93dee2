/**
 * D12's session rules: a sliding expiry of 7 days from each authenticated
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

/** The claims of a session JWT (D12), times in epoch seconds. */
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
