import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { DomainEvent } from '../../domain/events';
import { type Page, type PageRequest, pageOf } from '../../domain/pagination';
import { normalizeEmail, type User, type UserChanges } from '../../domain/user';
import type {
  EmailTaken,
  InvitationLookup,
  InvitationRecord,
  JoinRefusal,
  UserCredentials,
  UserRepository,
  UserWithCredentials,
  UserWithGroups,
} from '../../ports/user-repository.port';
import { isConditionFailure } from './document-client';
import { OrgPartitionItems } from './org-partition-items';
import { keys } from './table-design';

/**
 * How old a claim on an email must be before it may be taken from a user
 * that does not hold that email (P60): far longer than any function runs
 * between claiming an email and writing its user, so a claim is only ever
 * reclaimed from a writer that died in between.
 */
export const ORPHAN_CLAIM_GRACE_MS = 10 * 60 * 1000;

/** The user's fields, and nothing stored beside them (hashes, normalized email). */
function userOf(item: Record<string, unknown>): User {
  return {
    id: String(item.id),
    email: String(item.email),
    name: String(item.name),
    role: item.role as User['role'],
    status: item.status as User['status'],
    created_at: String(item.created_at),
    updated_at: String(item.updated_at),
    last_login_at: typeof item.last_login_at === 'string' ? item.last_login_at : null,
  };
}

/** The ids of the user's groups, a string set on the user item (absent when none). */
function groupIdsOf(item: Record<string, unknown>): string[] {
  const stored = item.group_ids;
  return stored instanceof Set ? [...stored].map(String).sort() : [];
}

function credentialsOf(item: Record<string, unknown>): UserCredentials {
  const invitationHash = item.invitation_hash;
  return {
    passwordHash: typeof item.password_hash === 'string' ? item.password_hash : null,
    invitation:
      typeof invitationHash === 'string'
        ? { tokenHash: invitationHash, expiresAt: Number(item.invitation_expires_at) }
        : null,
  };
}

/**
 * Users in their organization's partition (`USER#<usr>`), with the email
 * uniqueness of P60 kept by claim items (`USEREMAIL#<email>` / `ORG#<org>`).
 *
 * dynalite has no transactions and every write touches one item, so a
 * create is two ordered conditional writes:
 *
 *   1. claim the email: put the claim only if none exists   ← the atomic step
 *   2. put the user, with its `user.created` event
 *
 * Only the writer whose claim succeeded writes a user with that email, so
 * two users of one organization can never share one. A writer that dies
 * between the steps leaves a claim whose user never came; such a claim (its
 * user missing, or holding another email) is taken over once it is older
 * than `ORPHAN_CLAIM_GRACE_MS`. An email change claims the new email before
 * the user's conditional update and releases the old one after it.
 */
