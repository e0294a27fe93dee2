import fc from 'fast-check';
import { createAgent, createDataSource } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { createTenant, type TestKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import {
  answers,
  type Receipt,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../support/webhook-receiver';
import {
  expectSignedWith,
  standardSignatureMatches,
  standardSignatures,
  svcSignatureMatches,
} from '../support/webhook-signatures';
import {
  createWebhook,
  deliveryOf,
  LOCAL_RECEIVERS_ENV,
  listDeliveries,
  recordDataSourceEvent,
  step,
} from '../support/webhooks';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const HOUR_MS = 3_600_000;

/** D28: exactly `{ id, type, event, timestamp, organizationId, data }`, `type` and `event` alike. */
function expectEnvelope(receipt: Receipt, orgId: string, name: string): Record<string, any> {
  const envelope = receipt.envelope;
  expect(Object.keys(envelope).sort()).toEqual(
    ['data', 'event', 'id', 'organizationId', 'timestamp', 'type'].sort(),
  );
  expect(envelope).toMatchObject({
    id: expect.stringMatching(/^evt_[0-9a-z]{26}$/),
    type: name,
    event: name,
    timestamp: expect.stringMatching(ISO_MS),
    organizationId: orgId,
    data: expect.any(Object),
  });
  // D29 headers.
  expect(receipt.headers['x-svc-event']).toBe(name);
  expect(receipt.headers['x-svc-delivery']).toMatch(/^dlv_[0-9a-z]{26}$/);
  expect(receipt.headers['webhook-id']).toBe(envelope.id);
  expect(receipt.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
  return envelope;
}

/** Receipts of one receiver by event type. */
function byType(receiver: WebhookReceiver): Map<string, Receipt[]> {
  const map = new Map<string, Receipt[]>();
  for (const receipt of receiver.receipts) {
    const type = String(receipt.envelope.type);
    map.set(type, [...(map.get(type) ?? []), receipt]);
  }
  return map;
}

/**
 * Delivery end to end (D27–D29): real changes through the API, the outbox
 * published and the deliveries dispatched by the local workers (one round
 * per `step`), received by real http and https servers.
 */
describe('Webhook delivery', () => {
  const clock = new TestClock();
  let service: TestService;
  const receivers: WebhookReceiver[] = [];

  const receiver = async (tls?: 'localhost'): Promise<WebhookReceiver> => {
    const started = await startWebhookReceiver(tls ? { tls } : {});
    receivers.push(started);
    return started;
  };

  beforeAll(async () => {
    service = await startTestService({ env: { ...LOCAL_RECEIVERS_ENV }, clock });
  });
  afterAll(async () => {
    await service.end();
    await Promise.all(receivers.map((started) => started.close()));
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  describe('subscriptions, envelope, signatures', () => {
    let tenant: TestKey;
    let creations: WebhookReceiver;
    let changes: WebhookReceiver;
    let everything: WebhookReceiver;
    let unrelated: WebhookReceiver;
    const hooks: Record<string, Record<string, any>> = {};
    let source: Record<string, any>;
    let agent: Record<string, any>;
    let updated: Record<string, any>;

    beforeAll(async () => {
      tenant = await createTenant(service, { name: 'Delivery tenant' });
      [creations, changes, everything, unrelated] = await Promise.all([
        receiver('localhost'),
        receiver(),
        receiver('localhost'),
        receiver(),
      ]);
      hooks.creations = await createWebhook(service, tenant.key, {
        url: creations.url('/creations'),
        events: ['agent.created', 'agent.deleted'],
      });
      hooks.changes = await createWebhook(service, tenant.key, {
        url: changes.url('/changes'),
        events: ['agent.updated', 'datasource.created'],
      });
      hooks.everything = await createWebhook(service, tenant.key, {
        url: everything.url('/all'),
        events: ['datasource.created', 'agent.created', 'agent.updated', 'agent.deleted'],
      });
      hooks.unrelated = await createWebhook(service, tenant.key, {
        url: unrelated.url('/users'),
        events: ['user.created', 'interaction.completed'],
      });

      // The changes: a data source, an agent created, updated and deleted.
      source = await createDataSource(service, tenant.key);
      agent = await createAgent(service, tenant.key, {
        name: 'Support bot',
        data_source_ids: [source.id],
        temperature: 0.3,
      });
      const put = await api(service.url, `/api/v1/agents/${agent.id}`, {
        method: 'PUT',
        key: tenant.key,
        body: { name: 'Support bot v2', temperature: 0.9, max_tokens: agent.max_tokens },
      });
      expect(put.status).toBe(200);
      updated = json(put);
      const deleted = await api(service.url, `/api/v1/agents/${agent.id}`, {
        method: 'DELETE',
        key: tenant.key,
      });
      expect(deleted.status).toBe(204);

      await step(service);
    });

    it('sends each receiver exactly the event types it subscribed to', () => {
      const types = (rx: WebhookReceiver) => rx.receipts.map((r) => r.envelope.type).sort();
      expect(types(creations)).toEqual(['agent.created', 'agent.deleted']);
      expect(types(changes)).toEqual(['agent.updated', 'datasource.created']);
      expect(types(everything)).toEqual([
        'agent.created',
        'agent.deleted',
        'agent.updated',
        'datasource.created',
      ]);
      expect(unrelated.receipts).toEqual([]);
      expect(unrelated.connections()).toBe(0);
    });

    it('sends the D28 envelope and the D29 headers, to the registered path', () => {
      for (const [rx, path] of [
        [creations, '/creations'],
        [changes, '/changes'],
        [everything, '/all'],
      ] as const) {
        for (const receipt of rx.receipts) {
          expect(receipt.path).toBe(path);
          expect(receipt.headers['user-agent']).toEqual(expect.any(String));
          expectEnvelope(receipt, tenant.orgId, String(receipt.envelope.type));
        }
      }
    });

    it('gives the same event the same id at every receiver, each delivery its own id', () => {
      const createdAtA = byType(creations).get('agent.created')?.[0];
      const createdAtAll = byType(everything).get('agent.created')?.[0];
      expect(createdAtA?.envelope.id).toBe(createdAtAll?.envelope.id);
      expect(createdAtA?.raw.equals(createdAtAll?.raw ?? Buffer.alloc(0))).toBe(true);
      expect(createdAtA?.headers['x-svc-delivery']).not.toBe(
        createdAtAll?.headers['x-svc-delivery'],
      );
      const eventIds = everything.receipts.map((receipt) => receipt.envelope.id);
      expect(new Set(eventIds).size).toBe(4);
    });

    it('carries the data of each event: agent object, agent plus changes, id, data source object', () => {
      const received = byType(everything);
      expect(received.get('agent.created')?.[0]?.envelope.data).toEqual(agent);
      expect(received.get('agent.updated')?.[0]?.envelope.data).toEqual({
        agent: updated,
        changes: {
          name: { previous: 'Support bot', current: 'Support bot v2' },
          temperature: { previous: 0.3, current: 0.9 },
        },
      });
      expect(received.get('agent.deleted')?.[0]?.envelope.data).toEqual({ id: agent.id });
      expect(received.get('datasource.created')?.[0]?.envelope.data).toEqual(source);
    });

    it('signs the raw body bytes: X-Svc-Signature (hex) and webhook-signature (Standard Webhooks)', () => {
      const secrets = new Map<WebhookReceiver, string>([
        [creations, hooks.creations?.secret],
        [changes, hooks.changes?.secret],
        [everything, hooks.everything?.secret],
      ]);
      for (const [rx, secret] of secrets) {
        expect(rx.receipts.length).toBeGreaterThan(0);
        for (const receipt of rx.receipts) {
          expectSignedWith(receipt, secret);
          // Another webhook's secret does not verify.
          const other = rx === creations ? hooks.changes?.secret : hooks.creations?.secret;
          expect(svcSignatureMatches(receipt, other)).toBe(false);
          expect(standardSignatureMatches(receipt, other)).toBe(false);
        }
      }
    });

    it('signs the exact bytes: one flipped byte no longer verifies', () => {
      const [receipt] = everything.receipts;
      if (!receipt) throw new Error('expected a receipt');
      const tampered = Buffer.from(receipt.raw);
      tampered[tampered.length - 2] = (tampered[tampered.length - 2] ?? 0) ^ 1;
      const forged = { ...receipt, raw: tampered };
      expect(svcSignatureMatches(forged, hooks.everything?.secret)).toBe(false);
      expect(standardSignatureMatches(forged, hooks.everything?.secret)).toBe(false);
    });

    it('lists each delivery with its attempt: status code, duration, time', async () => {
      const deliveries = await listDeliveries(service, tenant.key, hooks.everything?.id);

      expect(deliveries).toHaveLength(4);
      for (const delivery of deliveries) {
        const receipt = everything.receipts.find((r) => r.envelope.id === delivery.event_id);
        expect(delivery).toEqual({
          id: receipt?.headers['x-svc-delivery'],
          webhook_id: hooks.everything?.id,
          event_id: receipt?.envelope.id,
          event_type: receipt?.envelope.type,
          status: 'delivered',
          attempts: [
            {
              attempt: 1,
              at: expect.stringMatching(ISO_MS),
              status_code: 200,
              duration_ms: expect.any(Number),
              error: null,
            },
          ],
          created_at: expect.stringMatching(ISO_MS),
          updated_at: expect.stringMatching(ISO_MS),
          next_attempt_at: null,
          failure_reason: null,
          retried_at: null,
        });
        expect(delivery.attempts[0].duration_ms).toBeGreaterThanOrEqual(0);
      }
      const ids = deliveries.map((delivery) => delivery.id);
      expect(ids).toEqual([...ids].sort().reverse());
      expect(await listDeliveries(service, tenant.key, hooks.unrelated?.id)).toEqual([]);
      expect(await listDeliveries(service, tenant.key, hooks.everything?.id, 'failed')).toEqual([]);
    });

    it('sends nothing more on the next rounds (each event once)', async () => {
      const before = receivers.map((rx) => rx.receipts.length);
      await step(service);
      clock.advance(HOUR_MS);
      await step(service);
      expect(receivers.map((rx) => rx.receipts.length)).toEqual(before);
    });
  });

  describe('subscription changes', () => {
    it('follows a change of events for later events, and sends no agent.updated for an update that changes nothing', async () => {
      const tenant = await createTenant(service, { name: 'Resubscribing tenant' });
      const rx = await receiver();
      const hook = await createWebhook(service, tenant.key, {
        url: rx.url(),
        events: ['agent.created', 'agent.updated'],
      });
      const agent = await createAgent(service, tenant.key, { name: 'Same', data_source_ids: [] });
      const same = await api(service.url, `/api/v1/agents/${agent.id}`, {
        method: 'PUT',
        key: tenant.key,
        body: { name: 'Same' },
      });
      expect(same.status).toBe(200);
      await step(service);
      expect(rx.receipts.map((r) => r.envelope.type)).toEqual(['agent.created']);

      const changed = await api(service.url, `/api/v1/webhooks/${hook.id}`, {
        method: 'PUT',
        key: tenant.key,
        body: { events: ['agent.deleted'] },
      });
      expect(changed.status).toBe(200);
      await createAgent(service, tenant.key, { name: 'Unseen', data_source_ids: [] });
      await api(service.url, `/api/v1/agents/${agent.id}`, {
        method: 'PUT',
        key: tenant.key,
        body: { name: 'Renamed' },
      });
      await api(service.url, `/api/v1/agents/${agent.id}`, { method: 'DELETE', key: tenant.key });
      await step(service);

      expect(rx.receipts.map((r) => r.envelope.type)).toEqual(['agent.created', 'agent.deleted']);
      expect(rx.receipts[1]?.envelope.data).toEqual({ id: agent.id });
    });
  });

  describe('aliases (D27)', () => {
    it('delivers under the name each webhook subscribed with', async () => {
      const tenant = await createTenant(service, { name: 'Alias tenant' });
      const [synced, canonical, both] = await Promise.all([
        receiver(),
        receiver('localhost'),
        receiver(),
      ]);
      const syncedHook = await createWebhook(service, tenant.key, {
        url: synced.url(),
        events: ['data_source.synced'],
      });
      const canonicalHook = await createWebhook(service, tenant.key, {
        url: canonical.url(),
        events: ['datasource.processed'],
      });
      const bothHook = await createWebhook(service, tenant.key, {
        url: both.url(),
        events: ['data_source.processed', 'datasource.processed'],
      });
      const source = await createDataSource(service, tenant.key);
      await step(service); // datasource.created: nobody here subscribed to it
      expect(synced.receipts.length + canonical.receipts.length + both.receipts.length).toBe(0);

      const data = {
        id: source.id,
        name: source.name,
        type: 'WEBSITE',
        status: 'COMPLETED',
        stats: { documentsProcessed: 12, tokensProcessed: 3400, duration: 8.5 },
      };
      const event = await recordDataSourceEvent(
        service,
        tenant.orgId,
        source.id,
        'datasource.processed',
        data,
      );
      await step(service);

      const cases: Array<[WebhookReceiver, Record<string, any>, string]> = [
        [synced, syncedHook, 'data_source.synced'],
        [canonical, canonicalHook, 'datasource.processed'],
        [both, bothHook, 'data_source.processed'],
      ];
      for (const [rx, hook, name] of cases) {
        expect(rx.receipts).toHaveLength(1);
        const [receipt] = rx.receipts;
        if (!receipt) throw new Error('expected a receipt');
        expect(expectEnvelope(receipt, tenant.orgId, name)).toMatchObject({ id: event.id, data });
        expectSignedWith(receipt, hook.secret);
        expect((await deliveryOf(service, tenant.key, hook.id, event.id)).event_type).toBe(name);
      }
    });
  });

  describe('test event', () => {
    it('sends a signed webhook.test envelope now and reports the answer (200)', async () => {
      const tenant = await createTenant(service, { name: 'Test-event tenant' });
      const rx = await receiver('localhost');
      const hook = await createWebhook(service, tenant.key, {
        url: rx.url('/test-me'),
        events: ['agent.created'],
      });

      const response = await api(service.url, `/api/v1/webhooks/${hook.id}/test`, {
        method: 'POST',
        key: tenant.key,
      });

      expect(response.status).toBe(200);
      const result = json(response);
      expect(result).toEqual({
        event_id: expect.stringMatching(/^evt_[0-9a-z]{26}$/),
        delivered: true,
        status_code: 200,
        duration_ms: expect.any(Number),
        error: null,
      });
      expect(rx.receipts).toHaveLength(1);
      const [receipt] = rx.receipts;
      if (!receipt) throw new Error('expected a receipt');
      expect(receipt.path).toBe('/test-me');
      const envelope = expectEnvelope(receipt, tenant.orgId, 'webhook.test');
      expect(envelope.id).toBe(result.event_id);
      expect(envelope.data).toMatchObject({ webhook_id: hook.id });
      expectSignedWith(receipt, hook.secret);
      // Not a delivery, and no status change.
      expect(await listDeliveries(service, tenant.key, hook.id)).toEqual([]);
      await step(service);
      expect(rx.receipts).toHaveLength(1);
    });

    it('reports a failing receiver: delivered false with its status code, on both paths', async () => {
      const tenant = await createTenant(service, { name: 'Failing test-event tenant' });
      const rx = await receiver();
      const hook = await createWebhook(service, tenant.key, {
        url: rx.url(),
        events: ['agent.created'],
      });
      rx.answerWith(answers.status(500));

      const v1 = await api(service.url, `/api/v1/webhooks/${hook.id}/test`, {
        method: 'POST',
        key: tenant.key,
      });
      const legacy = await api(service.url, `/api/webhooks/${hook.id}/test`, {
        method: 'POST',
        key: tenant.key,
      });

      for (const response of [v1, legacy]) {
        expect(response.status).toBe(200);
        expect(json(response)).toEqual({
          event_id: expect.stringMatching(/^evt_/),
          delivered: false,
          status_code: 500,
          duration_ms: expect.any(Number),
          error: null,
        });
      }
      expect(legacy.headers.get('deprecation')).toBe('true');
      expect(rx.receipts).toHaveLength(2);
      for (const receipt of rx.receipts) expectSignedWith(receipt, hook.secret);
      const read = await api(service.url, `/api/v1/webhooks/${hook.id}`, { key: tenant.key });
      expect(json(read).status).toBe('active');
    });
  });

  describe('secret rotation (D29: 24 h overlap)', () => {
    it('signs with both secrets for 24 hours, then with the new one only', async () => {
      const tenant = await createTenant(service, { name: 'Rotation tenant' });
      const rx = await receiver('localhost');
      const hook = await createWebhook(service, tenant.key, {
        url: rx.url(),
        events: ['agent.created'],
      });
      const oldSecret: string = hook.secret;
      // Four agents: within the Write bucket's burst, so no refill (and no clock jump) is needed.
      const agentAt = async (name: string) => {
        await createAgent(service, tenant.key, { name, data_source_ids: [] });
        await step(service);
        const receipt = rx.receipts.at(-1);
        if (!receipt) throw new Error('expected a receipt');
        expect(receipt.envelope.data.name).toBe(name);
        return receipt;
      };

      // Before the rotation: the old secret only.
      expectSignedWith(await agentAt('before'), oldSecret);

      const rotated = await api(service.url, `/api/v1/webhooks/${hook.id}/rotate-secret`, {
        method: 'POST',
        key: tenant.key,
      });
      expect(rotated.status).toBe(200);
      const newSecret: string = json(rotated).secret;
      const rotatedAt = clock.now().getTime();
      const moveTo = (at: number) => clock.advance(at - clock.now().getTime());

      // Right after, and 24 h minus a minute later: both.
      for (const when of ['just after', 'almost a day after']) {
        if (when !== 'just after') moveTo(rotatedAt + 24 * HOUR_MS - 60_000);
        const receipt = await agentAt(when);
        expect(svcSignatureMatches(receipt, newSecret)).toBe(true);
        expect(svcSignatureMatches(receipt, oldSecret, 'x-svc-signature-previous')).toBe(true);
        expect(svcSignatureMatches(receipt, oldSecret)).toBe(false);
        expect(standardSignatures(receipt)).toHaveLength(2);
        expect(standardSignatureMatches(receipt, newSecret)).toBe(true);
        expect(standardSignatureMatches(receipt, oldSecret)).toBe(true);
        // The current secret's entry comes first.
        const [first] = standardSignatures(receipt);
        expect(
          standardSignatureMatches(
            { ...receipt, headers: { ...receipt.headers, 'webhook-signature': first } },
            newSecret,
          ),
        ).toBe(true);
      }

      // After 24 h: the new secret only; the old one verifies nothing.
      moveTo(rotatedAt + 24 * HOUR_MS + 1_000);
      const after = await agentAt('a day after');
      expectSignedWith(after, newSecret);
      expect(standardSignatureMatches(after, oldSecret)).toBe(false);
      expect(svcSignatureMatches(after, oldSecret)).toBe(false);
    });
  });

  describe('fuzzed payloads', () => {
    it('signs whatever the payload holds: the raw bytes verify and parse back to what was sent', async () => {
      const tenant = await createTenant(service, { name: 'Fuzz payload tenant' });
      const rx = await receiver('localhost');
      const hook = await createWebhook(service, tenant.key, {
        url: rx.url(),
        events: ['agent.created'],
      });
      const names = fc.oneof(
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
        fc.constantFrom(
          '"quoted" \\ back\\slash',
          '\u2028\u2029',
          '🙂👍🏽',
          'e\u0301',
          '</script>',
        ),
      );
      const prompts = fc.option(fc.string({ unit: 'grapheme-composite', maxLength: 200 }), {
        nil: undefined,
      });

      await fc.assert(
        fc.asyncProperty(names, prompts, async (name, prompt) => {
          clock.advance(REFILL_ALL_BUCKETS_MS);
          const body = { name, data_source_ids: [], ...(prompt ? { system_prompt: prompt } : {}) };
          const created = await api(service.url, '/api/v1/agents', {
            method: 'POST',
            key: tenant.key,
            body,
          });
          expect(created.status).toBeLessThan(500);
          if (created.status !== 201) return; // refused by validation: no event
          const before = rx.receipts.length;
          await step(service);
          expect(rx.receipts).toHaveLength(before + 1);
          const receipt = rx.receipts[before] as Receipt;
          expectSignedWith(receipt, hook.secret);
          expect(JSON.parse(receipt.raw.toString('utf8')).data).toEqual(json(created));
        }),
        { numRuns: 8 },
      );
    });
  });
});
