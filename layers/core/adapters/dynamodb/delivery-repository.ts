import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { type Page, type PageRequest, pageOf } from '../../domain/pagination';
import type { Delivery, DeliveryAttempt, DeliveryStatus } from '../../domain/webhook';
import type {
  DeliveryRecords,
  DeliveryRepository,
  StoredDelivery,
} from '../../ports/webhook-repository.port';
import { isConditionFailure } from './document-client';
import { queryAll } from './query-all';
import { keys, withoutStorageAttributes } from './table-design';

/** Deliveries stay listable for this long after their last change (TTL). */
const DELIVERY_RETENTION_SECONDS = 30 * 24 * 3600;

/**
 * Deliveries in their organization's partition under their webhook
 * (`WHDLV#<wh>#<dlv>`), newest first. Each state change is one conditional
 * write on `status`, so two copies of a queue message can never both move a
 * delivery, and nothing is attempted after it ended.
 *
 * This class is what webhook management reads and writes of them:
 * list, get, mark queued, and reopen for a manual retry.
 */
export class DynamoDbDeliveryRecords implements DeliveryRecords {
  constructor(
    protected readonly client: DynamoDBDocumentClient,
    protected readonly tableName: string,
  ) {}

  protected key(orgId: string, webhookId: string, deliveryId: string) {
    return { PK: keys.orgPartition(orgId), SK: `${keys.deliveryPrefix(webhookId)}${deliveryId}` };
  }

  protected stored(item: Record<string, unknown>): StoredDelivery {
    const { body, queued, ...rest } = withoutStorageAttributes(item);
    // Deliveries stored before retries were recorded have no `retried_at`.
    const delivery = { retried_at: null, ...rest } as unknown as Delivery;
    return { delivery, body: String(body), queued: queued === true };
  }

  protected expiry(at: string): number {
    return Math.floor(Date.parse(at) / 1000) + DELIVERY_RETENTION_SECONDS;
  }

  async markQueued(orgId: string, webhookId: string, deliveryId: string): Promise<void> {
    await this.client
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: this.key(orgId, webhookId, deliveryId),
          UpdateExpression: 'SET queued = :yes',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':yes': true },
        }),
      )
      .catch((error: unknown) => {
        if (!isConditionFailure(error)) throw error;
      });
  }

  async get(orgId: string, webhookId: string, deliveryId: string): Promise<StoredDelivery | null> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: this.key(orgId, webhookId, deliveryId),
        ConsistentRead: true,
      }),
    );
    return Item ? this.stored(Item) : null;
  }

  async list(
    orgId: string,
    webhookId: string,
    filter: { status?: DeliveryStatus },
    page: PageRequest,
  ): Promise<Page<Delivery>> {
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
        ':prefix': keys.deliveryPrefix(webhookId),
        ...(filter.status ? { ':status': filter.status } : {}),
      },
      ScanIndexForward: false,
      ConsistentRead: true,
    });
    return pageOf(
      items.map((item) => this.stored(item).delivery),
      page,
    );
  }

  async reopen(
    orgId: string,
    webhookId: string,
    deliveryId: string,
    at: string,
  ): Promise<Delivery | null> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: this.key(orgId, webhookId, deliveryId),
          UpdateExpression:
            'SET #status = :pending, failure_reason = :none, next_attempt_at = :at, retried_at = :at, updated_at = :at, queued = :no, expires_at = :expires',
          // Anything that has not succeeded, except a delivery not yet tried at all
          // (its first attempt is on its way: a second message would only send it twice).
          ConditionExpression:
            '#status IN (:failed, :cancelled) OR (#status = :pending AND size(attempts) > :zero)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':pending': 'pending',
            ':failed': 'failed',
            ':cancelled': 'cancelled',
            ':zero': 0,
            ':none': null,
            ':at': at,
            ':no': false,
            ':expires': this.expiry(at),
          },
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) return null;
      throw error;
    }
    return (await this.get(orgId, webhookId, deliveryId))?.delivery ?? null;
  }
}

/**
 * The whole repository: what the management records do, plus creating a
 * delivery (the event publisher) and recording its attempts or ending it
 * (the dispatcher). The `webhooks` function carries only the records
 * (it is at its bundle ceiling).
 */
export class DynamoDbDeliveryRepository
  extends DynamoDbDeliveryRecords
  implements DeliveryRepository
{
  async createIfAbsent(orgId: string, delivery: Delivery, body: string) {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...this.key(orgId, delivery.webhook_id, delivery.id),
            entity: 'delivery',
            org_id: orgId,
            ...delivery,
            body,
            queued: false,
            expires_at: this.expiry(delivery.created_at),
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
      return { created: true, stored: { delivery, body, queued: false } };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    const existing = await this.get(orgId, delivery.webhook_id, delivery.id);
    if (!existing) throw new Error(`Delivery ${delivery.id} vanished while being created`);
    return { created: false, stored: existing };
  }

  async recordAttempt(
    orgId: string,
    webhookId: string,
    deliveryId: string,
    attempt: DeliveryAttempt,
    next: { status: DeliveryStatus; next_attempt_at: string | null; failure_reason: string | null },
  ): Promise<boolean> {
    return this.transition(orgId, webhookId, deliveryId, 'pending', {
      expression:
        'SET attempts = list_append(attempts, :attempt), #status = :status, next_attempt_at = :next, failure_reason = :reason, updated_at = :at, expires_at = :expires',
      values: {
        ':attempt': [attempt],
        ':status': next.status,
        ':next': next.next_attempt_at,
        ':reason': next.failure_reason,
        ':at': attempt.at,
        ':expires': this.expiry(attempt.at),
      },
    });
  }

  async cancel(
    orgId: string,
    webhookId: string,
    deliveryId: string,
    reason: string,
    at: string,
  ): Promise<void> {
    await this.transition(orgId, webhookId, deliveryId, 'pending', {
      expression:
        'SET #status = :status, failure_reason = :reason, next_attempt_at = :none, updated_at = :at',
      values: { ':status': 'cancelled', ':reason': reason, ':none': null, ':at': at },
    });
  }

  /** One conditional write from status `from`; `false` when the delivery is not (or no longer) there. */
  private async transition(
    orgId: string,
    webhookId: string,
    deliveryId: string,
    from: DeliveryStatus,
    update: { expression: string; values: Record<string, unknown> },
  ): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: this.key(orgId, webhookId, deliveryId),
          UpdateExpression: update.expression,
          ConditionExpression: '#status = :from',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ...update.values, ':from': from },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}
