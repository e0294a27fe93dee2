import type { PasswordSessionCutoff, SessionClaims } from '../domain/session';

/**
 * Session JWTs: HS256 with the deployment's signing key, nothing else
 * accepted. `verify` answers `null` for anything that is not a valid,
 * unexpired token of ours (bad signature, other algorithm, other key,
 * malformed, expired, claims missing or out of shape).
 */
export interface SessionTokens {
  issue(claims: SessionClaims): Promise<string>;
  verify(token: string, now: Date): Promise<SessionClaims | null>;
  /** The CSRF token bound to a session id (the same for every token of that session). */
  csrfToken(sessionId: string): Promise<string>;
}

/** Sessions ended before their tokens expire (logout), remembered until they would have. */
export interface SessionRevocations {
  /** Revokes `sessionId` until `until` (epoch seconds): no token of it works any more. */
  revoke(sessionId: string, until: number): Promise<void>;
  isRevoked(sessionId: string, now: number): Promise<boolean>;
}

/**
 * When `enforce_sso` ends password sessions. An organization that turns
 * it on ends its own users' password sessions; each domain it has verified
 * ends those of every user whose email is in it, in whatever organization.
 * A cutoff only ever moves forward and is never removed, so a
 * session it ended stays ended when enforcement is turned off.
 */
export interface PasswordSessionCutoffs {
  /** Password sessions of `orgId`'s users signed in before the cutoff end (but the kept one). */
  endForOrganization(orgId: string, cutoff: PasswordSessionCutoff): Promise<void>;
  /** Password sessions of users whose email is in `domain` signed in before the cutoff end. */
  endForDomain(domain: string, cutoff: PasswordSessionCutoff): Promise<void>;
  /**
   * The cutoffs a password session of a user of `orgId` whose email is in
   * `domain` is subject to (none, one or two). May be up to the adapter's
   * cache time old (30 s, as the organization reads).
   */
  validFrom(orgId: string, domain: string | null): Promise<PasswordSessionCutoff[]>;
}

/** What a new user needs to set a password: mailed to them and shown to whoever created them. */
export interface Invitation {
  readonly orgId: string;
  readonly userId: string;
  readonly email: string;
  readonly token: string;
  /** ISO 8601. */
  readonly expiresAt: string;
}
