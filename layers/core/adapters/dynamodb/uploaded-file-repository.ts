import {
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { UploadedFile } from '../../domain/uploaded-file';
import type {
  UploadedFileChanges,
  UploadedFileRepository,
} from '../../ports/uploaded-file-repository.port';
import { isConditionFailure } from './document-client';
import { OrgPartitionItems } from './org-partition-items';
import { keys, TABLE_KEYS, withoutStorageAttributes } from './table-design';
import { updateExpressionFor } from './update-expression';

/** BatchWriteItem takes at most 25 requests a call. */
const BATCH_WRITE_MAX = 25;
/** Calls of one batch while DynamoDB leaves some of it unprocessed (backing off 50 ms, 100 ms, …). */
const UNPROCESSED_ATTEMPTS = 6;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Uploaded-file records under their organization's partition, sorted by data
 * source (`FILE#<ds>#<doc>`), so one data source's files are one query.
 */
export class DynamoDbUploadedFileRepository implements UploadedFileRepository {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  private items(dataSourceId: string): OrgPartitionItems<UploadedFile> {
    return new OrgPartitionItems<UploadedFile>(
      this.client,
      this.tableName,
      'uploaded_file',
      keys.uploadedFilePrefix(dataSourceId),
    );
  }

  create(orgId: string, file: UploadedFile, expiresAtSeconds: number): Promise<void> {
    return this.items(file.data_source_id).create(orgId, file, [], {
      expires_at: expiresAtSeconds,
    });
  }

  /**
   * BatchWriteItem, 25 records a call, with compensation: when a call
   * fails (after the SDK's retries, and after its unprocessed items were sent
   * again), everything this call wrote is deleted before the error is
   * rethrown. Not TransactWriteItems: dynalite, the local runtime's DynamoDB,
   * does not implement it, and one code path serves both. The ids are new
   * (ULIDs), so the puts need no condition; a record whose deletion failed
   * too is only an `awaiting_upload` record without a ticket: nothing can
   * upload to it, and it expires like any unused record (TTL).
   */
  async createAll(
    orgId: string,
    files: readonly UploadedFile[],
    expiresAtSeconds: number,
  ): Promise<void> {
    try {
      for (let start = 0; start < files.length; start += BATCH_WRITE_MAX) {
        const part = files.slice(start, start + BATCH_WRITE_MAX);
        await this.#batchWrite(
          part.map((file) => ({
            PutRequest: {
              Item: {
                ...this.items(file.data_source_id).itemFor(orgId, file),
                expires_at: expiresAtSeconds,
              },
            },
          })),
        );
      }
    } catch (error) {
      await this.#deleteAll(orgId, files).catch(() => undefined);
      throw error;
    }
  }

  /** Removes records by key, whether or not they were written (a delete of nothing succeeds). */
  async #deleteAll(orgId: string, files: readonly UploadedFile[]): Promise<void> {
    for (let start = 0; start < files.length; start += BATCH_WRITE_MAX) {
      await this.#batchWrite(
        files.slice(start, start + BATCH_WRITE_MAX).map((file) => ({
          DeleteRequest: {
            Key: {
              PK: keys.orgPartition(orgId),
              SK: `${keys.uploadedFilePrefix(file.data_source_id)}${file.id}`,
            },
          },
        })),
      );
    }
  }

  /** One BatchWriteItem call, its unprocessed requests (throttling) sent again until none are left. */
  async #batchWrite(requests: Record<string, unknown>[]): Promise<void> {
    let pending = requests;
    for (let attempt = 0; pending.length > 0; attempt += 1) {
      if (attempt >= UNPROCESSED_ATTEMPTS) {
        throw new Error(`DynamoDB left ${pending.length} writes unprocessed ${attempt} times`);
      }
      if (attempt > 0) await pause(2 ** attempt * 25);
      const { UnprocessedItems } = await this.client.send(
        new BatchWriteCommand({ RequestItems: { [this.tableName]: pending } }),
      );
      pending = (UnprocessedItems?.[this.tableName] ?? []) as Record<string, unknown>[];
    }
  }

  get(orgId: string, dataSourceId: string, id: string): Promise<UploadedFile | null> {
    return this.items(dataSourceId).get(orgId, id);
  }

  list(orgId: string, dataSourceId: string): Promise<UploadedFile[]> {
    return this.items(dataSourceId).queryAll(orgId);
  }

  async update(
    orgId: string,
    dataSourceId: string,
    id: string,
    changes: UploadedFileChanges,
  ): Promise<UploadedFile | null> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: {
            PK: keys.orgPartition(orgId),
            SK: `${keys.uploadedFilePrefix(dataSourceId)}${id}`,
          },
          // Once its upload has arrived, a record stays until it is deleted.
          ...updateExpressionFor(changes, { remove: [TABLE_KEYS.ttlAttribute] }),
          ConditionExpression: 'attribute_exists(PK)',
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes ? (withoutStorageAttributes(Attributes) as unknown as UploadedFile) : null;
    } catch (error) {
      if (isConditionFailure(error)) return null;
      throw error;
    }
  }

  delete(orgId: string, dataSourceId: string, id: string): Promise<boolean> {
    return this.items(dataSourceId).delete(orgId, id);
  }
}
