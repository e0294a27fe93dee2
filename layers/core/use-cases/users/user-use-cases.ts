import type { Actor } from '../../domain/actor';
import { invitationUrl } from '../../domain/console-links';
import { ConflictError, InvalidRequestError, NotFoundError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import {
  generateInvitationToken,
  hashInvitationToken,
  INVITATION_TTL_MS,
  isInvitationToken,
} from '../../domain/invitation';
import type { Page, PageRequest } from '../../domain/pagination';
import { hashPassword, PASSWORD_POLICY } from '../../domain/password';
import {
  displayEmail,
  lookAlikeFolding,
  type Role,
  type User,
  type UserChanges,
} from '../../domain/user';
import type { Clock } from '../../ports/clock.port';
import type { Mailer } from '../../ports/mailer.port';
import type { OrganizationRepository } from '../../ports/organization-repository.port';
import type { Invitation } from '../../ports/session.port';
import type { UserRepository } from '../../ports/user-repository.port';
import { changedFields, userCreated, userUpdated } from '../events/domain-events';
import { invitationMail } from '../mail/mail-messages';
import {
  enforcingOrganization,
  type SsoEnforcementReader,
  ssoRequired,
} from '../sso/sso-enforcement';
import {
  type EffectiveRoleReaders,
  refuseAdministratorFromKey,
  refuseAdminRoleFromKey,
} from './admin-role-bound';

export interface UserDependencies {
  readonly users: UserRepository;
  readonly organizations: Pick<OrganizationRepository, 'get'>;
  /** Invitations go out by mail. */
  readonly mailer: Mailer;
  readonly clock: Clock;
}

/**
 * Where a mailed invitation's link points (the console). Without
 * it nothing is mailed: the operator's CLI shows the invitation itself.
 */
export interface InvitationMailing {
  readonly consoleOrigin: string;
}

/**
 * Changing a user reads their groups too: an API key may not change an
 * effective administrator (P225).
 */
export type UserChangeDependencies = UserDependencies & {
  readonly groups: EffectiveRoleReaders['groups'];
};

export interface CreateUserInput {
  readonly email: string;
  readonly name: string;
  readonly role: Role;
  /**
   * Sets the password at once instead of inviting (the operator's CLI and
   * The local runtime's bootstrap administrator); the HTTP API always invites.
   */
  readonly password?: string | undefined;
}

export interface CreatedUser {
  readonly user: User;
  /** The invitation to set a password (absent when a password was given). */
  readonly invitation: MailedInvitation | null;
}

/** An invitation, and whether it went out by mail. */
export type MailedInvitation = Invitation & { readonly mailed: boolean };

/** Mails the invitation when a link origin is given; `mailed` says whether it went. */
async function mailInvitation(
  deps: Pick<UserDependencies, 'mailer'>,
  invitation: Invitation,
  to: { readonly name: string; readonly organizationName: string },
  mailing: InvitationMailing | undefined,
): Promise<MailedInvitation> {
  if (!mailing) return { ...invitation, mailed: false };
  const outcome = await deps.mailer.send(
    invitationMail({
      to: invitation.email,
      inviteeName: to.name,
      organizationName: to.organizationName,
      orgId: invitation.orgId,
      userId: invitation.userId,
      link: invitationUrl(mailing.consoleOrigin, invitation.token),
      expiresAt: invitation.expiresAt,
    }),
  );
  return { ...invitation, mailed: outcome === 'sent' };
}

function emailTaken(email: string): ConflictError {
  return new ConflictError(`A user with the email ${email} already exists in this organization`, {
    fields: [{ path: 'email', message: 'already used in this organization' }],
  });
}

/** Checked wherever a password is set (the API's schemas check the same); 400 naming `field`. */
export function assertPasswordPolicy(password: string, field = 'password'): void {
  if (password.length < PASSWORD_POLICY.minLength || password.length > PASSWORD_POLICY.maxLength) {
    throw new InvalidRequestError(
      `A password has ${PASSWORD_POLICY.minLength} to ${PASSWORD_POLICY.maxLength} characters`,
      { fields: [{ path: field, message: 'too short or too long' }] },
    );
  }
}

/**
 * The address as stored, or 400: no control or invisible characters, and no
 * look-alike characters either. A new address written with fullwidth letters
 * or the like is refused with the plain one to write instead, so no account
 * is made whose address is not what it shows.
 */
function storedEmail(email: string): string {
  const display = displayEmail(email);
  if (display === null) {
    throw new InvalidRequestError('Invalid email', {
      fields: [{ path: 'email', message: 'must be an email address' }],
    });
  }
  const plain = lookAlikeFolding(email);
  if (plain !== null) {
    throw new InvalidRequestError(`Invalid email: write it in plain characters, as ${plain}`, {
      fields: [{ path: 'email', message: `has look-alike characters; write ${plain}` }],
    });
  }
  return display;
}

function newInvitation(now: number) {
  const token = generateInvitationToken();
  const expiresAt = now + INVITATION_TTL_MS;
  return { token, record: { tokenHash: hashInvitationToken(token), expiresAt } };
}

/**
 * `POST /api/v1/users`: a user of the organization with a role. Unless a
 * password is given, the user is `invited` and gets a single-use invitation
 * to set one, mailed to them (given `mailing`) and returned
 * once to the caller. Emails are unique per organization, case-insensitively (409).
 * Stores `user.created` with the user (no secret in it) and who
 * created them: `actor` is `null` for the operator (CLI, bootstrap). An API
 * key cannot create an `admin` (P225).
 */
export async function createUser(
  deps: UserDependencies,
  orgId: string,
  input: CreateUserInput,
  actor: Actor | null = null,
  mailing?: InvitationMailing,
): Promise<CreatedUser> {
  refuseAdminRoleFromKey(actor, input.role, 'give');
  const organization = await deps.organizations.get(orgId);
  if (!organization) throw new NotFoundError(`No organization ${orgId}`);
  if (input.password !== undefined) assertPasswordPolicy(input.password);
  const now = deps.clock.now();
  const user: User = {
    id: newId('user', now.getTime()),
    email: storedEmail(input.email),
    name: input.name,
    role: input.role,
    status: input.password === undefined ? 'invited' : 'active',
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    last_login_at: null,
  };
  const invitation = input.password === undefined ? newInvitation(now.getTime()) : null;
  const outcome = await deps.users.create(orgId, user, {
    passwordHash: input.password === undefined ? null : await hashPassword(input.password),
    invitation: invitation?.record ?? null,
    events: [userCreated(orgId, user, actor, now)],
    now: now.getTime(),
  });
  if (outcome === 'email_taken') throw emailTaken(user.email);
  if (!invitation) return { user, invitation: null };
  const sent: Invitation = {
    orgId,
    userId: user.id,
    email: user.email,
    token: invitation.token,
    expiresAt: new Date(invitation.record.expiresAt).toISOString(),
  };
  const mailed = await mailInvitation(
    deps,
    sent,
    { name: user.name, organizationName: organization.name },
    mailing,
  );
  return { user, invitation: mailed };
}

export async function getUser(
  deps: Pick<UserDependencies, 'users'>,
  orgId: string,
  id: string,
): Promise<User> {
  const user = await deps.users.get(orgId, id);
  if (!user) throw new NotFoundError(`No user ${id}`);
  return user;
}

export function listUsers(
  deps: Pick<UserDependencies, 'users'>,
  orgId: string,
  page: PageRequest,
): Promise<Page<User>> {
  return deps.users.list(orgId, page);
}

/** Concurrent updates of one user retry this often before giving up with 409. */
const UPDATE_ATTEMPTS = 3;

/**
 * `PUT /api/v1/users/:id` (and deactivation): email, name, role,
 * status. Deactivating ends the user's sessions at their next request, for
 * good (the same write sets their session cutoff, so restoring the
 * user brings no old session back); `active` again restores a deactivated
 * user (an invited one becomes active only by accepting). Stores
 * `user.updated` with exactly what changed and who changed it (P225).
 *
 * An administrator may not demote or deactivate themselves, so an
 * organization keeps the administrator who acts. An API key may neither
 * give the admin role nor change an effective administrator (P225).
 */
export async function updateUser(
  deps: UserChangeDependencies,
  orgId: string,
  id: string,
  changes: UserChanges,
  actor: Actor,
): Promise<User> {
  refuseAdminRoleFromKey(actor, changes.role, 'give');
  await refuseAdministratorFromKey(deps, orgId, actor, id);
  if (actor.kind === 'user' && id === actor.user_id) {
    if (changes.role !== undefined && changes.role !== 'admin') {
      throw new ConflictError('You cannot take the admin role from yourself; ask another admin');
    }
    if (changes.status === 'deactivated') {
      throw new ConflictError('You cannot deactivate yourself; ask another admin');
    }
  }
  for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt += 1) {
    const current = await deps.users.getWithCredentials(orgId, id);
    if (!current) throw new NotFoundError(`No user ${id}`);
    const wanted = definedOnly({
      ...changes,
      email: changes.email === undefined ? undefined : storedEmail(changes.email),
    });
    if (wanted.status === 'active' && current.user.status === 'invited') {
      throw new ConflictError('An invited user becomes active by accepting the invitation', {
        fields: [{ path: 'status', message: 'the user has not accepted the invitation yet' }],
      });
    }
    if (wanted.status === 'invited' && current.user.status !== 'invited') {
      throw new InvalidRequestError('A user who accepted an invitation cannot be invited again', {
        fields: [{ path: 'status', message: 'must be active or deactivated' }],
      });
    }
    const now = deps.clock.now();
    const next: User = { ...current.user, ...wanted, updated_at: now.toISOString() };
    const diff = changedFields(current.user, next);
    if (Object.keys(diff).length === 0) return current.user;
    const updated = await deps.users.update(
      orgId,
      id,
      { ...wanted, updated_at: next.updated_at },
      {
        expectedVersion: current.version,
        events: [userUpdated(orgId, next, diff, actor, now)],
        ...(next.status === 'deactivated' ? { sessionsValidFrom: now.getTime() } : {}),
        now: now.getTime(),
      },
    );
    if (updated === 'email_taken') throw emailTaken(wanted.email ?? '');
    if (updated) return updated;
  }
  throw new ConflictError(`User ${id} is being changed concurrently; retry`);
}

