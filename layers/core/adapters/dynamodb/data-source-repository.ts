import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { DataSource, DataSourceChanges, SyncJob } from '../../domain/data-source';
import { type Page, type PageRequest, pageOf } from '../../domain/pagination';
import type {
  DataSourceFilter,
  DataSourceRepository,
  SyncJobClaim,
} from '../../ports/data-source-repository.port';
import { isConditionFailure } from './document-client';
import { queryAll } from './query-all';
import { keys, withoutStorageAttributes } from './table-design';
import { updateExpressionFor } from './update-expression';

const toDataSource = (item: Record<string, unknown>) =>
  withoutStorageAttributes(item) as unknown as DataSource;

/** BatchGetItem takes at most 100 keys a call. */
const BATCH_GET_MAX = 100;

export class DynamoDbDataSourceRepository implements DataSourceRepository {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(orgId: string, source: DataSource): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keys.dataSource(orgId, source.id),
          entity: 'data_source',
          org_id: orgId,
          ...source,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  }

  async get(orgId: string, id: string): Promise<DataSource | null> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.dataSource(orgId, id),
        ConsistentRead: true,
      }),
    );
    return Item ? toDataSource(Item) : null;
  }

  async existingIds(orgId: string, ids: readonly string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (let start = 0; start < ids.length; start += BATCH_GET_MAX) {
      let pending: Record<string, unknown>[] | undefined = ids
        .slice(start, start + BATCH_GET_MAX)
        .map((id) => keys.dataSource(orgId, id));
      // Unprocessed keys are retried until none remain (throttling on DynamoDB).
      while (pending && pending.length > 0) {
        const result: BatchGetCommandOutput = await this.client.send(
          new BatchGetCommand({
            RequestItems: {
              [this.tableName]: { Keys: pending, ProjectionExpression: 'id', ConsistentRead: true },
            },
          }),
        );
        for (const item of result.Responses?.[this.tableName] ?? []) found.add(String(item.id));
        pending = result.UnprocessedKeys?.[this.tableName]?.Keys;
      }
    }
    return found;
  }

  /** Newest first, like every list. */
  async list(
    orgId: string,
    filter: DataSourceFilter,
    page: PageRequest,
  ): Promise<Page<DataSource>> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ...(filter.status
        ? {
            FilterExpression: '#status = :status',
            ExpressionAttributeNames: { '#status': 'status' },
          }
        : {}),
      ExpressionAttributeValues: {
        ':pk': keys.orgPartition(orgId),
        ':prefix': keys.dataSourcePrefix,
        ...(filter.status ? { ':status': filter.status } : {}),
      },
      ScanIndexForward: false,
      ConsistentRead: true,
    });
    return pageOf(items.map(toDataSource), page);
  }

  async update(
    orgId: string,
    id: string,
    changes: DataSourceChanges,
    updatedAt: string,
  ): Promise<DataSource | null> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.dataSource(orgId, id),
          ...updateExpressionFor({ ...changes, updated_at: updatedAt }),
          ConditionExpression: 'attribute_exists(PK)',
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes ? toDataSource(Attributes) : null;
    } catch (error) {
      if (isConditionFailure(error)) return null;
      throw error;
    }
  }

  async delete(orgId: string, id: string): Promise<boolean> {
    try {
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: keys.dataSource(orgId, id),
          ConditionExpression: 'attribute_exists(PK)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /**
   * D22 in one conditional write: the job becomes current only if there is
   * none. When the condition fails, the current job is read and returned; if
   * it finished in between, the claim is tried again.
   */
  async claimSyncJob(orgId: string, id: string, job: SyncJob): Promise<SyncJobClaim | null> {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        const { Attributes } = await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: keys.dataSource(orgId, id),
            UpdateExpression: 'SET current_job = :job',
            ConditionExpression:
              'attribute_exists(PK) AND (attribute_not_exists(current_job) OR current_job = :none)',
            ExpressionAttributeValues: { ':job': job, ':none': null },
            ReturnValues: 'ALL_NEW',
          }),
        );
        if (!Attributes) return null;
        return { job, created: true, dataSource: toDataSource(Attributes) };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
      const current = await this.get(orgId, id);
      if (!current) return null;
      if (current.current_job)
        return { job: current.current_job, created: false, dataSource: current };
    }
    throw new Error(`Could not claim a sync job for ${id}: the current job kept changing`);
  }
}
