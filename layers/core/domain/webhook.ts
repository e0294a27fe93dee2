import { createHash } from 'node:crypto';
import type { Principal } from './principal';

/** `active` on create; `failed` after a delivery's 5th failure (still receives); `disabled` after a 410. */
export const WEBHOOK_STATUSES = ['active', 'failed', 'disabled'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

export const WEBHOOK_LIMITS = {
  /** D17 */
  eventsMax: 50,
  urlMax: 2048,
  descriptionMax: 500,
} as const;

/** How long the old secret keeps signing beside the new one after a rotation. */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/**
 * Whose access a webhook delivers with — the API key or user that
 * created it or last changed its URL. `null` on webhooks written before owners
 * were recorded.
 */
export type WebhookOwner =
  | { readonly type: 'api_key'; readonly id: string }
  | { readonly type: 'user'; readonly id: string };

/** The owner a request makes: its API key, or its signed-in user. */
export function webhookOwnerOf(principal: Principal): WebhookOwner {
  return principal.kind === 'api_key'
    ? { type: 'api_key', id: principal.keyId }
    : { type: 'user', id: principal.userId };
}

export interface Webhook {
  readonly id: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly description: string | null;
  readonly status: WebhookStatus;
  /** The last four characters of the current secret, to tell secrets apart. */
  readonly secret_last4: string;
  /** Deliveries carry only what this owner may see at the time. */
  readonly owner: WebhookOwner | null;
  readonly created_at: string;
  readonly updated_at: string;
}

/** What is stored of a webhook's secrets: envelope-encrypted (D33's scheme), never plaintext. */
export interface WebhookSecrets {
  readonly current: string;
  /** The secret before the last rotation, signing beside the current one until `previousExpiresAt`. */
  readonly previous: string | null;
  readonly previousExpiresAt: string | null;
}

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One attempt, as recorded (every attempt, with status code, duration and error). */
export interface DeliveryAttempt {
  readonly attempt: number;
  readonly at: string;
  readonly status_code: number | null;
  readonly duration_ms: number;
  readonly error: string | null;
}

export interface Delivery {
  readonly id: string;
  readonly webhook_id: string;
  readonly event_id: string;
  /** The event name as the webhook subscribed to it. */
  readonly event_type: string;
  readonly status: DeliveryStatus;
  readonly attempts: readonly DeliveryAttempt[];
  readonly created_at: string;
  readonly updated_at: string;
  /** When the next attempt is due, while pending and after a failure. */
  readonly next_attempt_at: string | null;
  /** Why a delivery ended without success (`5 attempts failed`, `receiver answered 410 Gone`, `webhook deleted`). */
  readonly failure_reason: string | null;
  /**
   * When it was last retried by hand (`null` until then). Its queue
   * message carries the same value, so a message scheduled before the retry
   * is recognised and dropped: one schedule runs at a time.
   */
  readonly retried_at: string | null;
}

/**
 * The delivery retry schedule: attempt 1 at once, then 5 s, 30 s, 5 min and 1 h after
 * the previous one; the 5th failure is final.
 *
 *   attempt:   1      2      3       4          5
 *   at:        0 s    5 s    35 s    5 min 35 s 1 h 5 min 35 s
 */
export const RETRY_DELAYS_SECONDS = [5, 30, 300, 3600] as const;
export const MAX_DELIVERY_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

/** Seconds to wait after failed attempt `attempt` (1-based), or `null` when it was the last. */
export function retryDelayAfter(attempt: number): number | null {
  return RETRY_DELAYS_SECONDS[attempt - 1] ?? null;
}

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * A delivery's id, derived from its webhook and event: the event's time part
 * (so deliveries sort like their events) and 16 characters of a hash of the
 * pair. Publishing an event twice (a retried outbox flush) therefore names
 * the same delivery, and the second write finds the first (duplicates
 * identified by event id).
 */
export function deliveryIdFor(webhookId: string, eventId: string): string {
  const time = eventId.slice(eventId.indexOf('_') + 1, eventId.indexOf('_') + 11);
  const digest = createHash('sha256').update(`${webhookId}\n${eventId}`).digest();
  let random = '';
  for (let i = 0; i < 16; i += 1) random += CROCKFORD.charAt((digest[i] ?? 0) % 32);
  return `dlv_${time}${random}`;
}

/** A receiver has 10 s to answer. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
