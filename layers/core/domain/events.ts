/**
 * The canonical event catalog is the spec's set A plus `eval.completed`.
 * The other published names are accepted as aliases when subscribing, and a
 * delivery carries the name the subscriber used.
 */
export const EVENT_TYPES = [
  'interaction.created',
  'interaction.completed',
  'interaction.feedback',
  'agent.created',
  'agent.updated',
  'agent.deleted',
  'datasource.created',
  'datasource.processed',
  'datasource.failed',
  'user.created',
  'user.updated',
  'eval.completed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Set B's and the third listing's names for the same events. */
export const EVENT_ALIASES: Readonly<Record<string, EventType>> = {
  'data_source.synced': 'datasource.processed',
  'data_source.processed': 'datasource.processed',
};

/** The event `POST /webhooks/:id/test` sends; not subscribable, delivered to that one webhook only. */
export const TEST_EVENT_TYPE = 'webhook.test';

/** Every name a webhook may subscribe to. */
export const SUBSCRIBABLE_EVENT_NAMES: readonly string[] = [
  ...EVENT_TYPES,
  ...Object.keys(EVENT_ALIASES),
];

/** The canonical type a subscribed name stands for, or `undefined` for an unknown name. */
export function canonicalEventType(name: string): EventType | undefined {
  if ((EVENT_TYPES as readonly string[]).includes(name)) return name as EventType;
  // Own properties only: `__proto__` or `constructor` must not resolve to Object's.
  return Object.hasOwn(EVENT_ALIASES, name) ? EVENT_ALIASES[name] : undefined;
}

/**
 * The name under which a webhook subscribed to `type`, if it did (the
 * delivery uses that name). Subscribing to both a name and its alias gives
 * one delivery, under the first name listed.
 */
export function subscribedNameFor(
  subscriptions: readonly string[],
  type: string,
): string | undefined {
  return subscriptions.find((name) => canonicalEventType(name) === type);
}

/** An event as recorded with the change that caused it (the outbox). */
export interface DomainEvent {
  readonly id: string;
  readonly type: EventType;
  readonly timestamp: string;
  readonly organizationId: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/** Set A's envelope plus set B's `event`, so receivers written for either set work. */
export interface EventEnvelope {
  readonly id: string;
  readonly type: string;
  readonly event: string;
  readonly timestamp: string;
  readonly organizationId: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/** The envelope delivered to a subscriber that used `name` for the event's type. */
export function envelopeFor(event: DomainEvent, name: string): EventEnvelope {
  return {
    id: event.id,
    type: name,
    event: name,
    timestamp: event.timestamp,
    organizationId: event.organizationId,
    data: event.data,
  };
}
