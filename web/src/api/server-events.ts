/**
 * Server-sent events read from a `fetch` body (CONSOLE.md §6): `EventSource`
 * cannot POST or send the CSRF header. The service names each event in
 * `event:`, sends one JSON object per `data:`, writes `: keep-alive`
 * comments while it is quiet, and may end with an `error` event in the
 * nested error shape (layers/core/http/sse.ts).
 */
export interface ServerEvent {
  /** `message` when the block names none (the SSE default). */
  readonly event: string;
  /** The `data:` lines, joined by newlines as the SSE format says. */
  readonly data: string;
}

/** One event block (the lines between blank lines); null for a block of comments only. */
export function parseBlock(block: string): ServerEvent | null {
  let event = 'message';
  const data: string[] = [];
  let sawData = false;
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') {
      data.push(value);
      sawData = true;
    }
  }
  return sawData ? { event, data: data.join('\n') } : null;
}

/**
 * The events of a stream as they arrive. An event cut across two chunks
 * waits for the rest; what is left unterminated when the stream ends was
 * never a whole event and is dropped. A stream that fails mid-way (the
 * network dropped, the request was aborted) throws from the loop.
 */
export async function* serverEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerEvent> {
  // The cast: TypeScript's DOM types want a Uint8Array stream to take any BufferSource.
  const decoder = new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>;
  const reader = body.pipeThrough(decoder).getReader();
  try {
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer = (buffer + value).replace(/\r\n?/g, '\n');
      const blocks = buffer.split('\n\n');
      buffer = blocks.pop() ?? '';
      for (const block of blocks) {
        const event = parseBlock(block);
        if (event) yield event;
      }
    }
  } finally {
    reader.releaseLock();
  }
}
