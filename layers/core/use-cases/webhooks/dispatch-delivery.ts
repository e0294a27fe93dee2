import { canonicalEventType } from '../../domain/events';
import { MAX_DELIVERY_ATTEMPTS, retryDelayAfter, type Webhook } from '../../domain/webhook';
import { mayReceive, visibilityOf } from '../../domain/webhook-audience';
import type { Clock } from '../../ports/clock.port';
import type {
  DeliveryMessage,
  DeliveryRepository,
  SecretSealer,
  StoredDelivery,
  WebhookRepository,
} from '../../ports/webhook-repository.port';
import type { WebhookTransport } from '../../ports/webhook-transport.port';
import { signedRequest, signingSecrets } from './signed-request';
import { type AudienceDependencies, audienceOf } from './webhook-audience';

export interface DispatchDependencies extends AudienceDependencies {
  readonly webhooks: Pick<WebhookRepository, 'getWithSecrets' | 'setStatus'>;
  readonly deliveries: Pick<DeliveryRepository, 'get' | 'recordAttempt' | 'cancel'>;
  readonly secretSealer: SecretSealer;
  readonly webhookTransport: WebhookTransport;
  readonly clock: Clock;
  /** 10 s. */
  readonly webhookTimeoutMs: number;
}

/** What the queue should do with the message: drop it, or bring it back after a delay. */
export type DispatchOutcome =
  | {
      readonly done: true;
      /** What ended it: `skipped` when it had ended already, its webhook is gone or disabled, or its owner may not see it. */
      readonly result: 'delivered' | 'failed' | 'skipped';
    }
  | { readonly done: false; readonly retryAfterSeconds: number };

const SKIPPED: DispatchOutcome = { done: true, result: 'skipped' };
const DELIVERED: DispatchOutcome = { done: true, result: 'delivered' };
const FAILED: DispatchOutcome = { done: true, result: 'failed' };

/** Why a delivery its webhook's owner may no longer see ended unsent. */
export const WITHHELD_REASON = "withheld: the webhook's owner may not see this event";

/**
 * May the webhook's owner see this delivery's event now? Asked at
 * every attempt, since the event was published: the owner's groups may have
 * changed, a new URL makes its setter the owner, and a retry by hand comes
 * back through here. Read from the stored body, which is what would be sent.
 */
async function ownerMaySee(
  deps: DispatchDependencies,
  orgId: string,
  webhook: Webhook,
  stored: StoredDelivery,
): Promise<boolean> {
  const type = canonicalEventType(stored.delivery.event_type);
  if (!type) return false;
  let data: unknown;
  try {
    data = (JSON.parse(stored.body) as { data?: unknown }).data;
  } catch {
    data = undefined;
  }
  const visibility = visibilityOf(type, data);
  if (visibility.kind === 'members') return true;
  return mayReceive(await audienceOf(deps, orgId, webhook.owner), visibility);
}

/**
 * One attempt of one delivery. `attempt` is the message's receive
 * count (SQS `ApproximateReceiveCount`). Any 2xx acknowledges; `410 Gone`
 * disables the webhook; any other answer, redirect, timeout or connection
 * error fails the attempt, and the message comes back after the schedule's
 * next delay. The 5th failure marks the delivery and the webhook `failed`.
 * A delivery that has already ended is never sent again, nor is one whose
 * event the webhook's owner may not see now (cancelled unsent), nor
 * one whose schedule a retry by hand replaced.
 */
export async function dispatchDelivery(
  deps: DispatchDependencies,
  message: DeliveryMessage,
  attempt: number,
): Promise<DispatchOutcome> {
  const { org_id: orgId, webhook_id: webhookId, delivery_id: deliveryId } = message;
  const stored = await deps.deliveries.get(orgId, webhookId, deliveryId);
  if (stored?.delivery.status !== 'pending') return SKIPPED;
  // A message scheduled before a retry by hand belongs to a schedule that
  // retry replaced; the retry's own message carries its time and goes on alone.
  if ((message.retried_at ?? null) !== stored.delivery.retried_at) return SKIPPED;

  const found = await deps.webhooks.getWithSecrets(orgId, webhookId);
  const now = deps.clock.now();
  if (!found || found.webhook.status === 'disabled') {
    const reason = found ? 'webhook disabled' : 'webhook deleted';
    await deps.deliveries.cancel(orgId, webhookId, deliveryId, reason, now.toISOString());
    return SKIPPED;
  }
  if (!(await ownerMaySee(deps, orgId, found.webhook, stored))) {
    await deps.deliveries.cancel(orgId, webhookId, deliveryId, WITHHELD_REASON, now.toISOString());
    return SKIPPED;
  }

  const secrets = await signingSecrets(deps.secretSealer, orgId, found.webhook, found.secrets, now);
  const result = await deps.webhookTransport.post(
    signedRequest({
      url: found.webhook.url,
      body: stored.body,
      eventId: stored.delivery.event_id,
      eventName: stored.delivery.event_type,
      deliveryId,
      secrets,
      clock: deps.clock,
      timeoutMs: deps.webhookTimeoutMs,
    }),
  );
  const at = deps.clock.now();
  const record = {
    attempt,
    at: at.toISOString(),
    status_code: result.statusCode,
    duration_ms: Math.round(result.durationMs),
    error: result.error,
  };
  const status = result.statusCode;

  if (status !== null && status >= 200 && status < 300) {
    await deps.deliveries.recordAttempt(orgId, webhookId, deliveryId, record, {
      status: 'delivered',
      next_attempt_at: null,
      failure_reason: null,
    });
    // The next success sets a failed webhook active again.
    await deps.webhooks.setStatus(orgId, webhookId, 'active', ['failed']);
    return DELIVERED;
  }
  if (status === 410) {
    await deps.deliveries.recordAttempt(orgId, webhookId, deliveryId, record, {
      status: 'failed',
      next_attempt_at: null,
      failure_reason: 'receiver answered 410 Gone; webhook disabled',
    });
    await deps.webhooks.setStatus(orgId, webhookId, 'disabled', ['active', 'failed']);
    return FAILED;
  }
  const delay = attempt < MAX_DELIVERY_ATTEMPTS ? retryDelayAfter(attempt) : null;
  if (delay === null) {
    await deps.deliveries.recordAttempt(orgId, webhookId, deliveryId, record, {
      status: 'failed',
      next_attempt_at: null,
      failure_reason: `${MAX_DELIVERY_ATTEMPTS} attempts failed`,
    });
    await deps.webhooks.setStatus(orgId, webhookId, 'failed', ['active']);
    return FAILED;
  }
  const stillPending = await deps.deliveries.recordAttempt(orgId, webhookId, deliveryId, record, {
    status: 'pending',
    next_attempt_at: new Date(at.getTime() + delay * 1000).toISOString(),
    failure_reason: null,
  });
  return stillPending ? { done: false, retryAfterSeconds: delay } : SKIPPED;
}
