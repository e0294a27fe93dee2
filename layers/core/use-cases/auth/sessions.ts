import { createHash } from 'node:crypto';
import {
  InvalidCredentialsError,
  InvalidRequestError,
  RateLimitExceededError,
  SessionUnauthorizedError,
} from '../../domain/errors';
import type { BucketPolicy } from '../../domain/gcra';
import { effectiveAccess } from '../../domain/group';
import { newId } from '../../domain/ids';
import { LOGIN_THROTTLE } from '../../domain/login-throttle';
import {
  dummyPasswordHash,
  hashPassword,
  needsRehash,
  verifyPassword,
} from '../../domain/password';
import type { SessionPrincipal } from '../../domain/principal';
import {
  continuedClaims,
  endedByCutoff,
  type SessionClaims,
  type SignInMethod,
  sessionExpiry,
  signedInAtMs,
  signInMethodOf,
} from '../../domain/session';
import { emailDomain } from '../../domain/sso';
import { normalizeEmail, type User } from '../../domain/user';
import type { Clock } from '../../ports/clock.port';
import type { GroupGrants } from '../../ports/group-repository.port';
import type { RateLimiter } from '../../ports/rate-limiter.port';
import type {
  PasswordSessionCutoffs,
  SessionRevocations,
  SessionTokens,
} from '../../ports/session.port';
import type { UserRepository, UserWithCredentials } from '../../ports/user-repository.port';
import {
  enforcingOrganization,
  type SsoEnforcementReader,
  ssoRequired,
} from '../sso/sso-enforcement';

/**
 * What checking a session needs: tokens, revocations, the user as stored now
 * and their groups, and the cutoffs `enforce_sso` set for password sessions.
 */
export interface SessionDependencies {
  readonly users: Pick<UserRepository, 'get' | 'getWithGroups'>;
  readonly groupGrants: GroupGrants;
  readonly sessionTokens: SessionTokens;
  readonly sessionRevocations: SessionRevocations;
  readonly passwordSessionCutoffs: Pick<PasswordSessionCutoffs, 'validFrom'>;
  readonly clock: Clock;
}

/** What signing in needs besides: users by email, and the throttle's buckets. */
export interface SignInDependencies extends SessionDependencies {
  readonly users: Pick<
    UserRepository,
    'get' | 'getWithGroups' | 'findByEmail' | 'recordLogin' | 'update'
  >;
  readonly rateLimiter: RateLimiter;
  /** D14 `enforce_sso`: whether the user's organization (or its email's domain) allows passwords. */
  readonly ssoRepository: SsoEnforcementReader;
}

/** A session token just issued, with what the web application is told about it. */
export interface IssuedSession {
  readonly token: string;
  readonly claims: SessionClaims;
  /** D12: the value every cookie-authenticated state change must send as `X-CSRF-Token`. */
  readonly csrfToken: string;
}

/** A verified session: who it is, and the claims it carried. */
export interface VerifiedSession {
  readonly principal: SessionPrincipal;
  readonly user: User;
  readonly claims: SessionClaims;
}

const seconds = (at: Date) => Math.floor(at.getTime() / 1000);

async function issue(deps: SessionDependencies, claims: SessionClaims): Promise<IssuedSession> {
  const [token, csrfToken] = await Promise.all([
    deps.sessionTokens.issue(claims),
    deps.sessionTokens.csrfToken(claims.jti),
  ]);
  return { token, claims, csrfToken };
}

/**
 * A new session for `user` of `orgId`, signed in now (D12: a new session id
 * at every sign-in) with `method` (P222: `enforce_sso` ends only password
 * sessions).
 */
export function startSession(
  deps: SessionDependencies,
  orgId: string,
  userId: string,
  method: SignInMethod = 'password',
): Promise<IssuedSession> {
  const now = deps.clock.now();
  const at = seconds(now);
  return issue(deps, {
    sub: userId,
    org: orgId,
    jti: newId('session', now.getTime()),
    iat: at,
    exp: sessionExpiry(at, at),
    auth_time: at,
    auth_method: method,
  });
}

