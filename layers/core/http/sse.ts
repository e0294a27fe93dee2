import { Readable } from 'node:stream';

/** One server-sent event: a name and a JSON object. */
export interface ServerSentEvent {
  readonly event: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/** A comment line every 15 s keeps proxies from closing a quiet stream. */
export const KEEP_ALIVE_MS = 15_000;

export function encodeEvent(event: ServerSentEvent): string {
  return `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/**
 * Encodes events as `text/event-stream`, with `: keep-alive` comments while
 * the source is quiet. The source is expected to turn its own failures into
 * an `error` event; if it throws anyway, the stream ends with a generic
 * one rather than a torn connection.
 */
export function sseStream(
  source: AsyncIterable<ServerSentEvent>,
  options: {
    keepAliveMs?: number;
    onUnexpectedError?: (error: unknown) => void;
    /**
     * Called once if the stream is destroyed before its end (the client went
     * away), so the producer can stop the work behind it at once: a source
     * waiting on a model would otherwise only notice at its next event.
     */
    onAbandoned?: () => void;
    /** The request's id, quoted in the generic `error` event as in every error body. */
    requestId?: string;
    /** How an event is written: `event:` and `data:` lines unless said (an OpenAI-style stream has data only). */
    encode?: (event: ServerSentEvent) => string;
  } = {},
): Readable {
  const keepAliveMs = options.keepAliveMs ?? KEEP_ALIVE_MS;
  const encode = options.encode ?? encodeEvent;
  async function* encoded(): AsyncGenerator<string> {
    const iterator = source[Symbol.asyncIterator]();
    let pending = iterator.next();
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const keepAlive = new Promise<'keep-alive'>((resolve) => {
        timer = setTimeout(() => resolve('keep-alive'), keepAliveMs);
      });
      try {
        const next = await Promise.race([pending, keepAlive]);
        if (next === 'keep-alive') {
          yield ': keep-alive\n\n';
          continue;
        }
        if (next.done) return;
        yield encode(next.value);
        pending = iterator.next();
      } catch (error) {
        options.onUnexpectedError?.(error);
        yield encode({
          event: 'error',
          data: {
            error: { code: 'internal_error', message: 'The answer stream failed', details: {} },
            ...(options.requestId === undefined ? {} : { request_id: options.requestId }),
          },
        });
        return;
      } finally {
        clearTimeout(timer);
      }
    }
  }
  // Not Readable.from: its destroy waits for the generator to return, which
  // a generator waiting on a model does only at its next event.
  const chunks = encoded();
  let ended = false;
  const stream: Readable = new Readable({
    read() {
      chunks.next().then(
        (next) => {
          if (next.done) {
            ended = true;
            stream.push(null);
          } else stream.push(next.value);
        },
        (error: unknown) => stream.destroy(error as Error),
      );
    },
    destroy(error, callback) {
      if (!ended) options.onAbandoned?.();
      // The generator ends after its current step; nothing waits for it.
      chunks.return(undefined).catch(() => undefined);
      callback(error);
    },
  });
  return stream;
}