/** `DELETE /api/v1/users/:id`: deactivation, kept for the record (see updateUser). */
export function deactivateUser(
  deps: UserChangeDependencies,
  orgId: string,
  id: string,
  actor: Actor,
): Promise<User> {
  return updateUser(deps, orgId, id, { status: 'deactivated' }, actor);
}

/**
 * `POST /api/v1/users/:id/invitation`: a new invitation for a user who
 * has not accepted one yet (the old one stops working), mailed as the first. Not for an API key
 * when the user is an effective administrator (P225): whoever holds the
 * invitation becomes them.
 */
export async function reinviteUser(
  deps: UserChangeDependencies,
  orgId: string,
  id: string,
  actor: Actor,
  mailing?: InvitationMailing,
): Promise<MailedInvitation> {
  await refuseAdministratorFromKey(deps, orgId, actor, id);
  const current = await deps.users.getWithCredentials(orgId, id);
  if (!current) throw new NotFoundError(`No user ${id}`);
  if (current.user.status !== 'invited') {
    throw new ConflictError('Only a user who has not accepted an invitation can be invited again');
  }
  const now = deps.clock.now();
  const invitation = newInvitation(now.getTime());
  const updated = await deps.users.update(
    orgId,
    id,
    { updated_at: now.toISOString() },
    {
      expectedVersion: current.version,
      events: [],
      credentials: { invitation: invitation.record },
      now: now.getTime(),
    },
  );
  if (!updated || updated === 'email_taken') {
    throw new ConflictError(`User ${id} is being changed concurrently; retry`);
  }
  if (current.credentials.invitation) {
    await deps.users.deleteInvitation(current.credentials.invitation.tokenHash);
  }
  const sent: Invitation = {
    orgId,
    userId: id,
    email: current.user.email,
    token: invitation.token,
    expiresAt: new Date(invitation.record.expiresAt).toISOString(),
  };
  const organization = await deps.organizations.get(orgId);
  return mailInvitation(
    deps,
    sent,
    { name: current.user.name, organizationName: organization?.name ?? orgId },
    mailing,
  );
}

