import * as z from 'zod';
import {
  DELIVERY_STATUSES,
  WEBHOOK_LIMITS,
  WEBHOOK_STATUSES,
} from '../../layers/core/domain/webhook';
import { paginationQuery } from '../../layers/core/http/pagination.schema';

/** D30: the URL rules (https, public addresses, valid certificate) are checked by the use case, which resolves and connects. */
export const createWebhookBody = z.strictObject({
  url: z.string().trim().min(1).max(WEBHOOK_LIMITS.urlMax),
  events: z
    .array(z.string().min(1).max(100))
    .min(1, 'subscribe to at least one event')
    .max(WEBHOOK_LIMITS.eventsMax),
  description: z.string().max(WEBHOOK_LIMITS.descriptionMax).nullable().optional(),
});

export const updateWebhookBody = createWebhookBody.partial();

export const listWebhooksQuery = z.strictObject(paginationQuery);

export const listDeliveriesQuery = z.strictObject({
  ...paginationQuery,
  status: z.enum(DELIVERY_STATUSES).optional(),
});

export const webhookResource = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string().nullable(),
  status: z.enum(WEBHOOK_STATUSES),
  secret_last4: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

/** Returned by create and rotate-secret only: the secret is shown once. */
export const webhookWithSecret = webhookResource.extend({ secret: z.string() });

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
      status_code: z.int().nullable(),
      duration_ms: z.int(),
      error: z.string().nullable(),
    }),
  ),
  created_at: z.string(),
  updated_at: z.string(),
  next_attempt_at: z.string().nullable(),
  failure_reason: z.string().nullable(),
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
  status_code: z.int().nullable(),
  duration_ms: z.int(),
  error: z.string().nullable(),
});
