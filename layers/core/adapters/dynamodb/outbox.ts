import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { DomainEvent } from '../../domain/events';
import type { Outbox, OutboxBatch } from '../../ports/outbox.port';
import { isConditionFailure } from './document-client';
import { keys, TABLE_KEYS } from './table-design';

interface ItemRef {
  readonly PK: string;
  readonly SK: string;
  readonly tombstone: boolean;
}

/** Turns a stored item with pending events into a batch (also used for DynamoDB stream images). */
export function outboxBatchOf(item: Record<string, unknown>): OutboxBatch | null {
  const events = item.outbox as DomainEvent[] | undefined;
  if (!events || events.length === 0) return null;
  const ref: ItemRef = {
    PK: String(item.PK),
    SK: String(item.SK),
    tombstone: item.deleted_at !== undefined,
  };
  return { ref: JSON.stringify(ref), orgId: String(item.org_id), events };
}

/**
 * The outbox kept in the items themselves (see OrgPartitionItems): pending
 * items are found through the sparse GSI1 `OUTBOX#<n>` partitions, oldest
 * event first. Clearing is conditional on the outbox being exactly what was
 * published (same first event, same length), so events added meanwhile are
 * never dropped.
 */
export class DynamoDbOutbox implements Outbox {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async pending(limit: number): Promise<OutboxBatch[]> {
    const batches: OutboxBatch[] = [];
    for (let shard = 0; shard < keys.outboxShards && batches.length < limit; shard += 1) {
      const { Items = [] } = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: TABLE_KEYS.gsi1.indexName,
          KeyConditionExpression: 'GSI1PK = :partition',
          ExpressionAttributeValues: { ':partition': keys.outboxPartition(shard) },
          Limit: limit - batches.length,
        }),
      );
      for (const item of Items) {
        const batch = outboxBatchOf(item);
        if (batch) batches.push(batch);
      }
    }
    return batches;
  }

  async markPublished(batch: OutboxBatch): Promise<void> {
    const ref = JSON.parse(batch.ref) as ItemRef;
    const unchanged = {
      ConditionExpression: 'size(outbox) = :count AND GSI1SK = :first',
      ExpressionAttributeValues: { ':count': batch.events.length, ':first': batch.events[0]?.id },
    };
    try {
      if (ref.tombstone) {
        await this.client.send(
          new DeleteCommand({
            TableName: this.tableName,
            Key: { PK: ref.PK, SK: ref.SK },
            ...unchanged,
          }),
        );
      } else {
        await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: { PK: ref.PK, SK: ref.SK },
            UpdateExpression: 'REMOVE outbox, GSI1PK, GSI1SK',
            ...unchanged,
          }),
        );
      }
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
}