/**
 * `POST /api/v1/users/:id/sessions/revoke`: an administrator signs a
 * user out everywhere. Every session the user signed in before now ends at
 * its next request (a sliding refresh cannot save it); signing in again
 * works. No event: no field of the user changes.
 */
export async function endUserSessions(
  deps: Pick<UserDependencies, 'users' | 'clock'>,
  orgId: string,
  id: string,
): Promise<void> {
  if (!(await deps.users.endSessions(orgId, id, deps.clock.now().getTime()))) {
    throw new NotFoundError(`No user ${id}`);
  }
}

function invalidInvitation(): InvalidRequestError {
  return new InvalidRequestError('This invitation is invalid, used or expired: ask for a new one', {
    fields: [{ path: 'token', message: 'invalid, used or expired' }],
  });
}

/**
 * `POST /api/auth/invitations/accept`: sets the password of the invited
 * user and makes them active. Single use: the write is conditional on the
 * user still holding that invitation (a second accept finds it gone), and
 * an expired one is refused. Any failure is the same 400.
 *
 * Where SSO's `enforce_sso` forbids this user a password, a valid
 * invitation is refused with 403 `sso_required` and left unused: the user
 * signs in through SSO instead, which makes them active.
 */
export async function acceptInvitation(
  deps: Pick<UserDependencies, 'users' | 'clock'> & {
    readonly ssoRepository: SsoEnforcementReader;
  },
  input: { readonly token: string; readonly password: string },
): Promise<{ readonly orgId: string; readonly user: User }> {
  if (!isInvitationToken(input.token)) throw invalidInvitation();
  assertPasswordPolicy(input.password);
  const tokenHash = hashInvitationToken(input.token);
  const lookup = await deps.users.findInvitation(tokenHash);
  const now = deps.clock.now();
  if (!lookup || lookup.expiresAt <= now.getTime()) throw invalidInvitation();
  const current = await deps.users.getWithCredentials(lookup.orgId, lookup.userId);
  if (
    current?.user.status !== 'invited' ||
    current.credentials.invitation?.tokenHash !== tokenHash ||
    current.credentials.invitation.expiresAt <= now.getTime()
  ) {
    throw invalidInvitation();
  }
  const enforcing = await enforcingOrganization(
    deps.ssoRepository,
    lookup.orgId,
    current.user.email,
  );
  if (enforcing) throw ssoRequired(enforcing);
  const next: User = { ...current.user, status: 'active', updated_at: now.toISOString() };
  const updated = await deps.users.update(
    lookup.orgId,
    lookup.userId,
    { status: 'active', updated_at: next.updated_at },
    {
      expectedVersion: current.version,
      // P225: the user accepting their invitation is who changed them.
      events: [
        userUpdated(
          lookup.orgId,
          next,
          changedFields(current.user, next),
          { kind: 'user', user_id: lookup.userId },
          now,
        ),
      ],
      credentials: { passwordHash: await hashPassword(input.password), invitation: null },
      // Every password set ends the sessions from before it (an invited user has none yet).
      sessionsValidFrom: now.getTime(),
      now: now.getTime(),
    },
  );
  if (!updated || updated === 'email_taken') throw invalidInvitation();
  await deps.users.deleteInvitation(tokenHash);
  return { orgId: lookup.orgId, user: updated };
}