/**
 * D12: a session cookie → the signed-in user. The token must verify (HS256,
 * our key, unexpired, within 30 days of sign-in), its session must not be
 * revoked, and its user must still exist, active, in the token's
 * organization: a deactivated user's sessions end at their next request,
 * and a changed role applies at once (it is read here, not from the token).
 * So do their groups (P83): the user item holds their group ids, and the
 * grants of those groups are one more read, only for users in a group; the
 * effective role and the agents they may use come from both (P80).
 *
 * P222: a session also ends when it was signed in before the user's cutoff
 * (on the user item: no extra read) or, a password session, before the
 * cutoff `enforce_sso` set for the user's organization or email domain
 * (P223: read beside the grants, cached per function instance). A sliding
 * refresh keeps the session id, hence its sign-in time: it cannot outlive
 * either cutoff.
 */
export async function verifySession(
  deps: SessionDependencies,
  token: string,
): Promise<VerifiedSession> {
  const now = deps.clock.now();
  const claims = await deps.sessionTokens.verify(token, now);
  if (!claims) throw new SessionUnauthorizedError('Invalid or expired session: sign in again');
  const [revoked, found] = await Promise.all([
    deps.sessionRevocations.isRevoked(claims.jti, seconds(now)),
    deps.users.getWithGroups(claims.org, claims.sub),
  ]);
  if (revoked) throw new SessionUnauthorizedError('This session was signed out: sign in again');
  if (found?.user.status !== 'active') {
    throw new SessionUnauthorizedError('This user can no longer sign in');
  }
  const { user } = found;
  const method = signInMethodOf(claims);
  const [grants, passwordSessions] = await Promise.all([
    deps.groupGrants.grants(claims.org, found.groupIds),
    method === 'password'
      ? deps.passwordSessionCutoffs.validFrom(claims.org, emailDomain(user.email))
      : Promise.resolve([]),
  ]);
  const cutoffs = { user: found.sessionsValidFrom, passwordSessions };
  const session = { id: claims.jti, signedInAtMs: signedInAtMs(claims.jti), method };
  if (endedByCutoff(session, cutoffs)) {
    throw new SessionUnauthorizedError('This session has ended: sign in again');
  }
  const access = effectiveAccess(user.role, grants);
  return {
    principal: {
      kind: 'session',
      orgId: claims.org,
      userId: user.id,
      role: access.role,
      agents: access.agents,
      groupIds: grants.map((grant) => grant.id),
      sessionId: claims.jti,
      authTime: claims.auth_time,
    },
    user,
    claims,
  };
}

/** D12: the token that continues a session now: 7 more days, never past 30 from sign-in. */
export function continueSession(
  deps: SessionDependencies,
  claims: SessionClaims,
): Promise<IssuedSession> {
  return issue(deps, continuedClaims(claims, seconds(deps.clock.now())));
}

/**
 * D12 logout: the session is revoked until the latest expiry any of its
 * tokens can carry (issued at most now, so at most 7 days on, and never past
 * its 30-day cap), after which every one of them has expired anyway.
 */
export async function endSession(
  deps: SessionDependencies,
  session: { readonly sessionId: string; readonly authTime: number },
): Promise<void> {
  const until = sessionExpiry(session.authTime, seconds(deps.clock.now()));
  await deps.sessionRevocations.revoke(session.sessionId, until);
}

export interface SignInInput {
  readonly email: string;
  readonly password: string;
  /** Needed only when the email signs in to more than one organization. */
  readonly orgId?: string | undefined;
  /** For the per-address throttle (P62). */
  readonly sourceIp: string;
  /** The session cookie sent with the sign-in, if any: it ends (D12, login rotates the session). */
  readonly currentToken?: string | undefined;
}

export interface SignedIn {
  readonly orgId: string;
  readonly user: User;
  readonly session: IssuedSession;
}

/** The throttle's bucket ids: an account by its email's hash (no address stored), an address as seen. */
function throttleBuckets(email: string, sourceIp: string) {
  const account = createHash('sha256').update(email).digest('hex').slice(0, 32);
  return [
    { id: `login-account#${account}`, policy: LOGIN_THROTTLE.account },
    { id: `login-address#${sourceIp}`, policy: LOGIN_THROTTLE.address },
  ] as const;
}

/**
 * P62: takes one attempt from each bucket, or refuses (429, `login_attempts`)
 * giving back what it took. Taking before checking the password makes
 * simultaneous guesses count too.
 */
