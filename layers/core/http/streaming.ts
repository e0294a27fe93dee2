import { Readable, type Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';

/** A response whose body may be a stream (SSE) rather than a string. */
export type StreamableResult = Omit<APIGatewayProxyResult, 'body'> & { body: string | Readable };

/** Where a streamed response goes: opened once with status and headers, then written. */
export interface ResponseSink {
  open(meta: { statusCode: number; headers: Record<string, string> }): Writable;
}

/**
 * How a streamed response ended: written to the end, or cut short because
 * the client went away (closed an SSE stream early), which is the client's
 * choice and not a failure of ours.
 */
export type StreamOutcome = 'completed' | 'client_closed';

/** A handler that writes its response to a sink as it is produced. */
export type StreamingHandler = (
  event: APIGatewayProxyEvent,
  sink: ResponseSink,
  context: Context,
) => Promise<StreamOutcome>;

/** What a write to a sink the client already closed fails with. */
const CLIENT_GONE_CODES = new Set([
  'ERR_STREAM_PREMATURE_CLOSE',
  'ERR_STREAM_DESTROYED',
  'ERR_STREAM_WRITE_AFTER_END',
  'ECONNRESET',
  'EPIPE',
]);

function clientWentAway(error: unknown, out: Writable): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return out.destroyed && typeof code === 'string' && CLIENT_GONE_CODES.has(code);
}

/** The Lambda runtime's streaming API (a global, present only inside Lambda). */
interface LambdaStreamingRuntime {
  streamifyResponse(
    handler: (
      event: APIGatewayProxyEvent,
      responseStream: Writable,
      context: Context,
    ) => Promise<void>,
  ): unknown;
  HttpResponseStream: {
    from(stream: Writable, meta: { statusCode: number; headers: Record<string, string> }): Writable;
  };
}

const STREAMING = Symbol.for('svc.streaming-handler');

/** Marks a handler export whose response can be streamed; the local gateway looks for it. */
export type StreamableHandlerExport = ((
  event: APIGatewayProxyEvent,
  context: Context,
) => Promise<APIGatewayProxyResult>) & {
  readonly [STREAMING]: StreamingHandler;
};

export function streamingHandlerOf(handler: unknown): StreamingHandler | undefined {
  return (handler as Partial<StreamableHandlerExport> | undefined)?.[STREAMING];
}

async function writeResult(result: StreamableResult, sink: ResponseSink): Promise<StreamOutcome> {
  const headers = Object.fromEntries(
    Object.entries(result.headers ?? {}).map(([name, value]) => [name, String(value)]),
  );
  const out = sink.open({ statusCode: result.statusCode, headers });
  const body = typeof result.body === 'string' ? Readable.from([result.body]) : result.body;
  try {
    await pipeline(body, out);
    return 'completed';
  } catch (error) {
    if (clientWentAway(error, out)) return 'client_closed';
    throw error;
  } finally {
    // A body torn down early (the client went away) closes after its cleanup
    // (withCleanupAtEnd): wait for it, so the invocation ends after the request did.
    await finished(body).catch(() => undefined);
  }
}

/**
 * Turns a handler that may answer with a stream into what each runtime needs.
 * Inside Lambda (`awslambda` present) it becomes a response-streaming handler
 * for API Gateway's `STREAM` transfer mode (ARCHITECTURE.md: streaming). Elsewhere it is a
 * plain handler that collects the body (for callers that cannot stream), and
 * carries a streaming entry the local gateway uses, so both runtimes run the
 * same code path.
 */
export function streamable(
  handler: (event: APIGatewayProxyEvent, context: Context) => Promise<StreamableResult>,
): StreamableHandlerExport {
  const streaming: StreamingHandler = async (event, sink, context) =>
    writeResult(await handler(event, context), sink);
  // Other code (the AWS SDK's invoke store) may define a partial `awslambda` outside Lambda:
  // only the runtime's own has `streamifyResponse`.
  const runtime = (globalThis as { awslambda?: Partial<LambdaStreamingRuntime> }).awslambda;
  if (typeof runtime?.streamifyResponse === 'function' && runtime.HttpResponseStream) {
    const { HttpResponseStream } = runtime;
    return runtime.streamifyResponse(async (event, responseStream, context) => {
      await streaming(
        event,
        { open: (meta) => HttpResponseStream.from(responseStream, meta) },
        context,
      );
    }) as StreamableHandlerExport;
  }
  const buffered = async (
    event: APIGatewayProxyEvent,
    context: Context,
  ): Promise<APIGatewayProxyResult> => {
    const result = await handler(event, context);
    if (typeof result.body === 'string') return { ...result, body: result.body };
    const chunks: Buffer[] = [];
    for await (const chunk of result.body) chunks.push(Buffer.from(chunk as Uint8Array));
    return { ...result, body: Buffer.concat(chunks).toString('utf8') };
  };
  return Object.assign(buffered, { [STREAMING]: streaming });
}

/**
 * The same body, which runs `cleanup` (awaited) once it has been read to the
 * end, failed, or been destroyed (a client that went away), before it ends or
 * reports itself closed: a streamed response's end is the request's end (the
 * concurrency lease), long after the middleware chain returned.
 */
export function withCleanupAtEnd(body: Readable, cleanup: () => Promise<void>): Readable {
  let cleaned: Promise<void> | undefined;
  const cleanupOnce = (): Promise<void> => {
    cleaned ??= cleanup();
    return cleaned;
  };
  const chunks = body[Symbol.asyncIterator]();
  const relay: Readable = new Readable({
    objectMode: body.readableObjectMode,
    read() {
      chunks.next().then(
        (next) => {
          if (!next.done) relay.push(next.value);
          else
            cleanupOnce().then(
              () => relay.push(null),
              (error: unknown) => relay.destroy(error as Error),
            );
        },
        (error: unknown) => relay.destroy(error as Error),
      );
    },
    // Not through the body's own end: a body stuck waiting on a model must not hold the lease.
    destroy(error, callback) {
      body.destroy();
      cleanupOnce().then(
        () => callback(error),
        (cleanupError: unknown) => callback(error ?? (cleanupError as Error)),
      );
    },
  });
  return relay;
}
