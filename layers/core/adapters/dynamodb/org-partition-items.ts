import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
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

/**
 * One entity kind stored in its organization's partition (`PK = ORG#<org>`,
 * `SK = <prefix><id>`): the create, read, list, update and delete that agents
 * and data sources share. Every call is scoped by organization, every write
 * touches one item, and a write to an item that does not exist fails its
 * condition instead of creating it.
 */
export class OrgPartitionItems<T extends { readonly id: string }> {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    /** Stored as `entity`, for people reading the table. */
    private readonly entity: string,
    /** Sort-key prefix, e.g. `AGENT#`. */
    private readonly prefix: string,
  ) {}

  private key(orgId: string, id: string) {
    return { PK: keys.orgPartition(orgId), SK: `${this.prefix}${id}` };
  }

  private toEntity(item: Record<string, unknown>): T {
    return withoutStorageAttributes(item) as unknown as T;
  }

  async create(orgId: string, entity: T): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...this.key(orgId, entity.id), entity: this.entity, org_id: orgId, ...entity },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  }

  async get(orgId: string, id: string): Promise<T | null> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: this.key(orgId, id), ConsistentRead: true }),
    );
    return Item ? this.toEntity(Item) : null;
  }

  /** Every item of this kind in the organization, newest first (ids are ULIDs). */
  async queryAll(orgId: string, query: PartitionQuery = {}): Promise<T[]> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ...(query.filterExpression ? { FilterExpression: query.filterExpression } : {}),
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

  /** Applies `changes` atomically; `null` when there is no such item. */
  async update(orgId: string, id: string, changes: Record<string, unknown>): Promise<T | null> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: this.key(orgId, id),
          ...updateExpressionFor(changes),
          ConditionExpression: 'attribute_exists(PK)',
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
   * Sets fields only when `condition` holds (besides the item existing);
   * `null` when the item is missing or the condition fails.
   */
  async updateIf(
    orgId: string,
    id: string,
    update: { expression: string; condition: string; values: Record<string, unknown> },
  ): Promise<T | null> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: this.key(orgId, id),
          UpdateExpression: update.expression,
          ConditionExpression: `attribute_exists(PK) AND (${update.condition})`,
          ExpressionAttributeValues: update.values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes ? this.toEntity(Attributes) : null;
    } catch (error) {
      if (isConditionFailure(error)) return null;
      throw error;
    }
  }

  /** `false` when there was no such item. */
  async delete(orgId: string, id: string): Promise<boolean> {
    try {
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: this.key(orgId, id),
          ConditionExpression: 'attribute_exists(PK)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}