export class DynamoDbUserRepository implements UserRepository {
  private readonly items: OrgPartitionItems<User>;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    this.items = new OrgPartitionItems<User>(client, tableName, 'user', keys.userPrefix, (entity) =>
      userOf(entity as unknown as Record<string, unknown>),
    );
  }

  async create(
    orgId: string,
    user: User,
    write: {
      readonly passwordHash?: string | null;
      readonly invitation?: InvitationRecord | null;
      readonly events: readonly DomainEvent[];
      readonly now: number;
    },
  ): Promise<EmailTaken | undefined> {
    const email = normalizeEmail(user.email);
    if (!(await this.claimEmail(orgId, email, user.id, write.now))) return 'email_taken';
    const invitation = write.invitation ?? null;
    if (invitation) await this.putInvitation(orgId, user.id, invitation);
    await this.items.create(orgId, user, write.events, {
      email_normalized: email,
      ...(write.passwordHash ? { password_hash: write.passwordHash } : {}),
      ...(invitation
        ? { invitation_hash: invitation.tokenHash, invitation_expires_at: invitation.expiresAt }
        : {}),
    });
    return undefined;
  }

  get(orgId: string, id: string): Promise<User | null> {
    return this.items.get(orgId, id);
  }

  async getWithCredentials(orgId: string, id: string): Promise<UserWithCredentials | null> {
    const item = await this.items.getItem(orgId, id);
    if (!item) return null;
    return {
      orgId,
      user: userOf(item),
      version: Number(item.item_version ?? 0),
      credentials: credentialsOf(item),
    };
  }

  async getWithGroups(orgId: string, id: string): Promise<UserWithGroups | null> {
    const item = await this.items.getItem(orgId, id);
    if (!item) return null;
    const validFrom = item.sessions_valid_from_ms;
    return {
      user: userOf(item),
      groupIds: groupIdsOf(item),
      sessionsValidFrom: typeof validFrom === 'number' ? validFrom : null,
    };
  }

  /**
   * One conditional `ADD` to the user's `group_ids` set: atomic, and the
   * size bound holds under concurrency (a set already holding the id is left
   * as it is). Touches neither the user's version nor its fields.
   */
  async addGroup(
    orgId: string,
    userId: string,
    groupId: string,
    maxGroups: number,
  ): Promise<JoinRefusal | undefined> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { PK: keys.orgPartition(orgId), SK: `${keys.userPrefix}${userId}` },
          UpdateExpression: 'ADD group_ids :group',
          ConditionExpression:
            'attribute_exists(PK) AND (attribute_not_exists(group_ids) OR size(group_ids) < :max OR contains(group_ids, :id))',
          ExpressionAttributeValues: {
            ':group': new Set([groupId]),
            ':max': maxGroups,
            ':id': groupId,
          },
        }),
      );
      return undefined;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    return (await this.items.getItem(orgId, userId)) ? 'too_many_groups' : 'no_user';
  }

  async removeGroup(orgId: string, userId: string, groupId: string): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { PK: keys.orgPartition(orgId), SK: `${keys.userPrefix}${userId}` },
          UpdateExpression: 'DELETE group_ids :group',
          ConditionExpression: 'attribute_exists(PK) AND contains(group_ids, :id)',
          ExpressionAttributeValues: { ':group': new Set([groupId]), ':id': groupId },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  listByGroup(orgId: string, groupId: string): Promise<User[]> {
    return this.items.queryAll(orgId, {
      filterExpression: 'contains(group_ids, :group)',
      values: { ':group': groupId },
    });
  }

  async list(orgId: string, page: PageRequest): Promise<Page<User>> {
    return pageOf(await this.items.queryAll(orgId), page);
  }

  async findByEmail(normalizedEmail: string, orgId?: string): Promise<UserWithCredentials[]> {
    const { Items = [] } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: orgId ? 'PK = :pk AND SK = :sk' : 'PK = :pk',
        ExpressionAttributeValues: {
          ':pk': keys.userEmailPartition(normalizedEmail),
          ...(orgId ? { ':sk': keys.userEmail(normalizedEmail, orgId).SK } : {}),
        },
        ConsistentRead: true,
        // One email in more organizations than this is not a person signing in.
        Limit: 20,
      }),
    );
    const found = await Promise.all(
      Items.map(async (claim) => {
        const claimOrg = String(claim.org_id);
        const item = await this.items.getItem(claimOrg, String(claim.user_id));
        // A claim whose user holds another email (an unfinished change) is not a match.
        if (!item || item.email_normalized !== normalizedEmail) return null;
        return {
          orgId: claimOrg,
          user: userOf(item),
          version: Number(item.item_version ?? 0),
          credentials: credentialsOf(item),
        };
      }),
    );
    return found.filter((entry): entry is UserWithCredentials => entry !== null);
  }

  async update(
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
  ): Promise<User | null | EmailTaken> {
    const current = await this.items.getItem(orgId, id);
    if (!current) return null;
    const oldEmail = String(current.email_normalized ?? normalizeEmail(String(current.email)));
    const newEmail = changes.email === undefined ? oldEmail : normalizeEmail(changes.email);
    const emailChanges = newEmail !== oldEmail;
    if (emailChanges && !(await this.claimEmail(orgId, newEmail, id, write.now))) {
      return 'email_taken';
    }
    const set: Record<string, unknown> = {};
    const remove: string[] = [];
    if (emailChanges) set.email_normalized = newEmail;
    if (write.sessionsValidFrom !== undefined) set.sessions_valid_from_ms = write.sessionsValidFrom;
    const credentials = write.credentials ?? {};
    if (credentials.passwordHash !== undefined) {
      if (credentials.passwordHash === null) remove.push('password_hash');
      else set.password_hash = credentials.passwordHash;
    }
    if (credentials.invitation !== undefined) {
      if (credentials.invitation === null) remove.push('invitation_hash', 'invitation_expires_at');
      else {
        await this.putInvitation(orgId, id, credentials.invitation);
        set.invitation_hash = credentials.invitation.tokenHash;
        set.invitation_expires_at = credentials.invitation.expiresAt;
      }
    }
    const updated = await this.items.update(orgId, id, changes, {
      expectedVersion: write.expectedVersion,
      events: write.events,
      storage: { set, ...(remove.length > 0 ? { remove } : {}) },
    });
    if (emailChanges) {
      // The claim the user no longer needs: the new one if the write lost, else the old one.
      await this.releaseEmail(orgId, updated ? oldEmail : newEmail, id);
    }
    return updated;
  }

  /**
   * A conditional `SET` outside the user's version, as `recordLogin`:
   * an administrator's "sign out everywhere" must not fail because the user
   * changed meanwhile. The cutoff only moves forward.
   */
  async endSessions(orgId: string, id: string, at: number): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { PK: keys.orgPartition(orgId), SK: `${keys.userPrefix}${id}` },
          UpdateExpression: 'SET sessions_valid_from_ms = :at',
          ConditionExpression:
            'attribute_exists(PK) AND (attribute_not_exists(sessions_valid_from_ms) OR sessions_valid_from_ms < :at)',
          ExpressionAttributeValues: { ':at': at },
        }),
      );
      return true;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    // Refused: no such user, or a later cutoff already there (which ends as much).
    return (await this.items.getItem(orgId, id)) !== null;
  }

  async recordLogin(orgId: string, id: string, at: string): Promise<void> {
    await this.items.updateIf(orgId, id, {
      expression: 'SET last_login_at = :at',
      condition: 'attribute_exists(id)',
      values: { ':at': at },
    });
  }

  async findInvitation(tokenHash: string): Promise<InvitationLookup | null> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.invitation(tokenHash),
        ConsistentRead: true,
      }),
    );
    if (!Item) return null;
    return {
      orgId: String(Item.org_id),
      userId: String(Item.user_id),
      expiresAt: Number(Item.expires_at_ms),
    };
  }

  async deleteInvitation(tokenHash: string): Promise<void> {
    await this.client.send(
      new DeleteCommand({ TableName: this.tableName, Key: keys.invitation(tokenHash) }),
    );
  }

  private async putInvitation(
    orgId: string,
    userId: string,
    invitation: InvitationRecord,
  ): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keys.invitation(invitation.tokenHash),
          entity: 'invitation',
          org_id: orgId,
          user_id: userId,
          expires_at_ms: invitation.expiresAt,
          // TTL: the look-up goes a day after the invitation can no longer be accepted.
          expires_at: Math.ceil(invitation.expiresAt / 1000) + 24 * 3600,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  }

  /**
   * Claims `email` in `orgId` for `userId`: true when the claim is (now) the
   * user's. A claim held for another user is taken over only when orphaned
   * (that user missing, or holding another email) and older than the grace.
   */
  private async claimEmail(
    orgId: string,
    email: string,
    userId: string,
    now: number,
  ): Promise<boolean> {
    const key = keys.userEmail(email, orgId);
    const claim = {
      ...key,
      entity: 'user_email',
      org_id: orgId,
      user_id: userId,
      claimed_at: now,
    };
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: claim,
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
      return true;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    const { Item: existing } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
    );
    if (!existing) return this.claimEmail(orgId, email, userId, now);
    if (existing.user_id === userId) return true;
    if (now - Number(existing.claimed_at) < ORPHAN_CLAIM_GRACE_MS) return false;
    const holder = await this.items.getItem(orgId, String(existing.user_id));
    if (holder && holder.email_normalized === email) return false;
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: claim,
          ConditionExpression: 'user_id = :holder AND claimed_at = :claimedAt',
          ExpressionAttributeValues: {
            ':holder': existing.user_id,
            ':claimedAt': existing.claimed_at,
          },
        }),
      );
      return true;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return false;
    }
  }

  /** Deletes the claim on `email` if `userId` holds it. */
  private async releaseEmail(orgId: string, email: string, userId: string): Promise<void> {
    try {
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: keys.userEmail(email, orgId),
          ConditionExpression: 'user_id = :user',
          ExpressionAttributeValues: { ':user': userId },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
}
