import { webhookOwnerOf as ownerOf } from '../../layers/core/domain/webhook';
import type { WebhookSourceAddresses } from '../../layers/core/domain/webhook-source-addresses';
import { httpFunction } from '../../layers/core/http/http-function';
import { operationsWith, publicOperationsWith } from '../../layers/core/http/operation';
import { pageRequest } from '../../layers/core/http/pagination.schema';
import { emptyResponse, jsonResponse } from '../../layers/core/http/responses';
import { WEBHOOKS_ROUTES } from '../../layers/core/http/routes/webhooks';
import {
  createWebhook,
  deleteWebhook,
  getDelivery,
  getWebhook,
  listDeliveries,
  listWebhooks,
  payloadReaderOf,
  retryDelivery,
  rotateWebhookSecret,
  sendTestEvent,
  updateWebhook,
} from '../../layers/core/use-cases/webhooks/webhook-management';
import {
  createWebhookBody,
  deliveryList,
  deliveryResource,
  deliveryWithPayload,
  listDeliveriesQuery,
  listWebhooksQuery,
  sourceIpsResource,
  testEventResult,
  updateWebhookBody,
  webhookList,
  webhookResource,
  webhookWithSecret,
} from './webhook.schema';
import { dependencies, type WebhooksDependencies } from './wiring';

const operation = operationsWith<WebhooksDependencies>();
const publicOperation = publicOperationsWith<WebhooksDependencies>();

/**
 * Receivers and their tooling may keep the answer a few minutes; it
 * changes only with a deployment that changes the addresses.
 */
export const SOURCE_IPS_CACHE_CONTROL = 'public, max-age=300';

/** The published shape, every field present whichever the case. */
function sourceIpsBody(addresses: WebhookSourceAddresses) {
  return addresses.fixed
    ? {
        fixed: true,
        cidrs: [...addresses.cidrs],
        updated_at: addresses.changedAt?.toISOString() ?? null,
        reason: null,
      }
    : { fixed: false, cidrs: [], updated_at: null, reason: addresses.reason };
}

/**
 * Webhooks: `/api/v1/webhooks` and `/api/webhooks`, Admin scope; and
 * the public list of addresses deliveries come from.
 */
export const operations = {
  getWebhookSourceIps: publicOperation({
    summary: 'The addresses webhook deliveries come from, to allowlist (no credentials needed)',
    responses: {
      200: {
        description: 'The CIDR ranges and when they last changed, or why there are none',
        schema: sourceIpsResource,
      },
    },
    async handle({ deps }) {
      const response = jsonResponse(200, sourceIpsBody(deps.webhookSourceAddresses));
      return {
        ...response,
        headers: { ...response.headers, 'Cache-Control': SOURCE_IPS_CACHE_CONTROL },
      };
    },
  }),
  listWebhooks: operation({
    summary: 'List webhooks',
    query: listWebhooksQuery,
    responses: { 200: { description: 'A page of webhooks, newest first', schema: webhookList } },
    async handle({ query, principal, deps }) {
      const page = pageRequest(query);
      const result = await listWebhooks(deps, principal.orgId, page);
      return jsonResponse(200, { webhooks: result.items, total: result.total, ...page });
    },
  }),
  createWebhook: operation({
    summary: 'Register a webhook (the secret is returned this once)',
    body: createWebhookBody,
    responses: {
      201: { description: 'The webhook, with its signing secret', schema: webhookWithSecret },
    },
    async handle({ body, principal, deps }) {
      return jsonResponse(
        201,
        await createWebhook(deps, principal.orgId, body, ownerOf(principal)),
      );
    },
  }),
  getWebhook: operation({
    summary: 'Get a webhook',
    pathIds: { id: 'webhook' },
    responses: { 200: { description: 'The webhook (never its secret)', schema: webhookResource } },
    async handle({ params, principal, deps }) {
      return jsonResponse(200, await getWebhook(deps, principal.orgId, params.id ?? ''));
    },
  }),
  updateWebhook: operation({
    summary: 'Update a webhook',
    pathIds: { id: 'webhook' },
    body: updateWebhookBody,
    responses: { 200: { description: 'The updated webhook', schema: webhookResource } },
    async handle({ params, body, principal, deps }) {
      const id = params.id ?? '';
      return jsonResponse(
        200,
        await updateWebhook(deps, principal.orgId, id, body, ownerOf(principal)),
      );
    },
  }),
  deleteWebhook: operation({
    summary: 'Delete a webhook',
    pathIds: { id: 'webhook' },
    responses: { 204: { description: 'Deleted' } },
    async handle({ params, principal, deps }) {
      await deleteWebhook(deps, principal.orgId, params.id ?? '');
      return emptyResponse(204);
    },
  }),
  rotateWebhookSecret: operation({
    summary: 'Rotate the signing secret (the old one signs beside it for 24 h)',
    pathIds: { id: 'webhook' },
    responses: {
      200: { description: 'The webhook, with its new secret', schema: webhookWithSecret },
    },
    async handle({ params, principal, deps }) {
      return jsonResponse(200, await rotateWebhookSecret(deps, principal.orgId, params.id ?? ''));
    },
  }),
  listDeliveries: operation({
    summary: 'List deliveries, newest first (filter by status)',
    pathIds: { id: 'webhook' },
    query: listDeliveriesQuery,
    responses: {
      200: { description: 'A page of deliveries with every attempt', schema: deliveryList },
    },
    async handle({ params, query, principal, deps }) {
      const page = pageRequest(query);
      const filter = query.status ? { status: query.status } : {};
      const result = await listDeliveries(deps, principal.orgId, params.id ?? '', filter, page);
      return jsonResponse(200, { deliveries: result.items, total: result.total, ...page });
    },
  }),
  getDelivery: operation({
    summary: 'Get one delivery with its payload',
    pathIds: { id: 'webhook', delivery_id: 'delivery' },
    responses: {
      200: {
        description: 'The delivery, every attempt, and the body they sent',
        schema: deliveryWithPayload,
      },
    },
    async handle({ params, principal, deps }) {
      return jsonResponse(
        200,
        await getDelivery(
          deps,
          principal.orgId,
          params.id ?? '',
          params.delivery_id ?? '',
          payloadReaderOf(principal),
        ),
      );
    },
  }),
  retryDelivery: operation({
    summary:
      'Retry a delivery that has not succeeded by hand, now (failed, cancelled or waiting for its next attempt)',
    pathIds: { id: 'webhook', delivery_id: 'delivery' },
    responses: {
      202: { description: 'The delivery, pending again and queued', schema: deliveryResource },
    },
    async handle({ params, principal, deps }) {
      const delivery = await retryDelivery(
        deps,
        principal.orgId,
        params.id ?? '',
        params.delivery_id ?? '',
      );
      return jsonResponse(202, delivery);
    },
  }),
  sendTestEvent: operation({
    summary: 'Send a signed test event now and report the answer',
    pathIds: { id: 'webhook' },
    responses: { 200: { description: 'How the receiver answered', schema: testEventResult } },
    async handle({ params, principal, deps }) {
      return jsonResponse(200, await sendTestEvent(deps, principal.orgId, params.id ?? ''));
    },
  }),
};

export const handler = httpFunction({
  family: 'webhooks',
  routes: WEBHOOKS_ROUTES,
  operations,
  dependencies,
});
