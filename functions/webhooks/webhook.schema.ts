import * as z from 'zod/mini';
import { EVENT_ALIASES, EVENT_TYPES } from '../../layers/core/domain/events';
import {
  DELIVERY_STATUSES,
  WEBHOOK_LIMITS,
  WEBHOOK_STATUSES,
} from '../../layers/core/domain/webhook';
import { paginationQuery } from '../../layers/core/http/pagination.schema';

/** The URL rules (https, public addresses, valid certificate) are checked by the use case, which resolves and connects. */
export const createWebhookBody = z.strictObject({
  url: z.string().check(z.trim(), z.minLength(1), z.maxLength(WEBHOOK_LIMITS.urlMax)),
  events: z
    .array(z.string().check(z.minLength(1), z.maxLength(100)))
    .check(
      z.minLength(1, 'subscribe to at least one event'),
      z.maxLength(WEBHOOK_LIMITS.eventsMax),
      z.describe(
        `Events to deliver, by documented name: ${EVENT_TYPES.join(', ')}. Older names still accepted: ${Object.keys(EVENT_ALIASES).join(', ')}`,
      ),
    ),
  description: z.optional(z.nullable(z.string().check(z.maxLength(WEBHOOK_LIMITS.descriptionMax)))),
});

export const updateWebhookBody = z.partial(createWebhookBody);

export const listWebhooksQuery = z.strictObject(paginationQuery);

export const listDeliveriesQuery = z.strictObject({
  ...paginationQuery,
  status: z.optional(z.enum(DELIVERY_STATUSES)),
});

export const webhookResource = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  description: z.nullable(z.string()),
  status: z.enum(WEBHOOK_STATUSES),
  secret_last4: z.string(),
  /** The key or user whose access filters deliveries; `null` on webhooks from before. */
  owner: z.nullable(
    z.object({
      type: z.enum(['api_key', 'user']),
      id: z.string(),
    }),
  ),
  created_at: z.string(),
  updated_at: z.string(),
});

/** Returned by create and rotate-secret only: the secret is shown once. */
export const webhookWithSecret = z.extend(webhookResource, { secret: z.string() });

export const webhookList = z.object({
  webhooks: z.array(webhookResource),
  total: z.int(),
  limit: z.int(),
  offset: z.int(),
});

export const deliveryResource = z.object({
  id: z.string(),
  webhook_id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.array(
    z.object({
      attempt: z.int(),
      at: z.string(),
      status_code: z.nullable(z.int()),
      duration_ms: z.int(),
      error: z.nullable(z.string()),
    }),
  ),
  created_at: z.string(),
  updated_at: z.string(),
  next_attempt_at: z.nullable(z.string()),
  failure_reason: z.nullable(z.string()),
  /** When it was last retried by hand; null until then. */
  retried_at: z.nullable(z.string()),
});

/** One delivery with the exact body its attempts sent. */
export const deliveryWithPayload = z.extend(deliveryResource, {
  /** The request body exactly as signed and sent (the event envelope), as a string. */
  payload: z.string(),
});

export const deliveryList = z.object({
  deliveries: z.array(deliveryResource),
  total: z.int(),
  limit: z.int(),
  offset: z.int(),
});

export const testEventResult = z.object({
  event_id: z.string(),
  delivered: z.boolean(),
  status_code: z.nullable(z.int()),
  duration_ms: z.int(),
  error: z.nullable(z.string()),
});

/**
 * `GET /api/v1/webhooks/source-ips`, the addresses deliveries come
 * from. Every field is always present, so a client reads one shape whether
 * or not the deployment sends from fixed addresses.
 */
export const sourceIpsResource = z.object({
  fixed: z.boolean(),
  cidrs: z.array(z.string()),
  updated_at: z.nullable(z.string()),
  reason: z.nullable(z.string()),
});

/**
 * Field descriptions for the OpenAPI document, attached by lib/openapi.ts
 * when it writes it: as `z.describe` checks they would put these
 * sentences in the `webhooks` bundle, which is at its 300 KB ceiling
 * (issue 8). Nothing in the function reads this, so esbuild leaves it out.
 */
export const FIELD_DESCRIPTIONS = [
  {
    object: sourceIpsResource,
    fields: {
      fixed:
        'True when every delivery (and test event, and URL check) leaves from one of `cidrs`; false when this deployment has no fixed addresses (`reason` says why)',
      cidrs:
        'CIDR ranges deliveries come from, IPv4 and IPv6 (`203.0.113.7/32`); empty when `fixed` is false',
      updated_at:
        'When `cidrs` last changed (ISO 8601); null when not fixed, or when the deployment does not know',
      reason: 'Why there are no fixed addresses; null when `fixed` is true',
    },
  },
  {
    object: deliveryResource,
    fields: { retried_at: 'When it was last retried by hand; null until then' },
  },
  {
    object: deliveryWithPayload,
    fields: {
      payload: 'The request body exactly as signed and sent (the event envelope), as a string',
    },
  },
] as const;
