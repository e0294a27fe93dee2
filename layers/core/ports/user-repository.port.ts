import type { DomainEvent } from '../domain/events';
import type { Page, PageRequest } from '../domain/pagination';
import type { User, UserChanges } from '../domain/user';

/** A pending invitation: only its token's hash is stored. */
export interface InvitationRecord {
  readonly tokenHash: string;
  /** Epoch ms after which it can no longer be accepted. */
  readonly expiresAt: number;
}

/** What is kept beside a user but never returned with it. */
export interface UserCredentials {
  /** scrypt hash (domain/password.ts), or null while invited. */
  readonly passwordHash: string | null;
  /** The invitation that may still be accepted, if any. */
  readonly invitation: InvitationRecord | null;
}

/** A user and what a sign-in checks. */
export interface UserWithCredentials {
  readonly orgId: string;
  readonly user: User;
  readonly version: number;
  readonly credentials: UserCredentials;
}

/** An invitation found by its token's hash. */
export interface InvitationLookup {
  readonly orgId: string;
  readonly userId: string;
  readonly expiresAt: number;
}

export type EmailTaken = 'email_taken';

/** A user and the ids of the groups they belong to (kept on the user, read with it). */
export interface UserWithGroups {
  readonly user: User;
  readonly groupIds: readonly string[];
  /** The user's sessions signed in before this (epoch ms) have ended; null: none ended so. */
  readonly sessionsValidFrom: number | null;
}

/** Why a user could not join a group. */
export type JoinRefusal = 'no_user' | 'too_many_groups';

/**
 * Users of one organization. Emails are unique per organization,
 * compared in their normalized form (domain/user.ts `normalizeEmail`); the
 * repository enforces it atomically. Writes take the events they cause
 * (the outbox) and the version they expect.
 */
export interface UserRepository {
  /** `email_taken` when another user of the organization has that email. */
  create(
    orgId: string,
    user: User,
    write: {
      readonly passwordHash?: string | null;
      readonly invitation?: InvitationRecord | null;
      readonly events: readonly DomainEvent[];
      readonly now: number;
    },
  ): Promise<EmailTaken | undefined>;
  get(orgId: string, id: string): Promise<User | null>;
  getWithCredentials(orgId: string, id: string): Promise<UserWithCredentials | null>;
  list(orgId: string, page: PageRequest): Promise<Page<User>>;
  /** The users, in any organization (or in `orgId` only), whose email is `normalizedEmail`. */
  findByEmail(normalizedEmail: string, orgId?: string): Promise<UserWithCredentials[]>;
  /**
   * Applies `changes` if the user is still at `expectedVersion`; a new email
   * is claimed first (`email_taken` if another user holds it). `null` when
   * the user is gone or changed since. `credentials` replaces the password
   * hash and/or the invitation in the same write; `sessionsValidFrom` ends
   * the user's sessions signed in before it in that write too.
   */
  update(
    orgId: string,
    id: string,
    changes: UserChanges & { readonly updated_at: string },
    write: {
      readonly expectedVersion: number;
      readonly events: readonly DomainEvent[];
      readonly credentials?: Partial<UserCredentials>;
      readonly sessionsValidFrom?: number;
      readonly now: number;
    },
  ): Promise<User | null | EmailTaken>;
  /**
   * Ends every session of the user signed in before `at` (epoch ms),
   * whatever else changes meanwhile (no version, no event: it changes no
   * field of the user). False when there is no such user.
   */
  endSessions(orgId: string, id: string, at: number): Promise<boolean>;
  /** The user, their group ids and their session cutoff, in one read (what a session check needs). */
  getWithGroups(orgId: string, id: string): Promise<UserWithGroups | null>;
  /**
   * Adds `groupId` to the user's groups (already there: nothing changes);
   * refused when the user does not exist or already belongs to `maxGroups`.
   */
  addGroup(
    orgId: string,
    userId: string,
    groupId: string,
    maxGroups: number,
  ): Promise<JoinRefusal | undefined>;
  /** Removes `groupId` from the user's groups; `false` when the user was not in it (or is unknown). */
  removeGroup(orgId: string, userId: string, groupId: string): Promise<boolean>;
  /** The group's members, newest first. */
  listByGroup(orgId: string, groupId: string): Promise<User[]>;
  /** Records a sign-in (no event: it is not a change of the user's details). */
  recordLogin(orgId: string, id: string, at: string): Promise<void>;
  /** The invitation whose token hashes to `tokenHash`, if it was ever issued and is not yet deleted. */
  findInvitation(tokenHash: string): Promise<InvitationLookup | null>;
  /** Removes an accepted or replaced invitation's look-up. */
  deleteInvitation(tokenHash: string): Promise<void>;
}
