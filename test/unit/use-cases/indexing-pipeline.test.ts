import { IndexingPipeline } from '../../../layers/core/use-cases/ingestion/indexing-pipeline';

/** A task that runs until its `finish` is called. */
function gate() {
  let finish: (error?: Error) => void = () => undefined;
  const done = new Promise<void>((resolve, reject) => {
    finish = (error) => (error ? reject(error) : resolve());
  });
  return { task: () => done, finish };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** P110: a sync's documents indexed a few at a time, bounded in count and characters. */
describe('Class: IndexingPipeline', () => {
  it('runs at most `documents` tasks at once', async () => {
    const pipeline = new IndexingPipeline({ documents: 2, characters: 1_000 });
    const [a, b, c] = [gate(), gate(), gate()];
    await pipeline.add('a', 1, a.task);
    await pipeline.add('b', 1, b.task);
    let thirdStarted = false;
    const third = pipeline.add('c', 1, () => {
      thirdStarted = true;
      return c.task();
    });
    await settle();
    expect(thirdStarted).toBe(false);

    a.finish();
    await third;
    expect(thirdStarted).toBe(true);
    b.finish();
    c.finish();
    await pipeline.drain();
  });

  it('holds at most `characters` at once, but always one document whatever its size', async () => {
    const pipeline = new IndexingPipeline({ documents: 8, characters: 100 });
    const [big, small] = [gate(), gate()];
    await pipeline.add('big', 500, big.task);
    let smallStarted = false;
    const second = pipeline.add('small', 10, () => {
      smallStarted = true;
      return small.task();
    });
    await settle();
    expect(smallStarted).toBe(false);
    big.finish();
    await second;
    expect(smallStarted).toBe(true);
    small.finish();
    await pipeline.drain();
  });

  it('waits for one key with `settled`, and for all with `drain`', async () => {
    const pipeline = new IndexingPipeline({ documents: 8, characters: 1_000 });
    const [a, b] = [gate(), gate()];
    const order: string[] = [];
    await pipeline.add('a', 1, async () => {
      await a.task();
      order.push('a');
    });
    await pipeline.add('b', 1, async () => {
      await b.task();
      order.push('b');
    });
    const aSettled = pipeline.settled('a').then(() => order.push('settled a'));
    b.finish();
    await settle();
    a.finish();
    await aSettled;
    await pipeline.drain();
    expect(order).toEqual(['b', 'a', 'settled a']);
  });

  it('throws the first failure from drain and from every later add, after what was running ends', async () => {
    const pipeline = new IndexingPipeline({ documents: 8, characters: 1_000 });
    const [failing, running] = [gate(), gate()];
    let runningEnded = false;
    await pipeline.add('x', 1, failing.task);
    await pipeline.add('y', 1, async () => {
      await running.task();
      runningEnded = true;
    });
    failing.finish(new Error('index down'));
    await settle();
    await expect(pipeline.add('z', 1, async () => undefined)).rejects.toThrow('index down');
    const drained = expect(pipeline.drain()).rejects.toThrow('index down');
    running.finish();
    await drained;
    expect(runningEnded).toBe(true);
  });
});
