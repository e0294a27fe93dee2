import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import type { MessageQueue } from '../../ports/sync-job-queue.port';
import { isConditionFailure } from '../dynamodb/document-client';

/** The local queue table: one partition per queue, an LSI ordering messages by visibility. */
export const LOCAL_QUEUE_TABLE = {
  partitionKey: 'queue',
  sortKey: 'id',
  visibilityIndex: 'by-visibility',
  visibilityKey: 'visible_key',
} as const;

export interface LocalQueueOptions {
  /** Seconds a received message stays hidden unless deleted (SQS default 30). */
  readonly visibilityTimeoutSeconds?: number;
  /** Receives after which a message moves to the dead-letter queue (SQS redrive policy). */
  readonly maxReceiveCount?: number;
  readonly deadLetterQueue?: string;
  readonly now?: () => number;
}

export interface ReceivedMessage<T> {
  readonly messageId: string;
  readonly body: T;
  readonly receiptHandle: string;
  /** SQS `ApproximateReceiveCount`: 1 on the first receive. */
  readonly receiveCount: number;
  readonly sentAt: number;
}

const DEFAULTS = { visibilityTimeoutSeconds: 30, maxReceiveCount: 5 } as const;

/** Visibility time as a sortable string; the id breaks ties. */
const visibleKey = (at: number, id: string) => `${String(at).padStart(15, '0')}#${id}`;

/**
 * SQS semantics on one machine, persisted in the local DynamoDB so messages
 * survive restarts and any process (server, CLI, tests) can send. Like SQS:
 * delivery is at least once, a received message is hidden for the visibility
 * timeout and comes back if not deleted, the receive count rises on every
 * receive, and a message received `maxReceiveCount` times goes to the
 * dead-letter queue. Each state change is one conditional write, so two
 * consumers never hold the same message at once.
 */
