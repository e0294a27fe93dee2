import type { components } from '../../../api/schema';
import { formatWait } from '../../../format/format';

export type Webhook = components['schemas']['Webhook'];
export type WebhookWithSecret = components['schemas']['WebhookWithSecret'];
export type Delivery = components['schemas']['Delivery'];
export type DeliveryWithPayload = components['schemas']['DeliveryWithPayload'];
export type TestEventResult = components['schemas']['WebhookTestResult'];
export type DeliveryStatus = Delivery['status'];

/** One event a webhook may subscribe to, with what it means in a person's words. */
export interface EventChoice {
  readonly name: string;
  readonly meaning: string;
}

export interface EventGroup {
  readonly label: string;
  /** Said under the group: who receives these. */
  readonly hint: string | null;
  readonly events: readonly EventChoice[];
}

/**
 * Every event a webhook may subscribe to, once, under its documented name,
 * grouped by what it is about. The API still accepts the older names of the
 * same events (see LEGACY_EVENT_NAMES) for subscribers that used them, but the
 * console does not offer them: one event under three names reads as three.
 * web/tests/unit/webhooks.test.ts holds this to layers/core/domain/events.ts.
 */
export const EVENT_GROUPS: readonly EventGroup[] = [
  {
    label: 'Interactions',
    hint: "Only for agents the webhook's owner may use.",
    events: [
      { name: 'interaction.created', meaning: 'a question was asked' },
      { name: 'interaction.completed', meaning: 'an answer was given' },
      { name: 'interaction.feedback', meaning: 'someone rated an answer' },
    ],
  },
  {
    label: 'Agents',
    hint: "Only for agents the webhook's owner may use.",
    events: [
      { name: 'agent.created', meaning: 'an agent was created' },
      { name: 'agent.updated', meaning: "an agent's settings changed" },
      { name: 'agent.deleted', meaning: 'an agent was deleted' },
    ],
  },
  {
    label: 'Data sources',
    hint: null,
    events: [
      { name: 'datasource.created', meaning: 'a data source was added' },
      { name: 'datasource.processed', meaning: 'a sync finished' },
      { name: 'datasource.failed', meaning: 'a sync failed' },
    ],
  },
  {
    label: 'Users',
    hint: 'Only when the webhook belongs to an administrator or an API key.',
    events: [
      { name: 'user.created', meaning: 'a user was added' },
      { name: 'user.updated', meaning: "a user's details changed" },
    ],
  },
  {
    label: 'Evaluations',
    hint: "Only for agents the webhook's owner may use.",
    events: [{ name: 'eval.completed', meaning: 'an evaluation run finished' }],
  },
];

export const EVENT_NAMES: readonly string[] = EVENT_GROUPS.flatMap((group) =>
  group.events.map((event) => event.name),
);

/**
 * Older names of a documented event, as a webhook may still be subscribed
 * to them: deliveries keep using the name subscribed, so they are shown (and
 * kept when the form is saved) with the event they stand for.
 */
export const LEGACY_EVENT_NAMES: Readonly<Record<string, string>> = {
  'data_source.synced': 'datasource.processed',
  'data_source.processed': 'datasource.processed',
};

/** What a subscribed name outside the offered ones is, in words. */
export function unlistedEventMeaning(name: string): string {
  const current = Object.hasOwn(LEGACY_EVENT_NAMES, name) ? LEGACY_EVENT_NAMES[name] : undefined;
  return current
    ? `an older name of ${current}, still delivered under this name`
    : 'a name no longer offered';
}

/** The subscribed names in the form's order (the catalog's), any unknown name last. */
export function orderedEvents(names: readonly string[]): string[] {
  const known = EVENT_NAMES.filter((name) => names.includes(name));
  return [...known, ...names.filter((name) => !EVENT_NAMES.includes(name))];
}

/** The delivery filter, as the page and the address name it, and the API status it asks for. */
export const DELIVERY_FILTERS = [
  { value: '', label: 'All deliveries', status: undefined },
  { value: 'failed', label: 'Failed', status: 'failed' },
  { value: 'waiting', label: 'Waiting for a retry', status: 'pending' },
  { value: 'succeeded', label: 'Succeeded', status: 'delivered' },
  { value: 'cancelled', label: 'Cancelled', status: 'cancelled' },
] as const satisfies ReadonlyArray<{ value: string; label: string; status?: DeliveryStatus }>;

export type DeliveryFilter = (typeof DELIVERY_FILTERS)[number];

/** The filter an address's `?status=` names; anything else is every delivery. */
export function deliveryFilterFor(value: string | undefined): DeliveryFilter {
  return DELIVERY_FILTERS.find((filter) => filter.value === value) ?? DELIVERY_FILTERS[0];
}

/** A delivery's status in words: a pending delivery not yet tried is "Sending", one tried is waiting. */
export function deliveryStatusLabel(delivery: Pick<Delivery, 'status' | 'attempts'>): string {
  switch (delivery.status) {
    case 'delivered':
      return 'Succeeded';
    case 'failed':
      return 'Failed';
    case 'cancelled':
      return 'Cancelled';
    default:
      return delivery.attempts.length > 0 ? 'Waiting for a retry' : 'Sending';
  }
}

/**
 * "Retry" is offered on what has not succeeded, except a delivery whose
 * first attempt is still on its way (the API refuses to send that twice).
 */
