import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { SsoRepository, StoredSsoConfiguration, StoredSsoDomain } from '../../ports/sso.port';
import { isConditionFailure } from './document-client';
import { queryAll } from './query-all';
import { keys, withoutStorageAttributes } from './table-design';

/** D14: SSO configurations and domains in the organization's partition; domain claims beside them. */
export class DynamoDbSsoRepository implements SsoRepository {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async getConfiguration(orgId: string): Promise<StoredSsoConfiguration | null> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.ssoConfiguration(orgId),
        ConsistentRead: true,
      }),
    );
    if (!Item) return null;
    // `org_id` counts as a storage attribute elsewhere; here it is part of the configuration.
    return {
      ...withoutStorageAttributes(Item),
      org_id: orgId,
    } as unknown as StoredSsoConfiguration;
  }

  async putConfiguration(configuration: StoredSsoConfiguration): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keys.ssoConfiguration(configuration.org_id),
          entity: 'sso_configuration',
          ...configuration,
        },
      }),
    );
  }

  async deleteConfiguration(orgId: string): Promise<boolean> {
    const { Attributes } = await this.client.send(
      new DeleteCommand({
        TableName: this.tableName,
        Key: keys.ssoConfiguration(orgId),
        ReturnValues: 'ALL_OLD',
      }),
    );
    return Attributes !== undefined;
  }

  async listDomains(orgId: string): Promise<StoredSsoDomain[]> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: {
        ':pk': keys.orgPartition(orgId),
        ':prefix': keys.ssoDomainPrefix,
      },
      ConsistentRead: true,
    });
    return items.map((item) => withoutStorageAttributes(item) as unknown as StoredSsoDomain);
  }

  async getDomain(orgId: string, domain: string): Promise<StoredSsoDomain | null> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.ssoDomain(orgId, domain),
        ConsistentRead: true,
      }),
    );
    return Item ? (withoutStorageAttributes(Item) as unknown as StoredSsoDomain) : null;
  }

  async addDomain(orgId: string, domain: StoredSsoDomain): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...keys.ssoDomain(orgId, domain.domain), entity: 'sso_domain', ...domain },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /**
   * The claim first (P86): only the organization whose conditional put
   * succeeded (or that holds it already) marks its domain verified.
   */
  async markVerified(orgId: string, domain: string, at: string): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...keys.domainClaim(domain), entity: 'domain_claim', org_id: orgId, at },
          ConditionExpression: 'attribute_not_exists(PK) OR org_id = :org',
          ExpressionAttributeValues: { ':org': orgId },
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.ssoDomain(orgId, domain),
        UpdateExpression:
          'SET #status = :verified, verified_at = :at, checked_at = :at, last_error = :none',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':verified': 'verified', ':at': at, ':none': null },
      }),
    );
    return true;
  }

  async recordFailedCheck(orgId: string, domain: string, at: string, error: string): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.ssoDomain(orgId, domain),
          UpdateExpression: 'SET checked_at = :at, last_error = :error',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':at': at, ':error': error },
        }),
      );
    } catch (failure) {
      // Deleted meanwhile: nothing to record.
      if (!isConditionFailure(failure)) throw failure;
    }
  }

  async deleteDomain(orgId: string, domain: string): Promise<boolean> {
    const { Attributes } = await this.client.send(
      new DeleteCommand({
        TableName: this.tableName,
        Key: keys.ssoDomain(orgId, domain),
        ReturnValues: 'ALL_OLD',
      }),
    );
    try {
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: keys.domainClaim(domain),
          ConditionExpression: 'org_id = :org',
          ExpressionAttributeValues: { ':org': orgId },
        }),
      );
    } catch (error) {
      // Another organization's claim (or none) stays as it is.
      if (!isConditionFailure(error)) throw error;
    }
    return Attributes !== undefined;
  }

  async domainOwner(domain: string): Promise<string | null> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.domainClaim(domain),
        ConsistentRead: true,
      }),
    );
    return typeof Item?.org_id === 'string' ? Item.org_id : null;
  }
}
