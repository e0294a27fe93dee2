import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { UploadedFile } from '../../domain/uploaded-file';
import type {
  UploadedFileChanges,
  UploadedFileRepository,
} from '../../ports/uploaded-file-repository.port';
import { isConditionFailure } from './document-client';
import { OrgPartitionItems } from './org-partition-items';
import { keys, TABLE_KEYS, withoutStorageAttributes } from './table-design';
import { updateExpressionFor } from './update-expression';

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
