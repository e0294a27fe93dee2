/** Webhook helpers for the end-to-end tests: the API calls they repeat, and the service's background round. */
import { join } from 'node:path';
import { OrgPartitionItems } from '../../layers/core/adapters/dynamodb/org-partition-items';
import { keys } from '../../layers/core/adapters/dynamodb/table-design';
import type { DomainEvent, EventType } from '../../layers/core/domain/events';
import { domainEvent } from '../../layers/core/use-cases/events/domain-events';
import { parseLocalConfig } from '../../lib/local/local-config';
import { api, json } from './http-client';
import type { TestService } from './local-service';

/** The private test CA (test/fixtures/tls/README.md), for `SVC_EXTRA_CA_FILE`. */
export const TEST_CA_FILE = join(__dirname, '..', 'fixtures', 'tls', 'ca.pem');

/** A service that may deliver to loopback receivers (D35 local runs) and trusts the test CA. */
export const LOCAL_RECEIVERS_ENV: Readonly<Record<string, string>> = {
  SVC_ALLOW_PRIVATE_URLS: 'true',
  SVC_EXTRA_CA_FILE: TEST_CA_FILE,
};

/** Creates a webhook over HTTP (v1) and returns the body, secret included; fails the test unless 201. */
export async function createWebhook(
  service: TestService,
  key: string,
  body: Record<string, unknown>,
): Promise<Record<string, any>> {
  const response = await api(service.url, '/api/v1/webhooks', { method: 'POST', key, body });
  expect({ status: response.status, body: response.body }).toMatchObject({ status: 201 });
  return json(response);
}

export async function getWebhook(
  service: TestService,
  key: string,
  id: string,
): Promise<Record<string, any>> {
  const response = await api(service.url, `/api/v1/webhooks/${id}`, { key });
  expect(response.status).toBe(200);
  return json(response);
}

/** Every delivery of a webhook (newest first), optionally filtered by status. */
export async function listDeliveries(
  service: TestService,
  key: string,
  webhookId: string,
  status?: string,
): Promise<Record<string, any>[]> {
  const query = `?limit=200${status ? `&status=${status}` : ''}`;
  const response = await api(service.url, `/api/v1/webhooks/${webhookId}/deliveries${query}`, {
    key,
  });
  expect(response.status).toBe(200);
  return json(response).deliveries as Record<string, any>[];
}

/** The one delivery of `eventId` to a webhook. */
export async function deliveryOf(
  service: TestService,
  key: string,
  webhookId: string,
  eventId: string,
): Promise<Record<string, any>> {
  const matching = (await listDeliveries(service, key, webhookId)).filter(
    (delivery) => delivery.event_id === eventId,
  );
  expect(matching).toHaveLength(1);
  return matching[0] as Record<string, any>;
}

/** One background round: publish the outbox, dispatch every due delivery (real dispatcher, local queue). */
export function step(service: TestService): Promise<number> {
  return service.runtime.workers.step();
}

const TABLE_NAME = parseLocalConfig({}).SVC_TABLE_NAME;

/**
 * Records an event in a data source's outbox, in the same kind of write a
 * use case makes, so the fan-out and the D27 alias names can be tested end
 * to end without running a sync for every event.
 */
export async function recordDataSourceEvent(
  service: TestService,
  orgId: string,
  dataSourceId: string,
  type: EventType,
  data: Record<string, unknown>,
): Promise<DomainEvent> {
  const event = domainEvent(type, orgId, data, service.runtime.dependencies.clock.now());
  const items = new OrgPartitionItems<{ id: string }>(
    service.runtime.client,
    TABLE_NAME,
    'data_source',
    keys.dataSourcePrefix,
  );
  const updated = await items.update(
    orgId,
    dataSourceId,
    { updated_at: event.timestamp },
    { events: [event] },
  );
  expect(updated).not.toBeNull();
  return event;
}
