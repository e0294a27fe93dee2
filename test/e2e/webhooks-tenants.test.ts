import { expectFlatError, expectNestedError } from '../support/error-shapes';
import { createAgent } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { unknownId } from '../support/ids';
import { startTestService, type TestService } from '../support/local-service';
import { createTenant, type TestKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import { answers, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import {
  createWebhook,
  getWebhook,
  LOCAL_RECEIVERS_ENV,
  listDeliveries,
  step,
} from '../support/webhooks';

/**
 * Tenant isolation for webhooks: organization B's Admin key cannot see,
 * change, test or retry organization A's webhooks and deliveries (another
 * tenant's id answers exactly like an unknown id), and events never cross
 * organizations.
 */
describe('Webhooks across tenants', () => {
  const clock = new TestClock();
  let service: TestService;
  let tenantA: TestKey;
  let tenantB: TestKey;
  let receiverA: WebhookReceiver;
  let receiverB: WebhookReceiver;
  let hookA: Record<string, any>;
  let hookB: Record<string, any>;
  let deliveryA: Record<string, any>;
  let deliveryB: Record<string, any>;

  beforeAll(async () => {
    service = await startTestService({ env: { ...LOCAL_RECEIVERS_ENV }, clock });
    [receiverA, receiverB] = await Promise.all([
      startWebhookReceiver({ tls: 'localhost' }),
      startWebhookReceiver(),
    ]);
    [tenantA, tenantB] = await Promise.all([
      createTenant(service, { name: 'Tenant A' }),
      createTenant(service, { name: 'Tenant B' }),
    ]);
    const events = ['agent.created', 'agent.updated', 'agent.deleted'];
    hookA = await createWebhook(service, tenantA.key, { url: receiverA.url('/a'), events });
    hookB = await createWebhook(service, tenantB.key, { url: receiverB.url('/b'), events });
    // Each tenant has a delivery: A's failed (retryable), B's delivered.
    receiverA.answerWith(answers.status(500));
    await createAgent(service, tenantA.key, { name: 'Agent of A', data_source_ids: [] });
    await createAgent(service, tenantB.key, { name: 'Agent of B', data_source_ids: [] });
    for (const delay of [0, 5, 30, 300, 3600]) {
      clock.advance(delay * 1000);
      await step(service);
    }
    receiverA.answerWith(answers.ok);
    [deliveryA] = (await listDeliveries(service, tenantA.key, hookA.id)) as [Record<string, any>];
    [deliveryB] = (await listDeliveries(service, tenantB.key, hookB.id)) as [Record<string, any>];
    expect(deliveryA.status).toBe('failed');
    expect(deliveryB.status).toBe('delivered');
  });
  afterAll(async () => {
    await service.end();
    await Promise.all([receiverA.close(), receiverB.close()]);
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const asB = (path: string, method = 'GET', body?: unknown) =>
    api(service.url, path, { method, key: tenantB.key, ...(body !== undefined ? { body } : {}) });

  type Case = readonly [
    method: string,
    what: string,
    path: (wh: string, dlv: string) => string,
    body: unknown,
  ];
  const cases = (prefix: string): Case[] => [
    ['GET', 'get', (wh) => `${prefix}/${wh}`, undefined],
    ['PUT', 'update', (wh) => `${prefix}/${wh}`, { description: 'hijacked' }],
    ['PUT', 'update the url', (wh) => `${prefix}/${wh}`, { url: 'http://127.0.0.1:9/stolen' }],
    ['DELETE', 'delete', (wh) => `${prefix}/${wh}`, undefined],
    ['POST', 'rotate-secret', (wh) => `${prefix}/${wh}/rotate-secret`, undefined],
    ['GET', 'deliveries', (wh) => `${prefix}/${wh}/deliveries`, undefined],
    ['GET', 'failed deliveries', (wh) => `${prefix}/${wh}/deliveries?status=failed`, undefined],
    ['POST', 'retry', (wh, dlv) => `${prefix}/${wh}/deliveries/${dlv}/retry`, undefined],
    ['POST', 'test', (wh) => `${prefix}/${wh}/test`, undefined],
  ];

  it.each(cases('/api/v1/webhooks'))(
    '%s (%s) on A’s webhook with B’s key is 404, as for an unknown id',
    async (method, _what, path, body) => {
      const response = await asB(path(hookA.id, deliveryA.id), method, body);
      const unknown = await asB(path(unknownId('wh'), unknownId('dlv')), method, body);

      const error = expectNestedError(response, 404, 'not_found');
      const unknownError = expectNestedError(unknown, 404, 'not_found');
      expect(error.details).toEqual(unknownError.details);
      expect(error.message.replace(/(wh|dlv)_\w+/g, 'ID')).toBe(
        unknownError.message.replace(/(wh|dlv)_\w+/g, 'ID'),
      );
      expect(response.text).not.toContain(hookA.url);
    },
  );

  it.each(cases('/api/webhooks'))(
    'legacy %s (%s) on A’s webhook with B’s key is 404 (flat shape)',
    async (method, _what, path, body) => {
      const response = await asB(path(hookA.id, deliveryA.id), method, body);
      expect(expectFlatError(response, 404)).toMatchObject({ status: 404 });
    },
  );

  it('answers 404 for A’s delivery under B’s own webhook', async () => {
    const response = await asB(
      `/api/v1/webhooks/${hookB.id}/deliveries/${deliveryA.id}/retry`,
      'POST',
    );
    expectNestedError(response, 404, 'not_found');
  });

  it('left A’s webhook and delivery untouched, and sent nothing for B’s attempts', async () => {
    const read = await getWebhook(service, tenantA.key, hookA.id);
    expect(read).toMatchObject({
      id: hookA.id,
      url: receiverA.url('/a'),
      description: null,
      secret_last4: hookA.secret_last4,
    });
    const [delivery] = await listDeliveries(service, tenantA.key, hookA.id);
    expect(delivery).toEqual(deliveryA);
    // B's test and retry calls reached no receiver.
    expect(receiverA.receipts).toHaveLength(5);
    await step(service);
    expect(receiverA.receipts).toHaveLength(5);
  });

  it('never lists A’s webhooks to B', async () => {
    const listB = json(await asB('/api/v1/webhooks?limit=200'));
    const legacyB = json(await asB('/api/webhooks?limit=200'));
    expect(listB).toMatchObject({ total: 1 });
    expect(listB.webhooks.map((w: any) => w.id)).toEqual([hookB.id]);
    expect(legacyB.webhooks.map((w: any) => w.id)).toEqual([hookB.id]);
  });

  it('delivers each organization’s events only to its own webhooks', async () => {
    const beforeA = receiverA.receipts.length;
    const beforeB = receiverB.receipts.length;
    const agentA = await createAgent(service, tenantA.key, { name: 'A2', data_source_ids: [] });
    const agentB = await createAgent(service, tenantB.key, { name: 'B2', data_source_ids: [] });
    for (const [key, id] of [
      [tenantA.key, agentA.id],
      [tenantB.key, agentB.id],
    ]) {
      await api(service.url, `/api/v1/agents/${id}`, {
        method: 'PUT',
        key,
        body: { name: `${id} renamed` },
      });
      await api(service.url, `/api/v1/agents/${id}`, { method: 'DELETE', key });
    }

    await step(service);

    const newA = receiverA.receipts.slice(beforeA);
    const newB = receiverB.receipts.slice(beforeB);
    expect(newA).toHaveLength(3);
    expect(newB).toHaveLength(3);
    for (const receipt of newA) {
      expect(receipt.envelope.organizationId).toBe(tenantA.orgId);
      expect(JSON.stringify(receipt.envelope.data)).toContain(agentA.id);
      expect(receipt.raw.toString()).not.toContain(agentB.id);
    }
    for (const receipt of newB) {
      expect(receipt.envelope.organizationId).toBe(tenantB.orgId);
      expect(JSON.stringify(receipt.envelope.data)).toContain(agentB.id);
      expect(receipt.raw.toString()).not.toContain(agentA.id);
    }
    // The bootstrap organization has no webhook of its own to receive them.
    expect(receiverA.receipts.every((r) => r.envelope.organizationId === tenantA.orgId)).toBe(true);
    expect(receiverB.receipts.every((r) => r.envelope.organizationId === tenantB.orgId)).toBe(true);
  });

  it('answers A’s key with 404 on B’s webhook too', async () => {
    const response = await api(service.url, `/api/v1/webhooks/${hookB.id}/test`, {
      method: 'POST',
      key: tenantA.key,
    });
    expectNestedError(response, 404, 'not_found');
    expect(receiverB.receipts.every((r) => r.envelope.type !== 'webhook.test')).toBe(true);
  });
});
