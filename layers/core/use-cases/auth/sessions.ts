import { createHash } from 'node:crypto';
import {
  InvalidCredentialsError,
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
  /** `enforce_sso`: whether the user's organization (or its email's domain) allows passwords. */
  readonly ssoRepository: SsoEnforcementReader;
}

/** A session token just issued, with what the web application is told about it. */
export interface IssuedSession {
  readonly token: string;
  readonly claims: SessionClaims;
  /** The value every cookie-authenticated state change must send as `X-CSRF-Token`. */
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
 * A new session for `user` of `orgId`, signed in now (a new session id
 * at every sign-in) with `method` (`enforce_sso` ends only password
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
 * A session cookie → the signed-in user. The token must verify (HS256,
 * our key, unexpired, within 30 days of sign-in), its session must not be
 * revoked, and its user must still exist, active, in the token's
 * organization: a deactivated user's sessions end at their next request,
 * and a changed role applies at once (it is read here, not from the token).
 * So do their groups: the user item holds their group ids, and the
 * grants of those groups are one more read, only for users in a group; the
 * effective role and the agents they may use come from both.
 *
 * A session also ends when it was signed in before the user's cutoff
 * (on the user item: no extra read) or, a password session, before the
 * cutoff `enforce_sso` set for the user's organization or email domain
 * (read beside the grants, cached per function instance). A sliding
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

/** The token that continues a session now: 7 more days, never past 30 from sign-in. */
export function continueSession(
  deps: SessionDependencies,
  claims: SessionClaims,
): Promise<IssuedSession> {
  return issue(deps, continuedClaims(claims, seconds(deps.clock.now())));
}

/**
 * Logout: the session is revoked until the latest expiry any of its
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
  /** Which organization to sign in to; needed only for an email's other accounts (P211). */
  readonly orgId?: string | undefined;
  /** For the per-address throttle (P212). */
  readonly sourceIp: string;
  /** The session cookie sent with the sign-in, if any: it ends (login rotates the session). */
  readonly currentToken?: string | undefined;
}

export interface SignedIn {
  readonly orgId: string;
  readonly user: User;
  readonly session: IssuedSession;
}

const canSignIn = (found: UserWithCredentials) =>
  found.user.status === 'active' && found.credentials.passwordHash !== null;

const earliestCreated = (a: UserWithCredentials, b: UserWithCredentials) =>
  a.user.created_at.localeCompare(b.user.created_at) || a.user.id.localeCompare(b.user.id);

/**
 * P211: the one account a password is checked against, chosen before any
 * password is compared. An email may have an account in several
 * organizations; `org_id` names one. Without it: the email's only
 * account that can sign in; with several, the one in the organization that
 * verified the email's domain, else the oldest. Another organization's
 * administrator can add accounts for any address, but only ever newer ones on
 * a domain they cannot verify, so they never move the owner's sign-in, and no
 * answer depends on a password of an account that was not chosen.
 */
export async function accountToCheck(
  deps: {
    readonly users: Pick<UserRepository, 'findByEmail'>;
    readonly ssoRepository: Pick<SsoEnforcementReader, 'domainOwner'>;
  },
  email: string,
  orgId: string | undefined,
): Promise<UserWithCredentials | null> {
  const accounts = (await deps.users.findByEmail(email, orgId)).filter(canSignIn);
  if (accounts.length <= 1) return accounts[0] ?? null;
  const domain = emailDomain(email);
  const owner = domain ? await deps.ssoRepository.domainOwner(domain) : null;
  return (
    accounts.find((account) => account.orgId === owner) ??
    [...accounts].sort(earliestCreated)[0] ??
    null
  );
}

const hashed = (value: string) => createHash('sha256').update(value).digest('hex').slice(0, 32);

/**
 * P212's buckets: the address, the account from this address, and the
 * account from anywhere. An account is the chosen user (so one
 * organization's guesses never slow another organization's user of the same
 * email); an email with no account is counted by its hash, exactly alike.
 * `kind` keeps sign-ins and password reset requests in buckets of
 * their own, with the same policies.
 */
export function throttleBuckets(
  account: UserWithCredentials | null,
  email: string,
  sourceIp: string,
  kind: 'login' | 'reset' = 'login',
) {
  const accountKey = account ? hashed(`${account.orgId}\u0000${account.user.id}`) : hashed(email);
  return [
    { id: `${kind}-address#${sourceIp}`, policy: LOGIN_THROTTLE.address },
    {
      id: `${kind}-account-address#${accountKey}#${sourceIp}`,
      policy: LOGIN_THROTTLE.accountAddress,
    },
    { id: `${kind}-account#${accountKey}`, policy: LOGIN_THROTTLE.account },
  ] as const;
}

/**
 * Takes one attempt from each bucket, or refuses (429, `login_attempts`)
 * giving back what it took. Taking before checking the password makes
 * simultaneous guesses count too.
 */
export async function takeAttempt(
  deps: { readonly rateLimiter: RateLimiter },
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
 * `POST /api/auth/login`. One account is chosen before any password is
 * compared (P211); unknown emails, users without a password yet (invited),
 * deactivated users and wrong passwords all get the same 401, after the same
 * work: one scrypt verification, against a dummy hash when there is nobody
 * to check. Failed attempts slow down per address, per account from
 * that address and per account (P212). A session cookie sent along is
 * ended: the new session has a new id.
 */
export async function signIn(deps: SignInDependencies, input: SignInInput): Promise<SignedIn> {
  const email = normalizeEmail(input.email);
  const account = await accountToCheck(deps, email, input.orgId);
  const buckets = throttleBuckets(account, email, input.sourceIp);
  await takeAttempt(deps, buckets, deps.clock.now().getTime());

  const passwordHash = account?.credentials.passwordHash ?? (await dummyPasswordHash());
  const matches = await verifyPassword(input.password, passwordHash);
  if (!account || !matches) throw new InvalidCredentialsError('Invalid email or password');
  // The password was right: the attempt does not count against anyone.
  await Promise.all(buckets.map((bucket) => deps.rateLimiter.refund(bucket.id, bucket.policy)));

  // Checked once the password is right, so the refusal tells a guesser nothing.
  const enforcing = await enforcingOrganization(deps.ssoRepository, account.orgId, email);
  if (enforcing) throw ssoRequired(enforcing);

  if (input.currentToken) await endPresentedSession(deps, input.currentToken);
  const now = deps.clock.now();
  await deps.users.recordLogin(account.orgId, account.user.id, now.toISOString());
  await rehashIfWeaker(deps, account, input.password);
  const session = await startSession(deps, account.orgId, account.user.id);
  return {
    orgId: account.orgId,
    user: { ...account.user, last_login_at: now.toISOString() },
    session,
  };
}

/** Login rotates the session: a still-valid session presented with it is revoked. */
async function endPresentedSession(deps: SessionDependencies, token: string): Promise<void> {
  const claims = await deps.sessionTokens.verify(token, deps.clock.now());
  if (claims) await endSession(deps, { sessionId: claims.jti, authTime: claims.auth_time });
}

/** A hash made with weaker parameters than today's is replaced while the password is known. */
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
