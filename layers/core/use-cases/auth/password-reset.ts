import { passwordResetUrl } from '../../domain/console-links';
import { ConflictError, InvalidRequestError } from '../../domain/errors';
import { hashPassword } from '../../domain/password';
import {
  generatePasswordResetToken,
  hashPasswordResetToken,
  isPasswordResetToken,
  PASSWORD_RESET_TTL_MS,
  passwordFingerprint,
} from '../../domain/password-reset';
import { normalizeEmail } from '../../domain/user';
import type { Clock } from '../../ports/clock.port';
import type { Mailer } from '../../ports/mailer.port';
import type { OrganizationRepository } from '../../ports/organization-repository.port';
import type { PasswordResetRecord, PasswordResetRepository } from '../../ports/password-reset.port';
import type { RateLimiter } from '../../ports/rate-limiter.port';
import type { UserRepository, UserWithCredentials } from '../../ports/user-repository.port';
import { passwordResetMail } from '../mail/mail-messages';
import {
  enforcingOrganization,
  type SsoEnforcementReader,
  ssoRequired,
} from '../sso/sso-enforcement';
import { assertPasswordPolicy } from '../users/user-use-cases';
import { accountToCheck, takeAttempt, throttleBuckets } from './sessions';

export interface PasswordResetDependencies {
  readonly users: Pick<
    UserRepository,
    'findByEmail' | 'getWithCredentials' | 'getWithGroups' | 'update'
  >;
  readonly organizations: Pick<OrganizationRepository, 'get'>;
  readonly passwordResets: PasswordResetRepository;
  readonly rateLimiter: RateLimiter;
  readonly ssoRepository: SsoEnforcementReader;
  readonly mailer: Mailer;
  readonly clock: Clock;
}

/**
 * Every request answers no sooner than this after it arrived, mail
 * or no mail, so the mail service's time does not tell whether the
 * address has an account. Above SES's and a nearby SMTP server's usual
 * answer; a slower one shows (and is logged when it fails).
 */
export const RESET_ANSWER_FLOOR_MS = 500;

const waitUntil = (deadline: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now())));

export interface PasswordResetRequest {
  readonly email: string;
  /** Which organization's account; without it, the one sign-in would check. */
  readonly orgId?: string | undefined;
  readonly sourceIp: string;
  /** Where the console is, for the link (as invitations'). */
  readonly consoleOrigin: string;
}

/**
 * P266, `POST /api/v1/auth/password-reset`: mails a single-use link,
 * valid one hour, to the account sign-in would check for this email
 * when it can sign in with a password: active, with a password, and not
 * held to SSO by `enforce_sso` (such a user gets no mail). Whether
 * or not a mail goes, the caller learns nothing: the answer is the same,
 * and comes no sooner than `RESET_ANSWER_FLOOR_MS`. Requests are throttled
 * as sign-ins are (the three buckets and policies, buckets of their
 * own), taken whether or not there is an account, and never given back.
 */
export async function requestPasswordReset(
  deps: PasswordResetDependencies,
  input: PasswordResetRequest,
): Promise<void> {
  const deadline = Date.now() + RESET_ANSWER_FLOOR_MS;
  const email = normalizeEmail(input.email);
  const account = await accountToCheck(deps, email, input.orgId);
  await takeAttempt(
    deps,
    throttleBuckets(account, email, input.sourceIp, 'reset'),
    deps.clock.now().getTime(),
  );
  try {
    if (account) await mailReset(deps, account, input.consoleOrigin);
  } finally {
    await waitUntil(deadline);
  }
}

async function mailReset(
  deps: PasswordResetDependencies,
  account: UserWithCredentials,
  consoleOrigin: string,
): Promise<void> {
  const passwordHash = account.credentials.passwordHash;
  // accountToCheck chose an active user with a password; held to SSO, they get no mail.
  if (passwordHash === null) return;
  if (await enforcingOrganization(deps.ssoRepository, account.orgId, account.user.email)) return;
  const organization = await deps.organizations.get(account.orgId);
  if (!organization) return;
  const token = generatePasswordResetToken();
  const issuedAt = deps.clock.now().getTime();
  const expiresAt = issuedAt + PASSWORD_RESET_TTL_MS;
  await deps.passwordResets.put({
    tokenHash: hashPasswordResetToken(token),
    orgId: account.orgId,
    userId: account.user.id,
    issuedAt,
    expiresAt,
    passwordFingerprint: passwordFingerprint(passwordHash),
  });
  await deps.mailer.send(
    passwordResetMail({
      to: account.user.email,
      organizationName: organization.name,
      orgId: account.orgId,
      userId: account.user.id,
      link: passwordResetUrl(consoleOrigin, token),
      expiresAt: new Date(expiresAt).toISOString(),
    }),
  );
}