export function canRetry(delivery: Pick<Delivery, 'status' | 'attempts'>): boolean {
  if (delivery.status === 'delivered') return false;
  return delivery.status !== 'pending' || delivery.attempts.length > 0;
}

/** What one attempt got back, in words: "HTTP 500", "No answer: timed out after 10 s". */
export function attemptOutcome(attempt: {
  readonly status_code: number | null;
  readonly error: string | null;
}): string {
  if (attempt.status_code !== null) {
    return attempt.error
      ? `HTTP ${attempt.status_code}: ${attempt.error}`
      : `HTTP ${attempt.status_code}`;
  }
  return `No answer: ${attempt.error ?? 'the connection failed'}`;
}

/** When the next attempt is due, said from `now`: "in 25 s", "now", or null when none is. */
export function nextAttemptIn(
  delivery: Pick<Delivery, 'status' | 'next_attempt_at'>,
  now: number,
): string | null {
  if (delivery.status !== 'pending' || !delivery.next_attempt_at) return null;
  const seconds = (Date.parse(delivery.next_attempt_at) - now) / 1000;
  if (!Number.isFinite(seconds)) return null;
  return seconds <= 0 ? 'now' : `in ${formatWait(seconds)}`;
}

/**
 * Has the attempt a retry by hand asked for been recorded? Yes once an
 * attempt is dated at or after `retriedAt`, or the delivery left `pending`
 * without one (cancelled: its owner may not see it, or the webhook is disabled).
 */
export function retrySettled(delivery: Delivery, retriedAt: string): boolean {
  if (delivery.status !== 'pending') return true;
  const since = Date.parse(retriedAt);
  return delivery.attempts.some((attempt) => Date.parse(attempt.at) >= since);
}

/** A retry by hand is followed this often, for at most this long (a receiver has 10 s). */
export const RETRY_POLL_MS = 1_000;
export const RETRY_FOLLOW_MS = 20_000;
/** A scheduled attempt due within this long is followed by reading the list again. */
export const SOON_MS = 60_000;
export const SOON_POLL_MS = 5_000;

/**
 * How long until the deliveries are read again, or null for not at all:
 * every 5 s while a listed delivery is due within the minute (the 5 s and
 * 30 s retries of D29 show up without a reload), never for attempts an
 * hour away.
 */
export function refreshDelay(deliveries: readonly Delivery[], now: number): number | null {
  const soon = deliveries.some(
    (delivery) =>
      delivery.status === 'pending' &&
      (delivery.next_attempt_at === null || Date.parse(delivery.next_attempt_at) - now < SOON_MS),
  );
  return soon ? SOON_POLL_MS : null;
}

/** What a retry by hand came to, once settled: "Retried agent.created: succeeded (HTTP 200)." */
export function retryOutcomeSentence(delivery: Delivery): string {
  const last = delivery.attempts.at(-1);
  const answer = last ? ` (${attemptOutcome(last)})` : '';
  switch (delivery.status) {
    case 'delivered':
      return `Retried ${delivery.event_type}: succeeded${answer}.`;
    case 'cancelled':
      return `Retried ${delivery.event_type}: not sent, ${delivery.failure_reason ?? 'cancelled'}.`;
    case 'failed':
      return `Retried ${delivery.event_type}: failed${answer}. ${delivery.failure_reason ?? ''}`.trim();
    default:
      return `Retried ${delivery.event_type}: failed again${answer}; it will be tried again on its schedule.`;
  }
}

/** A test event's answer in one sentence a person can act on. */
export function testEventSentence(result: TestEventResult): string {
  const took = `${result.duration_ms} ms`;
  if (result.delivered) {
    return `Delivered: the receiver answered HTTP ${result.status_code} in ${took}.`;
  }
  if (result.status_code !== null) {
    return `Not delivered: the receiver answered HTTP ${result.status_code} (after ${took}); only a 2xx answer counts as received. Check the receiver's logs for this event (${result.event_id}).`;
  }
  return `Not delivered: ${result.error ?? 'the receiver could not be reached'}. Check that the address is right and the receiver is running.`;
}

/** A webhook's status as the list names it. */
export const WEBHOOK_STATUS_NAMES: Readonly<Record<Webhook['status'], string>> = {
  active: 'Active',
  failed: 'Failing',
  disabled: 'Disabled',
};

/** What a webhook's status means for what it receives. */
export function webhookStatusSentence(status: Webhook['status']): string {
  switch (status) {
    case 'failed':
      return 'Failing: a delivery failed 5 attempts. It still receives new events, and the next one delivered sets it active again.';
    case 'disabled':
      return 'Disabled: the receiver answered 410 Gone, so nothing more is sent. Register a new webhook to receive again.';
    default:
      return 'Active: receives the events it subscribes to.';
  }
}

/** Who owns a webhook, for the person looking at it. */
export function ownerSentence(owner: Webhook['owner'], myUserId: string | null): string {
  if (owner === null) {
    return 'Nobody known: it receives data source events only. Saving its address makes it yours and restores every event.';
  }
  if (owner.type === 'api_key') return `An API key (${owner.id}): it receives every event.`;
  if (owner.id === myUserId) return 'You: it receives what you may see.';
  return `A user (${owner.id}): it receives what they may see.`;
}

/** Pretty-printed JSON when the payload is JSON, else the text as sent. */
export function readablePayload(payload: string): string {
  try {
    return JSON.stringify(JSON.parse(payload), null, 2);
  } catch {
    return payload;
  }
}
