import { type DomainEvent, envelopeFor, subscribedNameFor } from '../../domain/events';
import { type Delivery, deliveryIdFor } from '../../domain/webhook';
import { mayReceive, visibilityOf } from '../../domain/webhook-audience';
import type { Clock } from '../../ports/clock.port';
import type { Outbox, OutboxBatch } from '../../ports/outbox.port';
import type { MessageQueue } from '../../ports/sync-job-queue.port';
import type {
  DeliveryMessage,
  DeliveryRepository,
  WebhookRepository,
} from '../../ports/webhook-repository.port';
import { deliveryMessageFor } from './delivery-message';
import { type AudienceDependencies, audiences } from './webhook-audience';

export interface PublishDependencies extends AudienceDependencies {
  readonly webhooks: Pick<WebhookRepository, 'listReceiving'>;
  readonly deliveries: Pick<DeliveryRepository, 'createIfAbsent' | 'markQueued'>;
  readonly deliveryQueue: MessageQueue<DeliveryMessage>;
  readonly outbox: Outbox;
  readonly clock: Clock;
}

/**
 * Fans one outbox batch out: a delivery for every receiving webhook of the
 * organization subscribed to each event (event aliases: the delivery uses the
 * subscribed name), each put on the deliveries queue, then the batch is
 * cleared from its item. A webhook gets only the events its owner may
 * see now; an agent's events go to owners who may use that agent, each
 * owner's access read once for the batch, and only when an event needs it.
 *
 * Crash-safe by construction: delivery ids derive from (webhook, event), so
 * publishing a batch again finds the deliveries already made and only sends
 * the queue messages a crash kept from being sent. Returns the deliveries made.
 */
export async function publishBatch(deps: PublishDependencies, batch: OutboxBatch): Promise<number> {
  const receiving = await deps.webhooks.listReceiving(batch.orgId);
  const audienceOf = audiences(deps, batch.orgId);
  let made = 0;
  for (const event of batch.events) {
    const visibility = visibilityOf(event.type, event.data);
    for (const webhook of receiving) {
      const name = subscribedNameFor(webhook.events, event.type);
      if (!name) continue;
      if (visibility.kind !== 'members' && !mayReceive(await audienceOf(webhook.owner), visibility))
        continue;
      made += await deliver(deps, batch.orgId, webhook.id, event, name);
    }
  }
  await deps.outbox.markPublished(batch);
  return made;
}

async function deliver(
  deps: PublishDependencies,
  orgId: string,
  webhookId: string,
  event: DomainEvent,
  name: string,
): Promise<number> {
  const now = deps.clock.now().toISOString();
  const delivery: Delivery = {
    id: deliveryIdFor(webhookId, event.id),
    webhook_id: webhookId,
    event_id: event.id,
    event_type: name,
    status: 'pending',
    attempts: [],
    created_at: now,
    updated_at: now,
    next_attempt_at: now,
    failure_reason: null,
    retried_at: null,
  };
  const body = JSON.stringify(envelopeFor(event, name));
  const { created, stored } = await deps.deliveries.createIfAbsent(orgId, delivery, body);
  if (!created && (stored.queued || stored.delivery.status !== 'pending')) return 0;
  await deps.deliveryQueue.send(deliveryMessageFor(orgId, stored.delivery));
  await deps.deliveries.markQueued(orgId, webhookId, delivery.id);
  return created ? 1 : 0;
}

/** The sweep: publishes whatever the outbox still holds (crash leftovers, or everything when no stream feeds it). */
export async function publishPending(deps: PublishDependencies, limit = 100): Promise<number> {
  let made = 0;
  for (const batch of await deps.outbox.pending(limit)) made += await publishBatch(deps, batch);
  return made;
}
