import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  admitCeiling,
  admittedState,
  type BucketPolicy,
  type BucketState,
  emissionInterval,
  refusedState,
} from '../../domain/gcra';
import type { PlanQuota, RateLimiter, WindowCount } from '../../ports/rate-limiter.port';
import { isConditionFailure } from './document-client';
import { keys } from './table-design';

type Branch = 'idle' | 'busy';

/** More tries than this means the bucket is changing under heavy contention; treat as refused. */
const MAX_ATTEMPTS = 5;

/**
 * GCRA buckets, one item each, in one conditional `UpdateItem` per request
 * (ARCHITECTURE.md). DynamoDB cannot compute `max(tat, now)`, so there are two
 * conditional branches, each atomic:
 *
 *   idle  (tat <= now, or no item):  tat := now + interval
 *   busy  (now < tat <= ceiling):    tat := tat + interval
 *   full  (tat > ceiling):           refused, nothing written
 *
 * The branch is guessed from the TAT this process saw last. A wrong guess
 * costs a second call: DynamoDB returns the current item with the condition
 * failure (`ReturnValuesOnConditionCheckFailure`); stores that do not
 * (dynalite) are read once instead. Concurrent requests can never both take
 * the last token, since each write is conditional on the value it replaces.
 */
export class DynamoDbRateLimiter implements RateLimiter {
  private readonly lastSeenTat = new Map<string, number>();

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async take(bucketId: string, policy: BucketPolicy, now: number): Promise<BucketState> {
    const ceiling = admitCeiling(policy, now);
    const seen = this.lastSeenTat.get(bucketId);
    let branch: Branch = seen !== undefined && seen > now ? 'busy' : 'idle';
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      const outcome = await this.tryBranch(bucketId, policy, now, branch);
      if (outcome.admitted) {
        this.remember(bucketId, outcome.tat);
        return admittedState(policy, now, outcome.tat);
      }
      const tat = outcome.currentTat ?? (await this.readTat(bucketId));
      if (tat !== undefined) this.remember(bucketId, tat);
      if (tat !== undefined && tat > ceiling) return refusedState(policy, now, tat);
      branch = tat !== undefined && tat > now ? 'busy' : 'idle';
    }
    return refusedState(policy, now, ceiling + emissionInterval(policy));
  }

  async refund(bucketId: string, policy: BucketPolicy): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.scopeBucket(bucketId),
          UpdateExpression: 'SET tat = tat - :interval',
          ConditionExpression: 'attribute_exists(tat)',
          ExpressionAttributeValues: { ':interval': emissionInterval(policy) },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  private async tryBranch(
    bucketId: string,
    policy: BucketPolicy,
    now: number,
    branch: Branch,
  ): Promise<
    { admitted: true; tat: number } | { admitted: false; currentTat: number | undefined }
  > {
    const interval = emissionInterval(policy);
    // The bucket is full again (the item redundant) once TAT has passed.
    const expiresAt = Math.ceil((now + policy.burst * interval) / 1000) + 60;
    const input =
      branch === 'idle'
        ? {
            UpdateExpression: 'SET tat = :next, expires_at = :exp',
            ConditionExpression: 'attribute_not_exists(tat) OR tat <= :now',
            ExpressionAttributeValues: { ':next': now + interval, ':now': now, ':exp': expiresAt },
          }
        : {
            UpdateExpression: 'SET tat = tat + :interval, expires_at = :exp',
            ConditionExpression: 'tat > :now AND tat <= :ceiling',
            ExpressionAttributeValues: {
              ':interval': interval,
              ':now': now,
              ':ceiling': admitCeiling(policy, now),
              ':exp': expiresAt,
            },
          };
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.scopeBucket(bucketId),
          ...input,
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { admitted: true, tat: Number(Attributes?.tat) };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const item = (error as { Item?: Record<string, { N?: string }> }).Item;
      const tat = item?.tat?.N;
      return { admitted: false, currentTat: tat === undefined ? undefined : Number(tat) };
    }
  }

  private async readTat(bucketId: string): Promise<number | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.scopeBucket(bucketId),
        ConsistentRead: true,
      }),
    );
    return Item?.tat === undefined ? undefined : Number(Item.tat);
  }

  private remember(bucketId: string, tat: number): void {
    // Bounded: a warm Lambda serves few keys; a long-running local server many.
    if (this.lastSeenTat.size > 10_000) this.lastSeenTat.clear();
    this.lastSeenTat.set(bucketId, tat);
  }
}

/**
 * Plan requests/minute: a fixed one-minute window per organization,
 * counted with one conditional `ADD` that refuses past the limit.
 */
export class DynamoDbPlanQuota implements PlanQuota {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async countRequest(orgId: string, perMinute: number, now: number): Promise<WindowCount> {
    const minute = Math.floor(now / 60_000);
    const resetAt = (minute + 1) * 60_000;
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.planWindow(orgId, minute),
          UpdateExpression: 'ADD n :one SET expires_at = :exp',
          ConditionExpression: 'attribute_not_exists(n) OR n < :limit',
          ExpressionAttributeValues: {
            ':one': 1,
            ':limit': perMinute,
            ':exp': resetAt / 1000 + 3600,
          },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return { allowed: true, limit: perMinute, used: Number(Attributes?.n), resetAt };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return { allowed: false, limit: perMinute, used: perMinute, resetAt };
    }
  }

  async refundRequest(orgId: string, at: number): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.planWindow(orgId, Math.floor(at / 60_000)),
          UpdateExpression: 'ADD n :minusOne',
          ConditionExpression: 'n > :zero',
          ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
}