export class LocalQueue<T> implements MessageQueue<T> {
  private readonly options: Required<Omit<LocalQueueOptions, 'deadLetterQueue'>> &
    Pick<LocalQueueOptions, 'deadLetterQueue'>;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    readonly name: string,
    options: LocalQueueOptions = {},
  ) {
    this.options = {
      visibilityTimeoutSeconds:
        options.visibilityTimeoutSeconds ?? DEFAULTS.visibilityTimeoutSeconds,
      maxReceiveCount: options.maxReceiveCount ?? DEFAULTS.maxReceiveCount,
      deadLetterQueue: options.deadLetterQueue,
      now: options.now ?? Date.now,
    };
  }

  async send(message: T, options: { delaySeconds?: number } = {}): Promise<void> {
    await this.put(JSON.stringify(message), options.delaySeconds ?? 0, this.name);
  }

  /** Receives up to `max` visible messages, hiding each for the visibility timeout. */
  async receive(max = 10, visibilityTimeoutSeconds?: number): Promise<ReceivedMessage<T>[]> {
    const now = this.options.now();
    const { Items = [] } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: LOCAL_QUEUE_TABLE.visibilityIndex,
        KeyConditionExpression: '#q = :q AND visible_key <= :now',
        ExpressionAttributeNames: { '#q': 'queue' },
        ExpressionAttributeValues: { ':q': this.name, ':now': visibleKey(now, '~') },
        Limit: max,
      }),
    );
    const received: ReceivedMessage<T>[] = [];
    for (const item of Items) {
      const message = await this.claim(item, now, visibilityTimeoutSeconds);
      if (message) received.push(message);
    }
    return received;
  }

  /** Acknowledges a message; a stale receipt (the message was received again since) is ignored, as in SQS. */
  async delete(receiptHandle: string): Promise<void> {
    const [id] = receiptHandle.split('/');
    if (!id) return;
    try {
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { queue: this.name, id },
          ConditionExpression: 'receipt = :r',
          ExpressionAttributeValues: { ':r': receiptHandle },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  /**
   * Makes every received, undeleted message visible now, keeping its receive
   * count: for a queue with one consumer, at that consumer's start, when
   * such a message can only have been held by a run that died (issue 14).
   * Delayed messages that were never received, and messages a consumer put
   * off with `changeVisibility` (a webhook retry waiting for its time),
   * are left alone. Returns how many came back.
   */
  async releaseReceived(): Promise<number> {
    const now = this.options.now();
    let released = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: '#q = :q',
          FilterExpression:
            'attribute_exists(receipt) AND attribute_not_exists(put_off) AND visible_key > :now',
          ExpressionAttributeNames: { '#q': 'queue' },
          ExpressionAttributeValues: { ':q': this.name, ':now': visibleKey(now, '~') },
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) {
        const id = String(item.id);
        try {
          await this.client.send(
            new UpdateCommand({
              TableName: this.tableName,
              Key: { queue: this.name, id },
              UpdateExpression: 'SET visible_key = :v REMOVE receipt',
              ConditionExpression: 'receipt = :r',
              ExpressionAttributeValues: { ':v': visibleKey(now, id), ':r': item.receipt },
            }),
          );
          released += 1;
        } catch (error) {
          if (!isConditionFailure(error)) throw error;
        }
      }
      start = page.LastEvaluatedKey;
    } while (start);
    return released;
  }

  /**
   * Hides a received message for `seconds` from now (SQS `ChangeMessageVisibility`).
   * The message counts as put off by its consumer, not held by it, until it
   * is received again: `releaseReceived` leaves it for its time.
   */
  async changeVisibility(receiptHandle: string, seconds: number): Promise<void> {
    const [id] = receiptHandle.split('/');
    if (!id) return;
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { queue: this.name, id },
          UpdateExpression: 'SET visible_key = :v, put_off = :put_off',
          ConditionExpression: 'receipt = :r',
          ExpressionAttributeValues: {
            ':v': visibleKey(this.options.now() + seconds * 1000, id),
            ':r': receiptHandle,
            ':put_off': true,
          },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  private async put(body: string, delaySeconds: number, queue: string, receiveCount = 0) {
    const id = ulid();
    const now = this.options.now();
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          queue,
          id,
          body,
          visible_key: visibleKey(now + delaySeconds * 1000, id),
          receive_count: receiveCount,
          sent_at: now,
        },
      }),
    );
  }

  private async claim(
    item: Record<string, unknown>,
    now: number,
    visibilityTimeoutSeconds = this.options.visibilityTimeoutSeconds,
  ): Promise<ReceivedMessage<T> | null> {
    const id = String(item.id);
    const count = Number(item.receive_count);
    if (this.options.deadLetterQueue && count >= this.options.maxReceiveCount) {
      await this.moveToDeadLetterQueue(item);
      return null;
    }
    const receiptHandle = `${id}/${ulid()}`;
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { queue: this.name, id },
          UpdateExpression:
            'SET visible_key = :v, receipt = :r REMOVE put_off ADD receive_count :one',
          ConditionExpression: 'visible_key = :seen',
          ExpressionAttributeValues: {
            ':v': visibleKey(now + visibilityTimeoutSeconds * 1000, id),
            ':r': receiptHandle,
            ':one': 1,
            ':seen': item.visible_key,
          },
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) return null; // another consumer took it first
      throw error;
    }
    return {
      messageId: id,
      body: JSON.parse(String(item.body)) as T,
      receiptHandle,
      receiveCount: count + 1,
      sentAt: Number(item.sent_at),
    };
  }

  /** Copy first, then delete: a crash in between leaves a duplicate, never a loss. */
  private async moveToDeadLetterQueue(item: Record<string, unknown>): Promise<void> {
    const deadLetterQueue = this.options.deadLetterQueue;
    if (!deadLetterQueue) return;
    await this.put(String(item.body), 0, deadLetterQueue, Number(item.receive_count));
    try {
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { queue: this.name, id: item.id },
          ConditionExpression: 'visible_key = :seen',
          ExpressionAttributeValues: { ':seen': item.visible_key },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
}
