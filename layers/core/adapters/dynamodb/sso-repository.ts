import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type {
  DueDomainCheck,
  SsoRepository,
  StoredSsoConfiguration,
  StoredSsoDomain,
} from '../../ports/sso.port';
import { isConditionFailure } from './document-client';
import { queryAll } from './query-all';
import { keys, TABLE_KEYS, withoutStorageAttributes } from './table-design';

/** A domain item as the API shows it; items stored before P221 have no `unverified_at`. */
const domainOf = (item: Record<string, unknown>): StoredSsoDomain =>
  ({ unverified_at: null, ...withoutStorageAttributes(item) }) as unknown as StoredSsoDomain;

/** A claim's place in the re-check schedule (GSI2). */
const checkIndexKeys = (domain: string, nextCheckAt: string) => ({
  [TABLE_KEYS.gsi2.partitionKey]: keys.domainCheckPartition,
  [TABLE_KEYS.gsi2.sortKey]: keys.domainCheckSortKey(nextCheckAt, domain),
});

/** SSO configurations and domains in the organization's partition; domain claims beside them. */
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
    return items.map(domainOf);
  }

  async getDomain(orgId: string, domain: string): Promise<StoredSsoDomain | null> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.ssoDomain(orgId, domain),
        ConsistentRead: true,
      }),
    );
    return Item ? domainOf(Item) : null;
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
   * The claim first: only the organization whose conditional put
   * succeeded (or that holds it already) marks its domain verified. The
   * claim enters the re-check schedule.
   */
  async markVerified(
    orgId: string,
    domain: string,
    at: string,
    nextCheckAt: string,
  ): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...keys.domainClaim(domain),
            ...checkIndexKeys(domain, nextCheckAt),
            entity: 'domain_claim',
            org_id: orgId,
            at,
            next_check_at: nextCheckAt,
          },
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
          'SET #status = :verified, verified_at = :at, checked_at = :at, last_error = :none, unverified_at = :none',
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

  /** The due part of GSI2's re-check partition, page by page. */
  async listDueForCheck(now: string): Promise<DueDomainCheck[]> {
    const { gsi2 } = TABLE_KEYS;
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      IndexName: gsi2.indexName,
      KeyConditionExpression: '#pk = :partition AND #sk <= :due',
      ExpressionAttributeNames: { '#pk': gsi2.partitionKey, '#sk': gsi2.sortKey },
      ExpressionAttributeValues: {
        ':partition': keys.domainCheckPartition,
        ':due': keys.scheduleDueBound(now),
      },
    });
    return items.flatMap((item) => {
      const sortKey = String(item[gsi2.sortKey]);
      const domain = String(item.PK).slice(keys.ssoDomainPrefix.length);
      if (typeof item.org_id !== 'string' || !sortKey.includes('#')) return [];
      return [{ orgId: item.org_id, domain, nextCheckAt: sortKey.slice(0, sortKey.indexOf('#')) }];
    });
  }

  async moveNextCheck(due: DueDomainCheck, to: string): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.domainClaim(due.domain),
          UpdateExpression: 'SET next_check_at = :to, #sk = :sortKey',
          ConditionExpression: 'org_id = :org AND next_check_at = :from',
          ExpressionAttributeNames: { '#sk': TABLE_KEYS.gsi2.sortKey },
          ExpressionAttributeValues: {
            ':to': to,
            ':sortKey': keys.domainCheckSortKey(to, due.domain),
            ':org': due.orgId,
            ':from': due.nextCheckAt,
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async recordConfirmedCheck(orgId: string, domain: string, at: string): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.ssoDomain(orgId, domain),
          UpdateExpression: 'SET checked_at = :at, last_error = :none',
          ConditionExpression: '#status = :verified',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':at': at, ':none': null, ':verified': 'verified' },
        }),
      );
    } catch (error) {
      // Deleted or changed meanwhile: nothing to record.
      if (!isConditionFailure(error)) throw error;
    }
  }

  /** The domain item first, then the claim: a run that stops in between leaves a claim the next re-check releases. */
  async markUnverified(orgId: string, domain: string, at: string, reason: string): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.ssoDomain(orgId, domain),
          UpdateExpression:
            'SET #status = :unverified, unverified_at = :at, checked_at = :at, last_error = :reason',
          ConditionExpression: '#status = :verified',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':unverified': 'unverified',
            ':verified': 'verified',
            ':at': at,
            ':reason': reason,
          },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    await this.#releaseClaim(orgId, domain);
  }

  async deleteDomain(orgId: string, domain: string): Promise<boolean> {
    const { Attributes } = await this.client.send(
      new DeleteCommand({
        TableName: this.tableName,
        Key: keys.ssoDomain(orgId, domain),
        ReturnValues: 'ALL_OLD',
      }),
    );
    await this.#releaseClaim(orgId, domain);
    return Attributes !== undefined;
  }

  /** Deletes the organization's claim on `domain`; another organization's claim (or none) stays as it is. */
  async #releaseClaim(orgId: string, domain: string): Promise<void> {
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
      if (!isConditionFailure(error)) throw error;
    }
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
