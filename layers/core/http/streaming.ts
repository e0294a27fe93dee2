import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';

/** A response whose body may be a stream (SSE, D19) rather than a string. */
export type StreamableResult = Omit<APIGatewayProxyResult, 'body'> & { body: string | Readable };

/** Where a streamed response goes: opened once with status and headers, then written. */
export interface ResponseSink {
  open(meta: { statusCode: number; headers: Record<string, string> }): Writable;
}

/** A handler that writes its response to a sink as it is produced. */
export type StreamingHandler = (
  event: APIGatewayProxyEvent,
  sink: ResponseSink,
  context: Context,
) => Promise<void>;

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

async function writeResult(result: StreamableResult, sink: ResponseSink): Promise<void> {
  const headers = Object.fromEntries(
    Object.entries(result.headers ?? {}).map(([name, value]) => [name, String(value)]),
  );
  const out = sink.open({ statusCode: result.statusCode, headers });
  const body = typeof result.body === 'string' ? Readable.from([result.body]) : result.body;
  await pipeline(body, out);
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
    return runtime.streamifyResponse((event, responseStream, context) =>
      streaming(event, { open: (meta) => HttpResponseStream.from(responseStream, meta) }, context),
    ) as StreamableHandlerExport;
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