/**
 * Sets a user's password directly (the local runtime's bootstrap administrator, the
 * operator CLI's `--password-stdin`): an invited user becomes active. A
 * reset: the user's sessions from before it end.
 */
export async function setUserPassword(
  deps: Pick<UserDependencies, 'users' | 'clock'>,
  orgId: string,
  id: string,
  password: string,
): Promise<User> {
  assertPasswordPolicy(password);
  const passwordHash = await hashPassword(password);
  for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt += 1) {
    const current = await deps.users.getWithCredentials(orgId, id);
    if (!current) throw new NotFoundError(`No user ${id}`);
    const now = deps.clock.now();
    const status = current.user.status === 'invited' ? 'active' : current.user.status;
    const next: User = { ...current.user, status, updated_at: now.toISOString() };
    const diff = changedFields(current.user, next);
    const updated = await deps.users.update(
      orgId,
      id,
      { status, updated_at: next.updated_at },
      {
        expectedVersion: current.version,
        // P225: the operator's CLI or bootstrap, which no request names.
        events: Object.keys(diff).length > 0 ? [userUpdated(orgId, next, diff, null, now)] : [],
        credentials: { passwordHash, invitation: null },
        sessionsValidFrom: now.getTime(),
        now: now.getTime(),
      },
    );
    if (updated && updated !== 'email_taken') {
      if (current.credentials.invitation) {
        await deps.users.deleteInvitation(current.credentials.invitation.tokenHash);
      }
      return updated;
    }
  }
  throw new ConflictError(`User ${id} is being changed concurrently; retry`);
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(value).filter(([, field]) => field !== undefined),
  ) as Partial<T>;
}
