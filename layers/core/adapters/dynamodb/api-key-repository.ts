import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { ApiKeyRecord } from '../../domain/api-key-record';
import type { ApiKeyRepository } from '../../ports/api-key-repository.port';
import { isConditionFailure } from './document-client';
import { queryAll } from './query-all';
import { keys, TABLE_KEYS } from './table-design';

/**
 * A key is one item addressed by its hash, so authentication is a single
 * strongly consistent read: a key works the moment it is created and stops
 * the moment it is revoked. The organization's listing goes through GSI1.
 */
export class DynamoDbApiKeyRepository implements ApiKeyRepository {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(record: ApiKeyRecord, keyHash: string): Promise<void> {
    // Never used yet: no `last_used_at` attribute at all, which recordUse's condition expects.
    const { last_used_at: _neverUsed, ...stored } = record;
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keys.apiKey(keyHash),
          ...keys.apiKeyIndex(record.org_id, record.id),
          entity: 'api_key',
          ...stored,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.apiKey(keyHash),
        ConsistentRead: true,
      }),
    );
    return Item ? toRecord(Item) : null;
  }

  async listByOrganization(orgId: string): Promise<ApiKeyRecord[]> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      IndexName: TABLE_KEYS.gsi1.indexName,
      KeyConditionExpression: 'GSI1PK = :pk AND begins_with(GSI1SK, :prefix)',
      ExpressionAttributeValues: { ':pk': `ORG#${orgId}`, ':prefix': 'APIKEY#' },
    });
    return items.map(toRecord);
  }

  async recordUse(keyHash: string, at: string, staleBefore: string): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.apiKey(keyHash),
          UpdateExpression: 'SET last_used_at = :at',
          // Never recreates a revoked key, and skips the write while the stamp is fresh.
          ConditionExpression:
            'attribute_exists(PK) AND (attribute_not_exists(last_used_at) OR last_used_at < :stale)',
          ExpressionAttributeValues: { ':at': at, ':stale': staleBefore },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  async revoke(orgId: string, keyId: string): Promise<boolean> {
    const [item] = await queryAll(this.client, {
      TableName: this.tableName,
      IndexName: TABLE_KEYS.gsi1.indexName,
      KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK = :sk',
      ExpressionAttributeValues: keyIndexValues(orgId, keyId),
    });
    if (!item) return false;
    try {
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { PK: item.PK, SK: item.SK },
          ConditionExpression: 'org_id = :org',
          ExpressionAttributeValues: { ':org': orgId },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}

function keyIndexValues(orgId: string, keyId: string) {
  const index = keys.apiKeyIndex(orgId, keyId);
  return { ':pk': index.GSI1PK, ':sk': index.GSI1SK };
}

/** The stored record, without storage attributes and without the hash. */
function toRecord(item: Record<string, unknown>): ApiKeyRecord {
  return {
    id: String(item.id),
    org_id: String(item.org_id),
    name: String(item.name),
    scopes: item.scopes as ApiKeyRecord['scopes'],
    environment: item.environment as ApiKeyRecord['environment'],
    last4: String(item.last4),
    created_at: String(item.created_at),
    last_used_at: typeof item.last_used_at === 'string' ? item.last_used_at : null,
  };
}
