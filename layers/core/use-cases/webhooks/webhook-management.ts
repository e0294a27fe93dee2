import { InvalidRequestError, NotFoundError } from '../../domain/errors';
import { canonicalEventType, TEST_EVENT_TYPE } from '../../domain/events';
import { newId } from '../../domain/ids';
import type { Page, PageRequest } from '../../domain/pagination';
import type { Principal } from '../../domain/principal';
import {
  type Delivery,
  type DeliveryStatus,
  SECRET_ROTATION_OVERLAP_MS,
  type Webhook,
  type WebhookOwner,
  type WebhookSecrets,
} from '../../domain/webhook';
import { generateWebhookSecret } from '../../domain/webhook-signature';
import type { Clock } from '../../ports/clock.port';
import type { MessageQueue } from '../../ports/sync-job-queue.port';
import type {
  DeliveryMessage,
  DeliveryRecords,
  SecretSealer,
  WebhookRepository,
} from '../../ports/webhook-repository.port';
import type {
  WebhookAttemptResult,
  WebhookTransport,
  WebhookUrlVerifier,
} from '../../ports/webhook-transport.port';
import { deliveryMessageFor } from './delivery-message';
import { secretContext, signedRequest, signingSecrets } from './signed-request';

export interface WebhookManagementDependencies {
  readonly webhooks: WebhookRepository;
  /** Management lists, reads and retries deliveries; it never creates or attempts one. */
  readonly deliveryRecords: DeliveryRecords;
  readonly deliveryQueue: MessageQueue<DeliveryMessage>;
  readonly secretSealer: SecretSealer;
  readonly webhookUrlVerifier: WebhookUrlVerifier;
  readonly webhookTransport: WebhookTransport;
  readonly clock: Clock;
  readonly webhookTimeoutMs: number;
}

/** A webhook with its secret: returned on create and on rotation only (spec: the secret is shown once). */
export interface WebhookWithSecret extends Webhook {
  readonly secret: string;
}

async function assertDeliverable(deps: WebhookManagementDependencies, url: string): Promise<void> {
  const check = await deps.webhookUrlVerifier.verify(url);
  if (!check.ok) {
    throw new InvalidRequestError(`Webhook URL refused: ${check.reason}`, {
      fields: [{ path: 'url', message: check.reason }],
    });
  }
}

/** Every subscribed name must be a catalog name or an alias; duplicates are refused. */
function assertKnownEvents(events: readonly string[]): void {
  const unknown = events.filter((name) => !canonicalEventType(name));
  if (unknown.length > 0) {
    throw new InvalidRequestError(`Unknown event type(s): ${unknown.join(', ')}`, {
      fields: [{ path: 'events', message: `unknown: ${unknown.join(', ')}` }],
    });
  }
  if (new Set(events).size !== events.length) {
    throw new InvalidRequestError('events contains duplicates', {
      fields: [{ path: 'events', message: 'must not contain duplicates' }],
    });
  }
}

async function sealedSecrets(
  deps: WebhookManagementDependencies,
  orgId: string,
  webhookId: string,
  secret: string,
  previous: { sealed: string; expiresAt: string } | null,
): Promise<WebhookSecrets> {
  return {
    current: await deps.secretSealer.seal(secret, secretContext(orgId, webhookId)),
    previous: previous?.sealed ?? null,
    previousExpiresAt: previous?.expiresAt ?? null,
  };
}

/**
 * Registers a webhook. P217: `owner`, the key or user registering it, is
 * recorded: deliveries carry only what they may see at the time.
 */
