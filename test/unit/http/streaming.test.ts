import { Readable, Writable } from 'node:stream';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import {
  type StreamableResult,
  streamable,
  streamingHandlerOf,
  withCleanupAtEnd,
} from '../../../layers/core/http/streaming';

/** A body that yields `chunks`, then waits until `release()` (a model still writing). */
function slowBody(chunks: readonly string[]) {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  async function* produce() {
    yield* chunks;
    await gate;
    yield 'last';
  }
  return { body: Readable.from(produce()), release: () => release() };
}

const tick = (ms = 20) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Function: withCleanupAtEnd (a streamed response releases its lease, P58)', () => {
  it('passes the body through and cleans up before it ends', async () => {
    // Prepare
    const events: string[] = [];
    const body = withCleanupAtEnd(Readable.from(['a', 'b']), async () => {
      await tick(5);
      events.push('cleanup');
    });
    body.on('end', () => events.push('end'));

    // Act
    for await (const chunk of body) events.push(String(chunk));

    // Assess
    expect(events).toEqual(['a', 'b', 'cleanup', 'end']);
  });

  it('does not clean up while the body is still being written', async () => {
    const cleanup = jest.fn(async () => undefined);
    const { body, release } = slowBody(['a']);
    const chunks: string[] = [];
    const reading = (async () => {
      for await (const chunk of withCleanupAtEnd(body, cleanup)) chunks.push(String(chunk));
    })();

    await tick();
    expect(chunks).toEqual(['a']);
    expect(cleanup).not.toHaveBeenCalled();

    release();
    await reading;
    expect(chunks).toEqual(['a', 'last']);
    expect(cleanup).toHaveBeenCalledTimes(1);
  });

  it('cleans up once, before closing, when destroyed while the body is stuck', async () => {
    // Prepare: the model never writes again
    const events: string[] = [];
    const { body } = slowBody(['a']);
    const wrapped = withCleanupAtEnd(body, async () => {
      await tick(5);
      events.push('cleanup');
    });
    wrapped.on('data', () => events.push('data'));
    await tick();

    // Act: the client goes away
    const closed = new Promise((resolve) => wrapped.once('close', resolve));
    wrapped.destroy();
    await closed;
    events.push('closed');

    // Assess
    expect(events).toEqual(['data', 'cleanup', 'closed']);
    expect(body.destroyed).toBe(true);
  });

  it('cleans up when the body itself fails', async () => {
    const cleanup = jest.fn(async () => undefined);
    async function* failing() {
      yield 'a';
      throw new Error('answer failed');
    }
    const wrapped = withCleanupAtEnd(Readable.from(failing()), cleanup);

    await expect(
      (async () => {
        for await (const _ of wrapped);
      })(),
    ).rejects.toThrow('answer failed');

    expect(cleanup).toHaveBeenCalledTimes(1);
  });
});

describe('Function: streamable', () => {
  it('returns from a streamed invocation only after the body cleaned up, even when the client went away', async () => {
    // Prepare: a handler whose stream never ends on its own, and a connection that fails
    let cleaned = false;
    const { body } = slowBody(['a', 'b']);
    const handler = streamable(
      async (): Promise<StreamableResult> => ({
        statusCode: 200,
        headers: {},
        body: withCleanupAtEnd(body, async () => {
          await tick(10);
          cleaned = true;
        }),
      }),
    );
    const streaming = streamingHandlerOf(handler);
    if (!streaming) throw new Error('a streamable handler carries its streaming entry');
    const closedConnection = new Writable({
      write: (_chunk, _encoding, callback) => callback(new Error('socket hang up')),
    });

    // Act
    const invocation = streaming({} as APIGatewayProxyEvent, { open: () => closedConnection }, {
      getRemainingTimeInMillis: () => 1_000,
    } as Context);

    // Assess
    await expect(invocation).rejects.toThrow('socket hang up');
    expect(cleaned).toBe(true);
  });

  it('ends a stream the client closed early as client_closed, not as a failure (issue 14)', async () => {
    // Prepare: a body that never ends on its own, and a connection the client closes after one chunk
    let cleaned = false;
    const { body } = slowBody(['a', 'b']);
    const handler = streamable(
      async (): Promise<StreamableResult> => ({
        statusCode: 200,
        headers: {},
        body: withCleanupAtEnd(body, async () => {
          cleaned = true;
        }),
      }),
    );
    const streaming = streamingHandlerOf(handler);
    if (!streaming) throw new Error('a streamable handler carries its streaming entry');
    const connection: Writable = new Writable({
      write: (_chunk, _encoding, callback) => {
        callback();
        setImmediate(() => connection.destroy());
      },
    });

    // Act
    const outcome = await streaming({} as APIGatewayProxyEvent, { open: () => connection }, {
      getRemainingTimeInMillis: () => 1_000,
    } as Context);

    // Assess
    expect(outcome).toBe('client_closed');
    expect(cleaned).toBe(true);
  });
});
