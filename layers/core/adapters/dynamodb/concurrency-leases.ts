import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type {
  ConcurrencyLease,
  ConcurrencyLeases,
  LeaseGrant,
} from '../../ports/rate-limiter.port';
import { isConditionFailure } from './document-client';
import { keys } from './table-design';

/**
 * Each write that finds the set full and purges expired leases is followed by
 * another try; more than this means heavy contention: refused, as a full set is.
 */
const MAX_ATTEMPTS = 5;

/**
 * TTL only removes the item of an organization idle for a day: every lease in
 * it expired long before (a lease lasts at most a Lambda's 15 minutes).
 */
const IDLE_ITEM_TTL_S = 86_400;

/** A lease as stored: `<expiresAt>#<leaseId>`, so a read of the set tells which have expired. */
function entryOf(lease: ConcurrencyLease): string {
  return `${lease.expiresAt}#${lease.id}`;
}

function expiryOf(entry: string): number {
  return Number(entry.slice(0, entry.indexOf('#')));
}

/**
 * Concurrent requests per organization: one item per organization
 * holding a string set of leases, each `<expiresAt>#<leaseId>`.
 *
 *   acquire: ADD leases {mine}     if size(leases) < limit     (one UpdateItem)
 *   release: DELETE leases {mine}                               (one UpdateItem)
 *   full:    read the set, DELETE the expired entries, try again
 *
 * The condition counts every entry, expired ones too, so the unexpired
 * leases can never exceed the limit, whatever runs concurrently; and an
 * expired lease never refuses anyone, since a full set is purged of expired
 * entries before a request is refused. DELETE of an absent element does
 * nothing, so a purge racing a release, or a release after a purge, is
 * harmless. Correctness never depends on when TTL deletes anything.
 */
export class DynamoDbConcurrencyLeases implements ConcurrencyLeases {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async acquire(
    orgId: string,
    leaseId: string,
    limit: number,
    now: number,
    expiresAt: number,
  ): Promise<LeaseGrant> {
    const lease: ConcurrencyLease = { orgId, id: leaseId, expiresAt };
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      let held: readonly string[];
      try {
        await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: keys.planLeases(orgId),
            UpdateExpression: 'ADD leases :mine SET expires_at = :ttl',
            ConditionExpression: 'attribute_not_exists(leases) OR size(leases) < :limit',
            ExpressionAttributeValues: {
              ':mine': new Set([entryOf(lease)]),
              ':limit': limit,
              ':ttl': Math.ceil(expiresAt / 1000) + IDLE_ITEM_TTL_S,
            },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return { granted: true, lease };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        held = failedEntries(error) ?? (await this.read(orgId));
      }
      const expired = held.filter((entry) => expiryOf(entry) <= now);
      if (expired.length === 0 && held.length >= limit) return { granted: false };
      if (expired.length > 0) await this.purge(orgId, expired);
    }
    return { granted: false };
  }

  async release(lease: ConcurrencyLease): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.planLeases(lease.orgId),
          UpdateExpression: 'DELETE leases :mine',
          ConditionExpression: 'attribute_exists(leases)',
          ExpressionAttributeValues: { ':mine': new Set([entryOf(lease)]) },
        }),
      );
    } catch (error) {
      // No set at all: the lease was purged as expired, with every other one.
      if (!isConditionFailure(error)) throw error;
    }
  }

  private async purge(orgId: string, expired: readonly string[]): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.planLeases(orgId),
          UpdateExpression: 'DELETE leases :expired',
          ConditionExpression: 'attribute_exists(leases)',
          ExpressionAttributeValues: { ':expired': new Set(expired) },
        }),
      );
    } catch (error) {
      // Another request purged the last of them first.
      if (!isConditionFailure(error)) throw error;
    }
  }

  private async read(orgId: string): Promise<readonly string[]> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.planLeases(orgId),
        ConsistentRead: true,
      }),
    );
    const leases = Item?.leases;
    return leases instanceof Set ? [...(leases as Set<string>)] : [];
  }
}

/**
 * The set as it stood when the condition failed, which DynamoDB returns
 * (`ReturnValuesOnConditionCheckFailure`) in its low-level form; stores that
 * do not (dynalite) are read instead.
 */
function failedEntries(error: unknown): readonly string[] | undefined {
  const item = (error as { Item?: Record<string, { SS?: string[] }> }).Item;
  if (!item) return undefined;
  return item.leases?.SS ?? [];
}
