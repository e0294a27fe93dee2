import { finished } from 'node:stream/promises';
import { sseStream } from '../../../layers/core/http/sse';

describe('Function: sseStream', () => {
  it('encodes each event and ends without calling onAbandoned when read to the end', async () => {
    // Prepare
    const onAbandoned = jest.fn();
    async function* events() {
      yield { event: 'delta', data: { text: 'Hello' } };
    }

    // Act
    const chunks: string[] = [];
    for await (const chunk of sseStream(events(), { onAbandoned })) chunks.push(String(chunk));

    // Assess
    expect(chunks.join('')).toBe('event: delta\ndata: {"text":"Hello"}\n\n');
    expect(onAbandoned).not.toHaveBeenCalled();
  });

  it('calls onAbandoned at once when destroyed while its source is still waiting', async () => {
    // Prepare: a source that yields one event, then waits for a model that never answers
    const onAbandoned = jest.fn();
    async function* events() {
      yield { event: 'sources', data: { sources: [] } };
      await new Promise(() => undefined);
    }
    const stream = sseStream(events(), { onAbandoned, keepAliveMs: 50 });
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();

    // Act
    stream.destroy();
    await finished(stream).catch(() => undefined);

    // Assess: closed without waiting for the source's next event
    expect(stream.destroyed).toBe(true);
    expect(onAbandoned).toHaveBeenCalledTimes(1);
  });

  it('ends with a generic error event that quotes the request id when its source throws', async () => {
    // Prepare
    const onUnexpectedError = jest.fn();
    async function* events() {
      yield { event: 'delta', data: { text: 'Hel' } };
      throw new Error('the model connection broke');
    }

    // Act
    const chunks: string[] = [];
    for await (const chunk of sseStream(events(), { onUnexpectedError, requestId: 'req_1' })) {
      chunks.push(String(chunk));
    }

    // Assess: the same body shape as every error response, nothing of the cause
    const last = chunks.at(-1) ?? '';
    expect(last.startsWith('event: error\n')).toBe(true);
    expect(JSON.parse(last.split('data: ')[1] ?? '')).toEqual({
      error: { code: 'internal_error', message: 'The answer stream failed', details: {} },
      request_id: 'req_1',
    });
    expect(last).not.toContain('model connection');
    expect(onUnexpectedError).toHaveBeenCalledTimes(1);
  });
});
