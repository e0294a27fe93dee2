import {
  ConflictError,
  InvalidRequestError,
  RateLimitExceededError,
  RequestRefusedError,
  SessionUnauthorizedError,
} from '../../domain/errors';
import { LOGIN_THROTTLE } from '../../domain/login-throttle';
import { hashPassword, verifyPassword } from '../../domain/password';
import type { User } from '../../domain/user';
import type { RateLimiter } from '../../ports/rate-limiter.port';
import type { UserRepository } from '../../ports/user-repository.port';
import {
  enforcingOrganization,
  type SsoEnforcementReader,
  ssoRequired,
} from '../sso/sso-enforcement';
import { assertPasswordPolicy } from '../users/user-use-cases';
import { type IssuedSession, type SessionDependencies, startSession } from './sessions';

/** What changing one's password needs besides checking sessions. */
export interface PasswordChangeDependencies extends SessionDependencies {
  readonly users: Pick<UserRepository, 'get' | 'getWithGroups' | 'getWithCredentials' | 'update'>;
  readonly rateLimiter: RateLimiter;
  /** `enforce_sso`: a password that may not be used is not changed either. */
  readonly ssoRepository: SsoEnforcementReader;
}

export interface PasswordChangeInput {
  readonly currentPassword: string;
  readonly newPassword: string;
}

/** Concurrent changes of the user retry this often before giving up with 409. */
const UPDATE_ATTEMPTS = 3;

/**
 * A signed-in user's wrong guesses at their current password drain a
 * bucket of their own, as the per (account, address) bucket for sign-ins (10, then
 * one every 5 minutes; a right password gives its token back), so a stolen
 * session cannot be used to guess the password it would need to take the
 * account over.
 */
const passwordChangeBucket = (userId: string) => `password-change#${userId}`;

/**
 * `PUT /api/v1/auth/password`: the signed-in user replaces their
 * password, proving the current one. The new one follows P62; every session
 * of the user signed in before the change ends (the cutoff is set in
 * the same write as the hash), this one too, and the caller continues in a
 * new session issued at the moment of the change. Refused: a wrong current
 * password (400 naming `current_password`, throttled), a user without a
 * password (403 `no_password`: they sign in through SSO), and a user whom
 * `enforce_sso` allows no password (the 403 `sso_required`).
 */
export async function changePassword(
  deps: PasswordChangeDependencies,
  session: { readonly orgId: string; readonly userId: string },
  input: PasswordChangeInput,
): Promise<{ readonly user: User; readonly session: IssuedSession }> {
  assertPasswordPolicy(input.newPassword, 'new_password');
  const current = await deps.users.getWithCredentials(session.orgId, session.userId);
  if (current?.user.status !== 'active') {
    throw new SessionUnauthorizedError('This user can no longer sign in');
  }
  const storedHash = current.credentials.passwordHash;
  if (storedHash === null) {
    throw new RequestRefusedError('This user signs in through SSO and has no password to change', {
      reason: 'no_password',
    });
  }

  const bucket = passwordChangeBucket(session.userId);
  const state = await deps.rateLimiter.take(
    bucket,
    LOGIN_THROTTLE.accountAddress,
    deps.clock.now().getTime(),
  );
  if (!state.allowed) {
    throw new RateLimitExceededError(
      'login_attempts',
      LOGIN_THROTTLE.accountAddress.burst,
      new Date(state.fullAt),
      state.retryAfterSeconds,
    );
  }
  if (!(await verifyPassword(input.currentPassword, storedHash))) {
    throw new InvalidRequestError('The current password is not right', {
      fields: [{ path: 'current_password', message: 'is not the current password' }],
    });
  }
  await deps.rateLimiter.refund(bucket, LOGIN_THROTTLE.accountAddress);

  const enforcing = await enforcingOrganization(
    deps.ssoRepository,
    session.orgId,
    current.user.email,
  );
  if (enforcing) throw ssoRequired(enforcing);

  const passwordHash = await hashPassword(input.newPassword);
  let found = current;
  for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt += 1) {
    const now = deps.clock.now();
    const updated = await deps.users.update(
      session.orgId,
      session.userId,
      { updated_at: now.toISOString() },
      {
        expectedVersion: found.version,
        // No event: the password is no field of the user (and never leaves the service).
        events: [],
        credentials: { passwordHash },
        sessionsValidFrom: now.getTime(),
        now: now.getTime(),
      },
    );
    if (updated && updated !== 'email_taken') {
      // Issued after the cutoff's millisecond (the clock is read again): this session counts.
      return { user: updated, session: await startSession(deps, session.orgId, updated.id) };
    }
    const again = await deps.users.getWithCredentials(session.orgId, session.userId);
    if (again?.user.status !== 'active' || again.credentials.passwordHash !== storedHash) {
      // Deactivated or its password changed meanwhile: this change no longer applies.
      throw new ConflictError('The user changed meanwhile; sign in again and retry');
    }
    found = again;
  }
  throw new ConflictError(`User ${session.userId} is being changed concurrently; retry`);
}
