import { expectNestedError, fieldPaths } from '../support/error-shapes';
import { createAgent } from '../support/fixtures';
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
import { expectSignedWith } from '../support/webhook-signatures';
import {
  createWebhook,
  deliveryOf,
  getWebhook,
  LOCAL_RECEIVERS_ENV,
  listDeliveries,
  step,
} from '../support/webhooks';

/** D29: attempts at 0 s, 5 s, 35 s, 5 min 35 s and 1 h 5 min 35 s. */
const SCHEDULE_SECONDS = [0, 5, 35, 335, 3935];

/**
 * The D29 retry schedule on the local queue, driven by a frozen TestClock:
 * nothing moves unless the test advances time, so every attempt's instant is
 * exact, and a step just before a retry is due shows nothing is sent early.
 */
describe('Webhook retries (D29)', () => {
  const clock = new TestClock();
  let service: TestService;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    clock.freeze();
    service = await startTestService({ env: { ...LOCAL_RECEIVERS_ENV }, clock });
  });
  afterAll(async () => {
    await service.end();
    await Promise.all(receivers.map((rx) => rx.close()));
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  /** A tenant with one webhook on a fresh receiver (each test its own, so nothing carries over). */
  async function setUp(options: { tls?: 'localhost'; events?: string[] } = {}) {
    const tenant = await createTenant(service, { name: 'Retry tenant' });
    const rx = await startWebhookReceiver(options.tls ? { tls: options.tls } : {});
    receivers.push(rx);
    const hook = await createWebhook(service, tenant.key, {
      url: rx.url(),
      events: options.events ?? ['agent.created'],
    });
    return { tenant, rx, hook };
  }

  async function newAgent(tenant: TestKey, name = 'Retried agent'): Promise<Record<string, any>> {
    return createAgent(service, tenant.key, { name, data_source_ids: [] });
  }

  /** Steps the workers; returns the receipts that round brought. */
  async function stepAndCollect(rx: WebhookReceiver): Promise<Receipt[]> {
    const before = rx.receipts.length;
    await step(service);
    return rx.receipts.slice(before);
  }

  it('retries a failing receiver at 0 s, 5 s, 35 s, 5 min 35 s, 1 h 5 min 35 s, then marks the delivery and the webhook failed', async () => {
    const { tenant, rx, hook } = await setUp({ tls: 'localhost' });
    rx.answerWith(answers.status(500));
    await newAgent(tenant);
    const start = clock.now().getTime();
    const at: number[] = [];
    const expectAttempts = async (count: number) => {
      const got = await stepAndCollect(rx);
      for (const _ of got) at.push((clock.now().getTime() - start) / 1000);
      expect(rx.receipts).toHaveLength(count);
    };

    await expectAttempts(1);
    const eventId = String(rx.receipts[0]?.envelope.id);
    const first = await deliveryOf(service, tenant.key, hook.id, eventId);
    expect(first).toMatchObject({
      status: 'pending',
      attempts: [{ attempt: 1, status_code: 500, error: null }],
      next_attempt_at: new Date(start + 5_000).toISOString(),
      failure_reason: null,
    });

    const delays = [5, 30, 300, 3600];
    for (const [index, delay] of delays.entries()) {
      // 100 ms before it is due: nothing.
      clock.advance(delay * 1000 - 100);
      await expectAttempts(index + 1);
      // When it is due: the next attempt.
      clock.advance(100);
      await expectAttempts(index + 2);
    }

    expect(at).toEqual(SCHEDULE_SECONDS);
    // Every attempt is the same event, signed afresh at its own time.
    for (const [index, receipt] of rx.receipts.entries()) {
      expect(receipt.envelope.id).toBe(eventId);
      expect(receipt.raw.equals(rx.receipts[0]?.raw ?? Buffer.alloc(0))).toBe(true);
      expect(Number(receipt.headers['webhook-timestamp'])).toBe(
        Math.floor((start + (SCHEDULE_SECONDS[index] ?? 0) * 1000) / 1000),
      );
      expectSignedWith(receipt, hook.secret);
    }

    const failed = await deliveryOf(service, tenant.key, hook.id, eventId);
    expect(failed).toMatchObject({
      status: 'failed',
      next_attempt_at: null,
      failure_reason: expect.stringContaining('5 attempts'),
    });
    expect(failed.attempts).toHaveLength(5);
    expect(failed.attempts.map((attempt: any) => attempt.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(failed.attempts.map((attempt: any) => attempt.status_code)).toEqual([
      500, 500, 500, 500, 500,
    ]);
    expect(failed.attempts.map((attempt: any) => (Date.parse(attempt.at) - start) / 1000)).toEqual(
      SCHEDULE_SECONDS,
    );
    expect(await listDeliveries(service, tenant.key, hook.id, 'failed')).toEqual([failed]);
    expect((await getWebhook(service, tenant.key, hook.id)).status).toBe('failed');

    // Nothing after the 5th attempt, however long we wait.
    clock.advance(24 * 3_600_000);
    await expectAttempts(5);
  });

  it('keeps delivering to a failed webhook; the next success sets it active again; a failed delivery can be retried by hand once', async () => {
    const { tenant, rx, hook } = await setUp();
    rx.answerWith(answers.status(503));
    await newAgent(tenant, 'first');
    for (const delay of [0, 5, 30, 300, 3600]) {
      clock.advance(delay * 1000);
      await step(service);
    }
    expect(rx.receipts).toHaveLength(5);
    expect((await getWebhook(service, tenant.key, hook.id)).status).toBe('failed');
    const failedEvent = String(rx.receipts[0]?.envelope.id);
    const failed = await deliveryOf(service, tenant.key, hook.id, failedEvent);

    // D29: a failed webhook still receives new events; a success sets it active.
    rx.answerWith(answers.ok);
    clock.advance(REFILL_ALL_BUCKETS_MS);
    await newAgent(tenant, 'second');
    const next = await stepAndCollect(rx);
    expect(next.map((receipt) => receipt.envelope.data.name)).toEqual(['second']);
    expect((await getWebhook(service, tenant.key, hook.id)).status).toBe('active');
    expect((await deliveryOf(service, tenant.key, hook.id, failedEvent)).status).toBe('failed');

    // Manual retry: 202, pending again, delivered on the next round.
    const retried = await api(
      service.url,
      `/api/v1/webhooks/${hook.id}/deliveries/${failed.id}/retry`,
      { method: 'POST', key: tenant.key },
    );
    expect(retried.status).toBe(202);
    expect(json(retried)).toMatchObject({
      id: failed.id,
      event_id: failedEvent,
      status: 'pending',
      failure_reason: null,
    });
    const redelivered = await stepAndCollect(rx);
    expect(redelivered.map((receipt) => receipt.envelope.id)).toEqual([failedEvent]);
    expect(redelivered[0]?.headers['x-svc-delivery']).toBe(failed.id);
    expectSignedWith(redelivered[0] as Receipt, hook.secret);
    const delivered = await deliveryOf(service, tenant.key, hook.id, failedEvent);
    expect(delivered.status).toBe('delivered');
    expect(delivered.attempts).toHaveLength(6);
    expect(delivered.attempts.at(-1)).toMatchObject({ status_code: 200, error: null });

    // A delivered delivery cannot be retried (400 naming it); an unknown one is 404.
    const again = await api(
      service.url,
      `/api/v1/webhooks/${hook.id}/deliveries/${failed.id}/retry`,
      { method: 'POST', key: tenant.key },
    );
    const error = expectNestedError(again, 400, 'invalid_request');
    expect(fieldPaths(error)).toEqual(['delivery_id']);
    expect(error.message).toContain('delivered');
    const unknown = await api(
      service.url,
      `/api/v1/webhooks/${hook.id}/deliveries/dlv_01jf3zzzzzzzzzzzzzzzzzzzzz/retry`,
      { method: 'POST', key: tenant.key },
    );
    expectNestedError(unknown, 404, 'not_found');
    // Nothing more goes out.
    clock.advance(3_600_000);
    expect(await stepAndCollect(rx)).toEqual([]);
  });

  it('retries a failed delivery by hand on the legacy path too', async () => {
    const { tenant, rx, hook } = await setUp();
    rx.answerWith(answers.status(500));
    await newAgent(tenant);
    for (const delay of [0, 5, 30, 300, 3600]) {
      clock.advance(delay * 1000);
      await step(service);
    }
    const [failed] = await listDeliveries(service, tenant.key, hook.id, 'failed');
    rx.answerWith(answers.ok);

    const retried = await api(
      service.url,
      `/api/webhooks/${hook.id}/deliveries/${failed?.id}/retry`,
      { method: 'POST', key: tenant.key },
    );

    expect(retried.status).toBe(202);
    expect(retried.headers.get('deprecation')).toBe('true');
    await step(service);
    expect(rx.receipts.at(-1)?.answer).toEqual(answers.ok);
    expect((await deliveryOf(service, tenant.key, hook.id, failed?.event_id)).status).toBe(
      'delivered',
    );
  });

  it('retries a delivery waiting for its next attempt at once, and drops the schedule it replaced (P286)', async () => {
    const { tenant, rx, hook } = await setUp();
    rx.answerWith(answers.status(500));
    await newAgent(tenant);
    await step(service);
    const start = clock.now().getTime();
    const [waiting] = await listDeliveries(service, tenant.key, hook.id);
    expect(waiting).toMatchObject({ status: 'pending', retried_at: null });
    expect(waiting?.next_attempt_at).toBe(new Date(start + 5_000).toISOString());

    // 1 s later, by hand: sent now, not at 5 s; it fails again, so its own schedule starts.
    clock.advance(1_000);
    const retried = await api(
      service.url,
      `/api/v1/webhooks/${hook.id}/deliveries/${waiting?.id}/retry`,
      { method: 'POST', key: tenant.key },
    );
    expect(retried.status).toBe(202);
    expect(json(retried)).toMatchObject({
      status: 'pending',
      retried_at: new Date(start + 1_000).toISOString(),
    });
    expect(await stepAndCollect(rx)).toHaveLength(1);
    const [after] = await listDeliveries(service, tenant.key, hook.id);
    expect(after?.next_attempt_at).toBe(new Date(start + 6_000).toISOString());

    // The first schedule's message comes back at 5 s: dropped, nothing sent.
    clock.advance(4_000);
    expect(await stepAndCollect(rx)).toEqual([]);
    // The retry's schedule goes on: 5 s after its attempt, the receiver has recovered.
    rx.answerWith(answers.ok);
    clock.advance(1_000);
    expect(await stepAndCollect(rx)).toHaveLength(1);
    const [delivered] = await listDeliveries(service, tenant.key, hook.id);
    expect(delivered).toMatchObject({ status: 'delivered', next_attempt_at: null });
    expect(delivered?.attempts.map((attempt: any) => attempt.status_code)).toEqual([500, 500, 200]);
    clock.advance(3_600_000);
    expect(await stepAndCollect(rx)).toEqual([]);
  });

  it('refuses to retry a delivery whose first attempt is still on its way', async () => {
    const { tenant, hook } = await setUp();
    const now = clock.now().toISOString();
    const id = 'dlv_01jf3aaaaaaaaaaaaaaaaaaaaa';
    await service.runtime.dependencies.deliveries.createIfAbsent(
      tenant.orgId,
      {
        id,
        webhook_id: hook.id,
        event_id: 'evt_01jf3aaaaaaaaaaaaaaaaaaaaa',
        event_type: 'agent.created',
        status: 'pending',
        attempts: [],
        created_at: now,
        updated_at: now,
        next_attempt_at: now,
        failure_reason: null,
        retried_at: null,
      },
      '{}',
    );

    const retried = await api(service.url, `/api/v1/webhooks/${hook.id}/deliveries/${id}/retry`, {
      method: 'POST',
      key: tenant.key,
    });

    const error = expectNestedError(retried, 400, 'invalid_request');
    expect(fieldPaths(error)).toEqual(['delivery_id']);
    expect(error.message).toContain('first attempt is on its way');
  });

  it('shows one delivery with the exact body it sent (P287)', async () => {
    const { tenant, rx, hook } = await setUp();
    rx.answerWith(answers.status(500));
    await newAgent(tenant, 'payload');
    await step(service);
    const [delivery] = await listDeliveries(service, tenant.key, hook.id);
    expect(delivery).not.toHaveProperty('payload');

    const got = await api(service.url, `/api/v1/webhooks/${hook.id}/deliveries/${delivery?.id}`, {
      key: tenant.key,
    });
    expect(got.status).toBe(200);
    expect(json(got)).toEqual({ ...delivery, payload: rx.receipts[0]?.raw.toString('utf8') });
    // P301: v1 only, as P85: the spec's legacy table has no such path.
    const legacy = await api(service.url, `/api/webhooks/${hook.id}/deliveries/${delivery?.id}`, {
      key: tenant.key,
    });
    expect(legacy.status).toBe(404);
    const unknown = await api(
      service.url,
      `/api/v1/webhooks/${hook.id}/deliveries/dlv_01jf3zzzzzzzzzzzzzzzzzzzzz`,
      { key: tenant.key },
    );
    expectNestedError(unknown, 404, 'not_found');
  });

  it('410 Gone disables the webhook: the pending delivery is cancelled and nothing more is sent', async () => {
    const { tenant, rx, hook } = await setUp({ tls: 'localhost' });
    // A first event fails once and waits for its retry.
    rx.answerWith(answers.status(500));
    await newAgent(tenant, 'waiting');
    await step(service);
    const waitingEvent = String(rx.receipts[0]?.envelope.id);

    // A second event is answered with 410.
    rx.answerWith(answers.status(410));
    clock.advance(1_000);
    await newAgent(tenant, 'gone');
    const gone = await stepAndCollect(rx);
    expect(gone.map((receipt) => receipt.envelope.data.name)).toEqual(['gone']);
    expect((await getWebhook(service, tenant.key, hook.id)).status).toBe('disabled');
    const goneDelivery = await deliveryOf(
      service,
      tenant.key,
      hook.id,
      String(gone[0]?.envelope.id),
    );
    expect(goneDelivery).toMatchObject({
      status: 'failed',
      attempts: [{ status_code: 410 }],
      failure_reason: expect.stringContaining('410'),
    });

    // The waiting delivery's retry comes due: cancelled, not sent.
    rx.answerWith(answers.ok);
    clock.advance(5_000);
    expect(await stepAndCollect(rx)).toEqual([]);
    expect(await deliveryOf(service, tenant.key, hook.id, waitingEvent)).toMatchObject({
      status: 'cancelled',
      attempts: [{ status_code: 500 }],
      failure_reason: 'webhook disabled',
    });

    // New events are not delivered at all.
    clock.advance(REFILL_ALL_BUCKETS_MS);
    await newAgent(tenant, 'after');
    clock.advance(3_600_000);
    expect(await stepAndCollect(rx)).toEqual([]);
    expect(await listDeliveries(service, tenant.key, hook.id)).toHaveLength(2);
  });

  it('cancels a pending delivery when its webhook is deleted: nothing is sent afterwards', async () => {
    const { tenant, rx, hook } = await setUp();
    rx.answerWith(answers.status(500));
    await newAgent(tenant);
    await step(service);
    const [pending] = await listDeliveries(service, tenant.key, hook.id);
    expect(pending?.status).toBe('pending');

    const deleted = await api(service.url, `/api/v1/webhooks/${hook.id}`, {
      method: 'DELETE',
      key: tenant.key,
    });
    expect(deleted.status).toBe(204);
    rx.answerWith(answers.ok);
    clock.advance(5_000);
    await step(service);
    clock.advance(REFILL_ALL_BUCKETS_MS);
    await newAgent(tenant, 'after the delete');
    clock.advance(3_600_000);
    await step(service);

    expect(rx.receipts).toHaveLength(1);
    const stored = await service.runtime.dependencies.deliveries.get(
      tenant.orgId,
      hook.id,
      String(pending?.id),
    );
    expect(stored?.delivery).toMatchObject({
      status: 'cancelled',
      failure_reason: 'webhook deleted',
    });
  });

  it('counts a redirect as a failed attempt and never follows it', async () => {
    const { tenant, rx, hook } = await setUp();
    const target = await startWebhookReceiver();
    receivers.push(target);
    rx.answerWith(answers.status(301, { location: target.url('/moved') }));
    await newAgent(tenant);

    await step(service);
    clock.advance(5_000);
    await step(service);

    expect(rx.receipts).toHaveLength(2);
    expect(target.receipts).toEqual([]);
    expect(target.connections()).toBe(0);
    const [delivery] = await listDeliveries(service, tenant.key, hook.id);
    expect(delivery).toMatchObject({
      status: 'pending',
      attempts: [
        { attempt: 1, status_code: 301 },
        { attempt: 2, status_code: 301 },
      ],
      next_attempt_at: expect.any(String),
    });
  });

  it.each([
    [201, 'delivered'],
    [204, 'delivered'],
    [299, 'delivered'],
    [302, 'pending'],
    [400, 'pending'],
    [404, 'pending'],
    [429, 'pending'],
  ])('treats answer %i as %s (any 2xx acknowledges)', async (status, outcome) => {
    const { tenant, rx, hook } = await setUp();
    rx.answerWith(answers.status(status));
    await newAgent(tenant);

    await step(service);

    const [delivery] = await listDeliveries(service, tenant.key, hook.id);
    expect(delivery).toMatchObject({ status: outcome, attempts: [{ status_code: status }] });
    expect((await getWebhook(service, tenant.key, hook.id)).status).toBe('active');
  });
});
