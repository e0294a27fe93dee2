import { createHash } from 'node:crypto';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { DomainEvent } from '../../domain/events';
import { isConditionFailure } from './document-client';
import { queryAll } from './query-all';
import { keys, withoutStorageAttributes } from './table-design';
import { updateExpressionFor } from './update-expression';

/** A narrower query over one entity kind of an organization's partition. */
export interface PartitionQuery {
  readonly filterExpression?: string;
  readonly projection?: string;
  readonly names?: Record<string, string>;
  readonly values?: Record<string, unknown>;
}

/** How long a deleted entity's tombstone may outlive an outbox that was never published (TTL). */
const TOMBSTONE_TTL_SECONDS = 7 * 24 * 3600;

const LIVE = 'attribute_exists(PK) AND attribute_not_exists(deleted_at)';

/**
 * The outbox attributes a write adds: the events appended to the item's
 * `outbox` list, and the item entered in a sparse GSI1 partition so the
 * publisher finds it without a scan. GSI1SK keeps the first pending event's
 * id, which the publisher uses to tell whether the outbox changed.
 */
function outboxClauses(key: { PK: string; SK: string }, events: readonly DomainEvent[]) {
  if (events.length === 0) return { set: [] as string[], values: {} };
  const shard = createHash('sha256').update(`${key.PK}|${key.SK}`).digest()[0] ?? 0;
  return {
    set: [
      'outbox = list_append(if_not_exists(outbox, :noEvents), :events)',
      'GSI1PK = :outboxPartition',
      'GSI1SK = if_not_exists(GSI1SK, :firstEvent)',
    ],
    values: {
      ':noEvents': [],
      ':events': events,
      ':outboxPartition': keys.outboxPartition(shard % keys.outboxShards),
      ':firstEvent': events[0]?.id,
    },
  };
}

/**
 * One entity kind stored in its organization's partition (`PK = ORG#<org>`,
 * `SK = <prefix><id>`): the create, read, list, update and delete that agents,
 * data sources and webhooks share. Every call is scoped by organization,
 * every write touches one item, and a write carries the events it causes
 * (the outbox). A delete that has events leaves a tombstone until they are
 * published; reads never see tombstones.
 */
