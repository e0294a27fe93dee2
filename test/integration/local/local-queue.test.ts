import { LocalQueue } from '../../../layers/core/adapters/local/local-queue';
import { startTestTables, type TestTables } from '../../support/dynalite';

describe('Class: LocalQueue (SQS semantics on dynalite)', () => {
  let tables: TestTables;
  let clock: number;
  beforeAll(async () => {
    tables = await startTestTables();
  });
  afterAll(() => tables.end());
  beforeEach(() => {
    clock = 1_800_000_000_000;
  });

  const queue = (name: string, maxReceiveCount = 3) =>
    new LocalQueue<{ n: number }>(tables.client, tables.queueTableName, name, {
      visibilityTimeoutSeconds: 30,
      maxReceiveCount,
      deadLetterQueue: `${name}-dlq`,
      now: () => clock,
    });

  it('hides a received message for the visibility timeout, then delivers it again', async () => {
    const subject = queue('visibility');
    await subject.send({ n: 1 });

    const [first] = await subject.receive();
    expect(first).toMatchObject({ body: { n: 1 }, receiveCount: 1 });
    expect(await subject.receive()).toEqual([]);

    clock += 30_001;
    const [second] = await subject.receive();
    expect(second).toMatchObject({ messageId: first?.messageId, receiveCount: 2 });
  });

  it('gives back what a consumer that died had received, keeping its receive count, and leaves delayed messages alone (issue 14)', async () => {
    // Prepare: one message held by a consumer that never came back, one delayed, one deleted
    const subject = queue('release', 10);
    await subject.send({ n: 1 });
    const [held] = await subject.receive();
    await subject.send({ n: 2 }, { delaySeconds: 60 });
    await subject.send({ n: 3 });
    const [done] = await subject.receive();
    await subject.delete(done?.receiptHandle ?? '');

    // Act
    const released = await subject.releaseReceived();

    // Assess
    expect(released).toBe(1);
    const again = await subject.receive();
    expect(again).toEqual([
      expect.objectContaining({ messageId: held?.messageId, body: { n: 1 }, receiveCount: 2 }),
    ]);
    await subject.delete(held?.receiptHandle ?? ''); // the old receipt is stale now
    expect(await subject.receive()).toEqual([]);
    clock += 60_001;
    const later = (await subject.receive()).map((message) => message.body.n);
    expect(later.sort()).toEqual([1, 2]); // the delayed one, and the released one after its new timeout
  });

  it('gives back a message held when its consumer died, but not one the consumer put off for a retry (issue 13, P105)', async () => {
    // Prepare: one delivery in flight, one whose retry was scheduled for 30 s later
    const subject = queue('release-deferred', 10);
    await subject.send({ n: 1 });
    await subject.send({ n: 2 });
    const [inFlight, retried] = await subject.receive();
    await subject.changeVisibility(retried?.receiptHandle ?? '', 30);

    // Act
    const released = await subject.releaseReceived();

    // Assess
    expect(released).toBe(1);
    const again = await subject.receive();
    expect(again).toEqual([
      expect.objectContaining({ messageId: inFlight?.messageId, receiveCount: 2 }),
    ]);
    await subject.delete(again[0]?.receiptHandle ?? '');
    clock += 30_001;
    const [due] = await subject.receive();
    expect(due).toMatchObject({ messageId: retried?.messageId, receiveCount: 2 });
    // Received again, it is held once more: a death now gives it back.
    expect(await subject.releaseReceived()).toBe(1);
  });

  it('forgets a deleted message and ignores a stale receipt', async () => {
    // Prepare: the message is received twice, so the first receipt is stale
    const subject = queue('delete', 10);
    await subject.send({ n: 2 });
    const [first] = await subject.receive();
    clock += 30_001;
    const [second] = await subject.receive();

    // Act + Assess: the stale receipt deletes nothing
    await subject.delete(first?.receiptHandle ?? '');
    clock += 30_001;
    const [third] = await subject.receive();
    expect(third).toMatchObject({ messageId: second?.messageId, receiveCount: 3 });

    // The current receipt deletes it for good
    await subject.delete(third?.receiptHandle ?? '');
    clock += 60_000;
    expect(await subject.receive()).toEqual([]);
  });

  it('holds a delayed message back, and changeVisibility reschedules', async () => {
    const subject = queue('delay');
    await subject.send({ n: 3 }, { delaySeconds: 5 });
    expect(await subject.receive()).toEqual([]);
    clock += 5_000;
    const [message] = await subject.receive();
    await subject.changeVisibility(message?.receiptHandle ?? '', 300);
    clock += 299_000;
    expect(await subject.receive()).toEqual([]);
    clock += 1_000;
    expect(await subject.receive()).toHaveLength(1);
  });

  it('moves a message received maxReceiveCount times to the dead-letter queue', async () => {
    const subject = queue('poison', 2);
    const deadLetters = queue('poison-dlq');
    await subject.send({ n: 4 });
    await subject.receive();
    clock += 30_001;
    await subject.receive();
    clock += 30_001;
    expect(await subject.receive()).toEqual([]);
    expect((await deadLetters.receive()).map((message) => message.body)).toEqual([{ n: 4 }]);
  });

  it('never gives one message to two simultaneous consumers', async () => {
    const subject = queue('race');
    for (let n = 0; n < 10; n += 1) await subject.send({ n });
    const batches = await Promise.all(Array.from({ length: 6 }, () => queue('race').receive(10)));
    const received = batches.flat().map((message) => message.body.n);
    expect(received.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});