async function takeAttempt(
  deps: SignInDependencies,
  buckets: ReadonlyArray<{ id: string; policy: BucketPolicy }>,
  now: number,
): Promise<void> {
  const taken: Array<{ id: string; policy: BucketPolicy }> = [];
  for (const bucket of buckets) {
    const state = await deps.rateLimiter.take(bucket.id, bucket.policy, now);
    if (!state.allowed) {
      await Promise.all(
        taken.map((earlier) => deps.rateLimiter.refund(earlier.id, earlier.policy)),
      );
      throw new RateLimitExceededError(
        'login_attempts',
        bucket.policy.burst,
        new Date(state.fullAt),
        state.retryAfterSeconds,
      );
    }
    taken.push(bucket);
  }
}

/**
 * D12 `POST /api/auth/login`. Unknown emails, users without a password yet
 * (invited), deactivated users and wrong passwords all get the same 401,
 * after the same work: one scrypt verification at least, against a dummy
 * hash when there is nobody to check (P62). Failed attempts slow down per
 * account and per address. An email used in several organizations signs in
 * to the one whose password matches; if several match, `org_id` must say
 * which. A session cookie sent along is ended: the new session has a new id.
 */
export async function signIn(deps: SignInDependencies, input: SignInInput): Promise<SignedIn> {
  const email = normalizeEmail(input.email);
  const buckets = throttleBuckets(email, input.sourceIp);
  await takeAttempt(deps, buckets, deps.clock.now().getTime());

  const candidates = (await deps.users.findByEmail(email, input.orgId)).filter(
    (found) => found.user.status === 'active' && found.credentials.passwordHash !== null,
  );
  const matching: UserWithCredentials[] = [];
  if (candidates.length === 0) {
    await verifyPassword(input.password, await dummyPasswordHash());
  }
  for (const candidate of candidates) {
    if (await verifyPassword(input.password, candidate.credentials.passwordHash ?? '')) {
      matching.push(candidate);
    }
  }
  const [match, ...others] = matching;
  if (!match) throw new InvalidCredentialsError('Invalid email or password');
  // The password was right: the attempt does not count against anyone.
  await Promise.all(buckets.map((bucket) => deps.rateLimiter.refund(bucket.id, bucket.policy)));
  if (others.length > 0) {
    throw new InvalidRequestError(
      'This email signs in to several organizations: send org_id to say which',
      {
        fields: [{ path: 'org_id', message: 'required for this email' }],
        org_ids: matching.map((found) => found.orgId),
      },
    );
  }

  // P89: checked once the password is right, so the refusal tells a guesser nothing.
  const enforcing = await enforcingOrganization(deps.ssoRepository, match.orgId, email);
  if (enforcing) throw ssoRequired(enforcing);

  if (input.currentToken) await endPresentedSession(deps, input.currentToken);
  const now = deps.clock.now();
  await deps.users.recordLogin(match.orgId, match.user.id, now.toISOString());
  await rehashIfWeaker(deps, match, input.password);
  const session = await startSession(deps, match.orgId, match.user.id);
  return {
    orgId: match.orgId,
    user: { ...match.user, last_login_at: now.toISOString() },
    session,
  };
}

/** Login rotates the session (D12): a still-valid session presented with it is revoked. */
async function endPresentedSession(deps: SessionDependencies, token: string): Promise<void> {
  const claims = await deps.sessionTokens.verify(token, deps.clock.now());
  if (claims) await endSession(deps, { sessionId: claims.jti, authTime: claims.auth_time });
}

/** P62: a hash made with weaker parameters than today's is replaced while the password is known. */
async function rehashIfWeaker(
  deps: SignInDependencies,
  found: UserWithCredentials,
  password: string,
): Promise<void> {
  if (!found.credentials.passwordHash || !needsRehash(found.credentials.passwordHash)) return;
  // Best effort: a concurrent change of the user wins, and the next sign-in tries again.
  await deps.users.update(
    found.orgId,
    found.user.id,
    { updated_at: found.user.updated_at },
    {
      expectedVersion: found.version,
      events: [],
      credentials: { passwordHash: await hashPassword(password) },
      now: deps.clock.now().getTime(),
    },
  );
}