export class OrgPartitionItems<T extends { readonly id: string }> {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    /** Stored as `entity`, for people reading the table. */
    private readonly entity: string,
    /** Sort-key prefix, e.g. `AGENT#`. */
    private readonly prefix: string,
    /** Fills in fields that items written by earlier versions lack. */
    private readonly upgrade: (entity: T) => T = (entity) => entity,
  ) {}

  private key(orgId: string, id: string) {
    return { PK: keys.orgPartition(orgId), SK: `${this.prefix}${id}` };
  }

  toEntity(item: Record<string, unknown>): T {
    return this.upgrade(withoutStorageAttributes(item) as unknown as T);
  }

  /** `storage`: attributes kept beside the entity but never returned as part of it (e.g. sealed secrets). */
  async create(
    orgId: string,
    entity: T,
    events: readonly DomainEvent[] = [],
    storage: Record<string, unknown> = {},
  ): Promise<void> {
    const key = this.key(orgId, entity.id);
    const outbox =
      events.length > 0
        ? {
            outbox: events,
            GSI1PK: outboxClauses(key, events).values[':outboxPartition'],
            GSI1SK: events[0]?.id,
          }
        : {};
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...this.itemFor(orgId, entity, storage), ...outbox },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  }

  /** The item `create` writes for an entity without events (for writers that batch items). */
  itemFor(
    orgId: string,
    entity: T,
    storage: Record<string, unknown> = {},
  ): Record<string, unknown> {
    return {
      ...storage,
      ...this.key(orgId, entity.id),
      entity: this.entity,
      org_id: orgId,
      item_version: 1,
      ...entity,
    };
  }

  /** The raw stored item (storage attributes included), for adapters that keep more than the entity. */
  async getItem(orgId: string, id: string): Promise<Record<string, unknown> | null> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: this.key(orgId, id), ConsistentRead: true }),
    );
    return Item && Item.deleted_at === undefined ? Item : null;
  }

  async get(orgId: string, id: string): Promise<T | null> {
    const item = await this.getItem(orgId, id);
    return item ? this.toEntity(item) : null;
  }

  async getVersioned(orgId: string, id: string): Promise<{ entity: T; version: number } | null> {
    const item = await this.getItem(orgId, id);
    return item ? { entity: this.toEntity(item), version: Number(item.item_version ?? 0) } : null;
  }

  /** Every live item of this kind in the organization, newest first (ids are ULIDs). */
  async queryAll(orgId: string, query: PartitionQuery = {}): Promise<T[]> {
    const filter = query.filterExpression
      ? `attribute_not_exists(deleted_at) AND (${query.filterExpression})`
      : 'attribute_not_exists(deleted_at)';
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      FilterExpression: filter,
      ...(query.projection ? { ProjectionExpression: query.projection } : {}),
      ...(query.names ? { ExpressionAttributeNames: query.names } : {}),
      ExpressionAttributeValues: {
        ':pk': keys.orgPartition(orgId),
        ':prefix': this.prefix,
        ...query.values,
      },
      ScanIndexForward: false,
      ConsistentRead: true,
    });
    return items.map((item) => this.toEntity(item));
  }

  /**
   * Sets `changes` (and appends `events` to the outbox) atomically; with
   * `expectedVersion`, only if the item is still at that version. `null` when
   * the item is missing, deleted, or has changed since. `storage` sets and
   * removes attributes kept beside the entity (index keys) in the same write.
   */
  async update(
    orgId: string,
    id: string,
    changes: Record<string, unknown>,
    write: {
      readonly expectedVersion?: number;
      readonly events?: readonly DomainEvent[];
      readonly storage?: {
        readonly set?: Record<string, unknown>;
        readonly remove?: readonly string[];
      };
    } = {},
  ): Promise<T | null> {
    const key = this.key(orgId, id);
    const outbox = outboxClauses(key, write.events ?? []);
    // Items written before versions existed have none: they are version 0.
    const versionCheck =
      write.expectedVersion === undefined
        ? ''
        : write.expectedVersion === 0
          ? ' AND attribute_not_exists(item_version)'
          : ' AND item_version = :expectedVersion';
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          ...updateExpressionFor(
            { ...changes, ...write.storage?.set },
            {
              set: ['item_version = if_not_exists(item_version, :zero) + :one', ...outbox.set],
              values: {
                ':zero': 0,
                ':one': 1,
                ...outbox.values,
                ...(write.expectedVersion ? { ':expectedVersion': write.expectedVersion } : {}),
              },
              ...(write.storage?.remove ? { remove: write.storage.remove } : {}),
            },
          ),
          ConditionExpression: `${LIVE}${versionCheck}`,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes ? this.toEntity(Attributes) : null;
    } catch (error) {
      if (isConditionFailure(error)) return null;
      throw error;
    }
  }

  /**
   * Sets fields only when `condition` holds (besides the item being live);
   * `null` when the item is missing or the condition fails.
   */
  async updateIf(
    orgId: string,
    id: string,
    update: {
      expression: string;
      condition: string;
      values: Record<string, unknown>;
      names?: Record<string, string>;
      /** Appended to the outbox in the same write. */
      events?: readonly DomainEvent[];
    },
  ): Promise<T | null> {
    const key = this.key(orgId, id);
    const outbox = outboxClauses(key, update.events ?? []);
    const expression =
      outbox.set.length > 0 ? `${update.expression}, ${outbox.set.join(', ')}` : update.expression;
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: expression,
          ConditionExpression: `${LIVE} AND (${update.condition})`,
          ExpressionAttributeValues: { ...update.values, ...outbox.values },
          ...(update.names ? { ExpressionAttributeNames: update.names } : {}),
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes ? this.toEntity(Attributes) : null;
    } catch (error) {
      if (isConditionFailure(error)) return null;
      throw error;
    }
  }

  /**
   * `false` when there was no such item. With events, the item becomes a
   * tombstone holding them until the publisher has sent them, then goes.
   */
  async delete(
    orgId: string,
    id: string,
    events: readonly DomainEvent[] = [],
    now = Date.now(),
  ): Promise<boolean> {
    const key = this.key(orgId, id);
    try {
      if (events.length === 0) {
        await this.client.send(
          new DeleteCommand({ TableName: this.tableName, Key: key, ConditionExpression: LIVE }),
        );
        return true;
      }
      const outbox = outboxClauses(key, events);
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: `SET deleted_at = :now, expires_at = :expires, ${outbox.set.join(', ')}`,
          ConditionExpression: LIVE,
          ExpressionAttributeValues: {
            ':now': new Date(now).toISOString(),
            ':expires': Math.floor(now / 1000) + TOMBSTONE_TTL_SECONDS,
            ...outbox.values,
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}
