import type { Delivery } from '../../domain/webhook';
import type { DeliveryMessage } from '../../ports/webhook-repository.port';

/**
 * The queue message that carries `delivery`, with the retry by hand it
 * belongs to, so the dispatcher can tell a message sent for the
 * current schedule from one a later retry replaced.
 */
export function deliveryMessageFor(orgId: string, delivery: Delivery): DeliveryMessage {
  return {
    org_id: orgId,
    webhook_id: delivery.webhook_id,
    delivery_id: delivery.id,
    ...(delivery.retried_at ? { retried_at: delivery.retried_at } : {}),
  };
}
