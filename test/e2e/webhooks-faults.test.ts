import { handler as dispatcher } from '../../functions/webhook-dispatcher/handler';
import { publishBatch, publishPending } from '../../layers/core/use-cases/webhooks/publish-events';
import { toSqsEvent } from '../../lib/local/background-workers';
import { DELIVERY_VISIBILITY_TIMEOUT_SECONDS } from '../../lib/local/local-dependencies';
import { createAgent } from '../support/fixtures';
import { startTestService, type TestService } from '../support/local-service';
import { createTenant, type TestKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import { answers, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { expectSignedWith } from '../support/webhook-signatures';
import {
  createWebhook,
  deliveryOf,
  LOCAL_RECEIVERS_ENV,
  listDeliveries,
  step,
} from '../support/webhooks';

/** Short enough to keep the test fast, long enough for a loaded machine to answer the other attempts in time. */
const TIMEOUT_MS = 1_000;

/**
 * Fault injection (issue 4): receivers that fail, time out or drop the
 * connection, and a dispatcher that dies mid-batch. Whatever happens, every
 * event ends delivered at least once, and nothing is sent after its delivery
 * was acknowledged.
 */
describe('Webhook delivery under faults', () => {
  const clock = new TestClock();
  let service: TestService;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    clock.freeze();
    service = await startTestService({
      env: { ...LOCAL_RECEIVERS_ENV, SVC_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) },
      clock,
    });
  });
  afterAll(async () => {
    await service.end();
    await Promise.all(receivers.map((rx) => rx.close()));
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));
  afterEach(() => jest.restoreAllMocks());

  async function setUp(tls?: 'localhost') {
    const tenant = await createTenant(service, { name: 'Fault tenant' });
    const rx = await startWebhookReceiver(tls ? { tls } : {});
    receivers.push(rx);
    const hook = await createWebhook(service, tenant.key, {
      url: rx.url(),
      events: ['agent.created'],
    });
    return { tenant, rx, hook };
  }

  async function newAgents(tenant: TestKey, count: number): Promise<string[]> {
    const names: string[] = [];
    for (let index = 0; index < count; index += 1) {
      const name = `agent ${index}`;
      await createAgent(service, tenant.key, { name, data_source_ids: [] });
      names.push(name);
    }
    return names;
  }

  it('fails an attempt the receiver does not answer in time, and delivers on the retry', async () => {
    const { tenant, rx, hook } = await setUp('localhost');
    rx.answerNext(answers.hang);
    await newAgents(tenant, 1);

    const started = Date.now();
    await step(service);
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 10);
    const eventId = String(rx.receipts[0]?.envelope.id);
    const timedOut = await deliveryOf(service, tenant.key, hook.id, eventId);
    expect(timedOut).toMatchObject({
      status: 'pending',
      attempts: [{ attempt: 1, status_code: null, error: `timeout after ${TIMEOUT_MS} ms` }],
    });
    expect(timedOut.attempts[0].duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 10);

    clock.advance(5_000);
    await step(service);

    expect(rx.receipts).toHaveLength(2);
    expect(rx.receipts[1]?.envelope.id).toBe(eventId);
    expectSignedWith(rx.receipts[1] as never, hook.secret);
    const delivered = await deliveryOf(service, tenant.key, hook.id, eventId);
    expect(delivered.status).toBe('delivered');
    expect(delivered.attempts.map((attempt: any) => attempt.status_code)).toEqual([null, 200]);
  });

  it('fails an attempt whose connection the receiver destroys, and delivers on the retry', async () => {
    const { tenant, rx, hook } = await setUp();
    rx.answerNext(answers.destroy);
    await newAgents(tenant, 1);

    await step(service);
    const eventId = String(rx.receipts[0]?.envelope.id);
    const dropped = await deliveryOf(service, tenant.key, hook.id, eventId);
    expect(dropped).toMatchObject({ status: 'pending', attempts: [{ status_code: null }] });
    expect(dropped.attempts[0].error).toMatch(/^connection (closed|reset)/);

    clock.advance(5_000);
    await step(service);

    expect((await deliveryOf(service, tenant.key, hook.id, eventId)).status).toBe('delivered');
    expect(rx.countsByEvent().get(eventId)).toBe(2);
  });

  it('delivers on the third attempt after two failures: 3 attempts, at 0 s, 5 s and 35 s', async () => {
    const { tenant, rx, hook } = await setUp('localhost');
    rx.answerNext(answers.status(500), answers.status(502));
    await newAgents(tenant, 1);
    const start = clock.now().getTime();

    await step(service);
    clock.advance(5_000);
    await step(service);
    clock.advance(30_000);
    await step(service);
    clock.advance(3_600_000);
    await step(service);

    expect(rx.receipts.map((receipt) => receipt.answer)).toEqual([
      answers.status(500),
      answers.status(502),
      answers.ok,
    ]);
    const eventId = String(rx.receipts[0]?.envelope.id);
    const delivery = await deliveryOf(service, tenant.key, hook.id, eventId);
    expect(delivery.status).toBe('delivered');
    expect(delivery.attempts.map((attempt: any) => attempt.status_code)).toEqual([500, 502, 200]);
    expect(
      delivery.attempts.map((attempt: any) => (Date.parse(attempt.at) - start) / 1000),
    ).toEqual([0, 5, 35]);
  });

  it('survives a dispatcher that dies mid-batch: every event delivered, none sent again after its acknowledgement', async () => {
    const { tenant, rx, hook } = await setUp('localhost');
    await newAgents(tenant, 6);
    const deps = service.runtime.dependencies;
    const queue = service.runtime.deliveryQueue;

    // The event source mapping receives a batch; the dispatcher handles half
    // of it, then the process dies: no message is deleted.
    await publishPending(deps);
    const batch = await queue.receive(10);
    expect(batch).toHaveLength(6);
    const handled = batch.slice(0, 3);
    const result = await dispatcher(toSqsEvent(handled, queue.name));
    expect(result.batchItemFailures).toEqual([]);
    expect(rx.receipts).toHaveLength(3);
    const acknowledged = new Set(rx.receipts.map((receipt) => String(receipt.envelope.id)));
    for (const eventId of acknowledged) {
      expect((await deliveryOf(service, tenant.key, hook.id, eventId)).status).toBe('delivered');
    }

    // The whole batch is invisible until the visibility timeout passes.
    clock.advance((DELIVERY_VISIBILITY_TIMEOUT_SECONDS - 1) * 1000);
    await step(service);
    expect(rx.receipts).toHaveLength(3);

    // Then it all comes back; a restarted consumer finishes the work.
    clock.advance(1_000);
    await step(service);
    clock.advance(3_600_000);
    await step(service);

    const counts = rx.countsByEvent();
    expect(counts.size).toBe(6);
    expect([...counts.values()]).toEqual([1, 1, 1, 1, 1, 1]);
    const deliveries = await listDeliveries(service, tenant.key, hook.id);
    expect(deliveries.map((delivery) => delivery.status)).toEqual(Array(6).fill('delivered'));
    for (const delivery of deliveries) expect(delivery.attempts).toHaveLength(1);
    for (const receipt of rx.receipts) expectSignedWith(receipt, hook.secret);
  });

  it('redelivers an event whose POST succeeded but whose acknowledgement was never recorded (at least once)', async () => {
    const { tenant, rx, hook } = await setUp();
    await newAgents(tenant, 3);
    // The dispatcher dies right after one POST, before recording the outcome.
    const deliveries = service.runtime.dependencies.deliveries;
    jest
      .spyOn(deliveries, 'recordAttempt')
      .mockRejectedValueOnce(new Error('process killed before the write'));

    await step(service);
    expect(rx.receipts).toHaveLength(3);
    const listed = await listDeliveries(service, tenant.key, hook.id);
    const unrecorded = listed.filter((delivery) => delivery.status === 'pending');
    expect(unrecorded).toHaveLength(1);
    expect(unrecorded[0]?.attempts).toEqual([]);

    // Its message was not deleted: it comes back after the visibility timeout.
    clock.advance(DELIVERY_VISIBILITY_TIMEOUT_SECONDS * 1000);
    await step(service);
    clock.advance(3_600_000);
    await step(service);

    const counts = rx.countsByEvent();
    expect(counts.size).toBe(3);
    expect(counts.get(unrecorded[0]?.event_id)).toBe(2);
    expect(
      [...counts.entries()].filter(([id]) => id !== unrecorded[0]?.event_id).map(([, n]) => n),
    ).toEqual([1, 1]);
    const final = await listDeliveries(service, tenant.key, hook.id);
    expect(final.map((delivery) => delivery.status)).toEqual([
      'delivered',
      'delivered',
      'delivered',
    ]);
    // Duplicates carry the same event id (the spec's way to recognise them).
    const duplicates = rx.receipts.filter(
      (receipt) => receipt.envelope.id === unrecorded[0]?.event_id,
    );
    expect(duplicates[0]?.raw.equals(duplicates[1]?.raw ?? Buffer.alloc(0))).toBe(true);
  });

  it('makes no duplicate deliveries when the same outbox batch is published twice', async () => {
    const { tenant, rx, hook } = await setUp();
    await newAgents(tenant, 2);
    const deps = service.runtime.dependencies;
    const batches = (await deps.outbox.pending(100)).filter((b) => b.orgId === tenant.orgId);
    expect(batches).toHaveLength(2);

    // Published, then the same batches published again (a stream retry after a crash).
    for (const batch of batches) await publishBatch(deps, batch);
    for (const batch of batches) await publishBatch(deps, batch);
    await step(service);

    expect(await listDeliveries(service, tenant.key, hook.id)).toHaveLength(2);
    expect([...rx.countsByEvent().values()]).toEqual([1, 1]);
  });

  it('makes no duplicate deliveries when two publishers sweep the same outbox at once', async () => {
    const { tenant, rx, hook } = await setUp();
    await newAgents(tenant, 3);
    const deps = service.runtime.dependencies;

    // The stream handler and the scheduled sweep read the outbox before either clears it.
    const [first, second] = await Promise.all([publishPending(deps), publishPending(deps)]);
    await step(service);
    clock.advance(3_600_000);
    await step(service);

    expect(first + second).toBe(3);
    const deliveries = await listDeliveries(service, tenant.key, hook.id);
    expect(deliveries).toHaveLength(3);
    expect(new Set(deliveries.map((delivery) => delivery.event_id)).size).toBe(3);
    expect(deliveries.every((delivery) => delivery.status === 'delivered')).toBe(true);
    // One delivery record per event; both sweepers may have queued it, so a
    // receiver can see an event twice (spec: at least once, duplicates share
    // the event id), but never more than once per queued copy.
    const counts = rx.countsByEvent();
    expect(counts.size).toBe(3);
    for (const count of counts.values()) expect([1, 2]).toContain(count);
    expect((await deps.outbox.pending(100)).filter((b) => b.orgId === tenant.orgId)).toEqual([]);
  });
});