export async function createWebhook(
  deps: WebhookManagementDependencies,
  orgId: string,
  input: { url: string; events: readonly string[]; description?: string | null | undefined },
  owner: WebhookOwner,
): Promise<WebhookWithSecret> {
  assertKnownEvents(input.events);
  await assertDeliverable(deps, input.url);
  const now = deps.clock.now();
  const secret = generateWebhookSecret();
  const webhook: Webhook = {
    id: newId('webhook', now.getTime()),
    url: input.url,
    events: [...input.events],
    description: input.description ?? null,
    status: 'active',
    secret_last4: secret.slice(-4),
    owner,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
  await deps.webhooks.create(
    orgId,
    webhook,
    await sealedSecrets(deps, orgId, webhook.id, secret, null),
  );
  return { ...webhook, secret };
}

export async function getWebhook(
  deps: Pick<WebhookManagementDependencies, 'webhooks'>,
  orgId: string,
  id: string,
) {
  const webhook = await deps.webhooks.get(orgId, id);
  if (!webhook) throw new NotFoundError(`No webhook ${id}`);
  return webhook;
}

export function listWebhooks(
  deps: Pick<WebhookManagementDependencies, 'webhooks'>,
  orgId: string,
  page: PageRequest,
) {
  return deps.webhooks.list(orgId, page);
}

/**
 * Changes a webhook. P217: whoever changes its URL becomes its owner, so
 * pointing someone else's webhook at one's own receiver never delivers more
 * than one may see; other changes, and the same URL sent again, keep the
 * owner (an admin saving a restricted user's webhook does not widen it).
 * A webhook with no owner is claimed by whoever sends its URL.
 */
export async function updateWebhook(
  deps: WebhookManagementDependencies,
  orgId: string,
  id: string,
  changes: {
    url?: string | undefined;
    events?: readonly string[] | undefined;
    description?: string | null | undefined;
  },
  actor: WebhookOwner,
): Promise<Webhook> {
  const current = await getWebhook(deps, orgId, id);
  if (changes.events) assertKnownEvents(changes.events);
  if (changes.url !== undefined) await assertDeliverable(deps, changes.url);
  const claims =
    changes.url !== undefined && (changes.url !== current.url || current.owner === null);
  const updated = await deps.webhooks.update(orgId, id, {
    ...(changes.url !== undefined ? { url: changes.url } : {}),
    ...(claims ? { owner: actor } : {}),
    ...(changes.events !== undefined ? { events: [...changes.events] } : {}),
    ...(changes.description !== undefined ? { description: changes.description } : {}),
    updated_at: deps.clock.now().toISOString(),
  });
  if (!updated) throw new NotFoundError(`No webhook ${id}`);
  return updated;
}

export async function deleteWebhook(
  deps: Pick<WebhookManagementDependencies, 'webhooks'>,
  orgId: string,
  id: string,
) {
  if (!(await deps.webhooks.delete(orgId, id))) throw new NotFoundError(`No webhook ${id}`);
}

/** A new secret; the old one keeps signing beside it for 24 hours. */
export async function rotateWebhookSecret(
  deps: WebhookManagementDependencies,
  orgId: string,
  id: string,
): Promise<WebhookWithSecret> {
  const found = await deps.webhooks.getWithSecrets(orgId, id);
  if (!found) throw new NotFoundError(`No webhook ${id}`);
  const now = deps.clock.now();
  const secret = generateWebhookSecret();
  const secrets = await sealedSecrets(deps, orgId, id, secret, {
    sealed: found.secrets.current,
    expiresAt: new Date(now.getTime() + SECRET_ROTATION_OVERLAP_MS).toISOString(),
  });
  const updated = await deps.webhooks.replaceSecrets(
    orgId,
    id,
    secrets,
    secret.slice(-4),
    now.toISOString(),
  );
  if (!updated) throw new NotFoundError(`No webhook ${id}`);
  return { ...updated, secret };
}

export async function listDeliveries(
  deps: Pick<WebhookManagementDependencies, 'webhooks' | 'deliveryRecords'>,
  orgId: string,
  webhookId: string,
  filter: { status?: DeliveryStatus },
  page: PageRequest,
): Promise<Page<Delivery>> {
  await getWebhook(deps, orgId, webhookId);
  return deps.deliveryRecords.list(orgId, webhookId, filter, page);
}

/** A delivery with the exact body every attempt signs and sends. */
export interface DeliveryWithPayload extends Delivery {
  readonly payload: string;
}

/**
 * One delivery and its payload, the exact bytes each attempt sent, so
 * a receiver's author can compare what arrived and check the signature.
 */
export async function getDelivery(
  deps: Pick<WebhookManagementDependencies, 'webhooks' | 'deliveryRecords'>,
  orgId: string,
  webhookId: string,
  deliveryId: string,
  reader: PayloadReader,
): Promise<DeliveryWithPayload> {
  await getWebhook(deps, orgId, webhookId);
  const stored = await deps.deliveryRecords.get(orgId, webhookId, deliveryId);
  // A payload is read only by whoever may see its kind of event; to anyone else it
  // does not exist.
  if (!stored || !mayReadPayload(reader, stored.delivery.event_type)) {
    throw new NotFoundError(`No delivery ${deliveryId}`);
  }
  return { ...stored.delivery, payload: stored.body };
}

/** What decides which delivery payloads a caller reads. */
export interface PayloadReader {
  /** An admin, or an API key: may read users, so `user.*` events. */
  readonly readsUsers: boolean;
  /** Not confined to some agents by groups, so every agent's events. */
  readonly readsEveryAgent: boolean;
}

export function payloadReaderOf(principal: Principal): PayloadReader {
  return principal.kind === 'session'
    ? { readsUsers: principal.role === 'admin', readsEveryAgent: principal.agents.kind === 'all' }
    : { readsUsers: true, readsEveryAgent: true };
}

/**
 * P302, by the event's kind as P217 sorts them: data source events are any
 * member's; user events an admin's or a key's; the rest name an agent, and
 * a reader confined to some agents reads none of them (the payload's agent
 * is not weighed: the stricter rule, kept out of this bundle's weight).
 */
function mayReadPayload(reader: PayloadReader, eventName: string): boolean {
  const type = canonicalEventType(eventName);
  if (type === undefined) return false;
  if (type.startsWith('datasource.')) return true;
  if (type.startsWith('user.')) return reader.readsUsers;
  return reader.readsEveryAgent;
}

/**
 * A delivery that has not succeeded is retried by hand: failed,
 * cancelled, or waiting for its next scheduled attempt. It is pending again,
 * back on the queue at once, with a fresh schedule; the message of the
 * schedule it replaces is dropped when it comes back (its `retried_at`
 * differs). P217: the dispatcher checks it against the owner's access as it
 * does every attempt (cancelled if they may not see it).
 */
export async function retryDelivery(
  deps: WebhookManagementDependencies,
  orgId: string,
  webhookId: string,
  deliveryId: string,
): Promise<Delivery> {
  await getWebhook(deps, orgId, webhookId);
  const stored = await deps.deliveryRecords.get(orgId, webhookId, deliveryId);
  if (!stored) throw new NotFoundError(`No delivery ${deliveryId}`);
  const reopened = await deps.deliveryRecords.reopen(
    orgId,
    webhookId,
    deliveryId,
    deps.clock.now().toISOString(),
  );
  if (!reopened) {
    const why =
      stored.delivery.status === 'delivered'
        ? 'it was delivered'
        : 'its first attempt is on its way';
    throw new InvalidRequestError(
      `Only deliveries that have not succeeded can be retried; ${deliveryId} cannot: ${why}`,
      {
        fields: [{ path: 'delivery_id', message: `delivery is ${stored.delivery.status}: ${why}` }],
      },
    );
  }
  await deps.deliveryQueue.send(deliveryMessageFor(orgId, reopened));
  await deps.deliveryRecords.markQueued(orgId, webhookId, deliveryId);
  return reopened;
}

/** How the receiver answered a test event. */
export interface TestEventResult {
  readonly event_id: string;
  readonly delivered: boolean;
  readonly status_code: WebhookAttemptResult['statusCode'];
  readonly duration_ms: number;
  readonly error: string | null;
}

/**
 * `POST /webhooks/:id/test`: sends a signed `webhook.test` event to the URL
 * now and reports how the receiver answered. It is not recorded as a
 * delivery and does not change the webhook's status. Its payload names only
 * the webhook, so it needs no check against the owner's access (P217).
 */
export async function sendTestEvent(
  deps: WebhookManagementDependencies,
  orgId: string,
  id: string,
): Promise<TestEventResult> {
  const found = await deps.webhooks.getWithSecrets(orgId, id);
  if (!found) throw new NotFoundError(`No webhook ${id}`);
  const now = deps.clock.now();
  const eventId = newId('event', now.getTime());
  const body = JSON.stringify({
    id: eventId,
    type: TEST_EVENT_TYPE,
    event: TEST_EVENT_TYPE,
    timestamp: now.toISOString(),
    organizationId: orgId,
    data: { webhook_id: id, message: 'This is a test event from the Agent Query Service.' },
  });
  const secrets = await signingSecrets(deps.secretSealer, orgId, found.webhook, found.secrets, now);
  const result = await deps.webhookTransport.post(
    signedRequest({
      url: found.webhook.url,
      body,
      eventId,
      eventName: TEST_EVENT_TYPE,
      deliveryId: newId('delivery', now.getTime()),
      secrets,
      clock: deps.clock,
      timeoutMs: deps.webhookTimeoutMs,
    }),
  );
  const delivered =
    result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
  return {
    event_id: eventId,
    delivered,
    status_code: result.statusCode,
    duration_ms: Math.round(result.durationMs),
    error: result.error,
  };
}