function invalidReset(): InvalidRequestError {
  return new InvalidRequestError(
    'This password reset link is invalid, used or expired: ask for a new one',
    { fields: [{ path: 'token', message: 'invalid, used or expired' }] },
  );
}

/** Concurrent changes of the user retry this often before giving up with 409. */
const UPDATE_ATTEMPTS = 3;

/** The user the reset was issued for, if it still applies: active, same password as then. */
function stillApplies(
  found: UserWithCredentials | null,
  fingerprint: string,
): found is UserWithCredentials {
  const hash = found?.credentials.passwordHash;
  return (
    found?.user.status === 'active' &&
    typeof hash === 'string' &&
    passwordFingerprint(hash) === fingerprint
  );
}

/**
 * Whether the user's sessions were ended after the reset was issued: a
 * deactivation (or a revocation) ends the links mailed before it as it ends
 * the sessions signed in before it, so reactivating the user brings neither
 * back. Strictly before, as a session's cutoff is.
 */
async function endedSinceIssued(
  deps: Pick<PasswordResetDependencies, 'users'>,
  reset: PasswordResetRecord,
): Promise<boolean> {
  const found = await deps.users.getWithGroups(reset.orgId, reset.userId);
  const cutoff = found?.sessionsValidFrom ?? null;
  return cutoff !== null && reset.issuedAt < cutoff;
}

/**
 * `POST /api/v1/auth/password-reset/confirm`: sets a new password
 * from a reset link. Single use (the reset is consumed atomically
 * before the write), an hour at most, and only while the password it
 * replaces is still the user's, they are active, and their sessions have
 * not been ended since it was issued; any failure is the same
 * 400 naming `token`. The write sets the user's session cutoff, so
 * every session they have ends; nobody is signed in: the person signs
 * in with the new password. A user `enforce_sso` holds to SSO meanwhile gets
 * The 403 `sso_required`, the link left unused.
 */
export async function confirmPasswordReset(
  deps: Omit<PasswordResetDependencies, 'mailer' | 'organizations' | 'rateLimiter'>,
  input: { readonly token: string; readonly newPassword: string },
): Promise<void> {
  if (!isPasswordResetToken(input.token)) throw invalidReset();
  assertPasswordPolicy(input.newPassword, 'new_password');
  const tokenHash = hashPasswordResetToken(input.token);
  const reset = await deps.passwordResets.find(tokenHash);
  if (!reset || reset.expiresAt <= deps.clock.now().getTime()) throw invalidReset();
  let current = await deps.users.getWithCredentials(reset.orgId, reset.userId);
  if (!stillApplies(current, reset.passwordFingerprint)) throw invalidReset();
  if (await endedSinceIssued(deps, reset)) throw invalidReset();
  const enforcing = await enforcingOrganization(
    deps.ssoRepository,
    reset.orgId,
    current.user.email,
  );
  if (enforcing) throw ssoRequired(enforcing);
  if (!(await deps.passwordResets.consume(tokenHash))) throw invalidReset();

  const passwordHash = await hashPassword(input.newPassword);
  for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt += 1) {
    const now = deps.clock.now();
    const updated = await deps.users.update(
      reset.orgId,
      reset.userId,
      { updated_at: now.toISOString() },
      {
        expectedVersion: current.version,
        // No event: the password is no field of the user (as the change).
        events: [],
        credentials: { passwordHash },
        // Every session of the user from before the new password ends.
        sessionsValidFrom: now.getTime(),
        now: now.getTime(),
      },
    );
    if (updated && updated !== 'email_taken') return;
    const again = await deps.users.getWithCredentials(reset.orgId, reset.userId);
    if (!stillApplies(again, reset.passwordFingerprint)) throw invalidReset();
    current = again;
  }
  throw new ConflictError(`User ${reset.userId} is being changed concurrently; retry`);
}
