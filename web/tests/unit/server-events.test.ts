import { parseBlock, serverEvents } from '../../src/api/server-events';

/** A body that arrives in the given chunks, as a network would cut it. */
function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function collect(body: ReadableStream<Uint8Array>) {
  const events = [];
  for await (const event of serverEvents(body)) events.push(event);
  return events;
}

describe('serverEvents (D19 streams read from fetch)', () => {
  it('yields each named event with its data, skipping keep-alive comments', async () => {
    const events = await collect(
      streamOf(
        'event: token\ndata: {"text":"Hel"}\n\n',
        ': keep-alive\n\n',
        'event: token\ndata: {"text":"lo"}\n\nevent: done\ndata: {"interaction_id":"int_1"}\n\n',
      ),
    );

    expect(events).toEqual([
      { event: 'token', data: '{"text":"Hel"}' },
      { event: 'token', data: '{"text":"lo"}' },
      { event: 'done', data: '{"interaction_id":"int_1"}' },
    ]);
  });

  it('waits for the rest of an event cut across chunks, anywhere in it', async () => {
    const whole = 'event: sources\ndata: {"sources":[{"id":"doc_1","title":"Lamp ✨"}]}\n\n';
    for (let cut = 1; cut < whole.length; cut += 1) {
      const events = await collect(streamOf(whole.slice(0, cut), whole.slice(cut)));
      expect(events).toEqual([
        { event: 'sources', data: '{"sources":[{"id":"doc_1","title":"Lamp ✨"}]}' },
      ]);
    }
  });

  it('keeps a character whose bytes are split between chunks', async () => {
    const bytes = new TextEncoder().encode('event: token\ndata: {"text":"é"}\n\n');
    const split = bytes.indexOf(0xc3) + 1;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, split));
        controller.enqueue(bytes.slice(split));
        controller.close();
      },
    });

    expect(await collect(body)).toEqual([{ event: 'token', data: '{"text":"é"}' }]);
  });

  it('reads the nested error event a stream may end with', async () => {
    const [event] = await collect(
      streamOf(
        'event: error\ndata: {"error":{"code":"internal_error","message":"The answer stream failed","details":{}}}\n\n',
      ),
    );

    expect(event?.event).toBe('error');
    expect(JSON.parse(event?.data ?? '{}').error.code).toBe('internal_error');
  });

  it('drops an unterminated last event: the stream ended before it was whole', async () => {
    expect(
      await collect(streamOf('event: token\ndata: {"text":"a"}\n\nevent: token\ndata: {"te')),
    ).toEqual([{ event: 'token', data: '{"text":"a"}' }]);
  });

  it('throws when the connection drops mid-stream', async () => {
    let push: ReadableStreamDefaultController<Uint8Array> | undefined;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        push = controller;
      },
    });
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of serverEvents(body)) seen.push(event.data);
    })();
    push?.enqueue(new TextEncoder().encode('event: token\ndata: {"text":"a"}\n\n'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    push?.error(new TypeError('network error'));

    await expect(reading).rejects.toThrow('network error');
    expect(seen).toEqual(['{"text":"a"}']);
  });

  it('accepts CRLF line ends and the SSE defaults', () => {
    expect(parseBlock('data: one\ndata: two')).toEqual({ event: 'message', data: 'one\ntwo' });
    expect(parseBlock(': only a comment')).toBeNull();
    expect(parseBlock('event: ping')).toBeNull();
    expect(parseBlock('data:no space')).toEqual({ event: 'message', data: 'no space' });
  });

  it('normalizes CRLF between chunks', async () => {
    expect(await collect(streamOf('event: a\r\ndata: 1\r\n', '\r\n'))).toEqual([
      { event: 'a', data: '1' },
    ]);
  });
});
