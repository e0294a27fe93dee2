import { createServer, type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import { type Duplex, pipeline, type Writable } from 'node:stream';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { newId } from '../../layers/core/domain/ids';
import { nestedErrorBody } from '../../layers/core/http/error-body';
import { SECURITY_HEADERS } from '../../layers/core/http/middlewares/response-headers';
import { matchRoute, type Route } from '../../layers/core/http/route';
import { streamingHandlerOf } from '../../layers/core/http/streaming';
import {
  API_GATEWAY_MAX_PAYLOAD_BYTES,
  type IncomingRequest,
  lambdaContext,
  toApiGatewayEvent,
} from './apigw-event';
import {
  compress,
  compressingStream,
  type Encoding,
  encodingFor,
  isCompressibleType,
  MIN_COMPRESSIBLE_BYTES,
  varyWithAcceptEncoding,
} from './compression';
import { type ConsoleSite, isApiPath } from './console-site';
import { listen } from './listen';

export type ProxyHandler = (
  event: APIGatewayProxyEvent,
  context: Context,
) => Promise<APIGatewayProxyResult>;

export interface GatewayOptions {
  readonly host: string;
  readonly port: number;
  readonly routes: readonly Route[];
  /** family → the handler export of functions/<family>/handler.ts */
  readonly functions: Readonly<Record<string, ProxyHandler>>;
  /** functions/fallback: what API Gateway's catch-all resource calls. */
  readonly fallback: ProxyHandler;
  readonly onRequest?: (line: AccessLogLine) => void;
  /**
   * Paths the gateway serves itself instead of a function: what another AWS
   * service answers in the cloud (S3's presigned uploads). Their bodies are
   * streamed to the handler, not read whole.
   */
  readonly services?: Readonly<
    Record<string, (request: IncomingMessage, response: ServerResponse) => Promise<number>>
  >;
  /**
   * The web console, on the API's origin. It answers GET and HEAD of
   * every path outside /api (CloudFront's part in the cloud); other methods
   * there reach the catch-all as before.
   */
  readonly console?: ConsoleSite;
}

export interface AccessLogLine {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly ms: number;
  readonly requestId: string | undefined;
  /** The client went away before a streamed response ended (an SSE stream closed early): not an error. */
  readonly clientClosed?: boolean;
}

export interface LocalGateway {
  readonly url: string;
  readonly port: number;
  end(): Promise<void>;
}

class PayloadTooLarge extends Error {}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > API_GATEWAY_MAX_PAYLOAD_BYTES) {
        reject(new PayloadTooLarge());
        request.pause();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/** What API Gateway itself answers with before any function runs (payload too large, integration failure). */
function gatewayError(
  response: ServerResponse,
  status: number,
  code: string,
  message: string,
): void {
  const requestId = newId('request');
  response.writeHead(status, {
    ...SECURITY_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'X-Request-Id': requestId,
    Connection: 'close',
  });
  response.end(JSON.stringify(nestedErrorBody({ status, code, message, details: {} }, requestId)));
}

/** A header's value by its name in any case. */
function headerOf(
  headers: Readonly<Record<string, string | string[]>>,
  name: string,
): string | string[] | undefined {
  const found = Object.keys(headers).find((key) => key.toLowerCase() === name.toLowerCase());
  return found === undefined ? undefined : headers[found];
}

function withoutHeader(headers: Record<string, string | string[]>, name: string): void {
  for (const key of Object.keys(headers)) {
    if (key.toLowerCase() === name.toLowerCase()) delete headers[key];
  }
}

/**
 * The encoding a function's answer goes out in: its type is text, the
 * client takes Brotli or gzip, and the function did not encode it itself.
 * A body that varies by encoding says so in `Vary` even when sent as it is.
 */
function negotiate(
  request: IncomingMessage,
  headers: Record<string, string | string[]>,
): Encoding | null {
  const contentType = headerOf(headers, 'content-type')?.toString();
  if (!isCompressibleType(contentType) || headerOf(headers, 'content-encoding') !== undefined) {
    return null;
  }
  const vary = headerOf(headers, 'vary');
  withoutHeader(headers, 'vary');
  headers.Vary = varyWithAcceptEncoding(vary);
  return encodingFor(request.headers, contentType);
}

async function writeResult(
  request: IncomingMessage,
  response: ServerResponse,
  result: APIGatewayProxyResult,
): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) {
    headers[name] = values.map(String);
  }
  let body: Buffer = result.isBase64Encoded
    ? Buffer.from(result.body, 'base64')
    : Buffer.from(result.body ?? '', 'utf8');
  const encoding = negotiate(request, headers);
  if (encoding && body.length >= MIN_COMPRESSIBLE_BYTES) {
    body = await compress(body, encoding, 'quick');
    withoutHeader(headers, 'content-length');
    headers['Content-Encoding'] = encoding;
  }
  response.writeHead(result.statusCode, headers);
  response.end(body);
}

/**
 * Where a streaming function's body goes: the socket itself for an event
 * stream (each event leaves as it is written), a compressor in front of it
 * for anything else the client takes compressed (a JSON answer written
 * whole). Its length is unknown up front, so it goes chunked.
 */
function openStreamed(
  request: IncomingMessage,
  response: ServerResponse,
  meta: { statusCode: number; headers: Record<string, string> },
): Writable {
  const headers: Record<string, string | string[]> = { ...meta.headers };
  const encoding = negotiate(request, headers);
  if (!encoding) {
    response.writeHead(meta.statusCode, headers);
    response.flushHeaders();
    return response;
  }
  withoutHeader(headers, 'content-length');
  headers['Content-Encoding'] = encoding;
  response.writeHead(meta.statusCode, headers);
  const compressor = compressingStream(encoding);
  // The client hanging up ends the compressor too, so the function's writes fail as they would.
  pipeline(compressor, response, () => {});
  return compressor;
}

/**
 * Requests Node's HTTP parser refuses before any handler runs: headers or a
 * query string over its 16 KB (`431`), or a request line that does not
 * parse (`400`). Node would answer with a bare status line; these get the
 * JSON error shape and an `X-Request-Id` like every other refusal,
 * in the nested shape as API Gateway's own refusals are (the path is not
 * known yet).
 */
function answerMalformedRequest(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const requestId = newId('request');
  const body = JSON.stringify(
    nestedErrorBody(
      {
        status,
        code: 'invalid_request',
        message: tooLarge
          ? 'Request headers and query string together exceed 16 KB'
          : 'Malformed HTTP request',
        details: {},
      },
      requestId,
    ),
  );
  const headers = {
    ...SECURITY_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'X-Request-Id': requestId,
    Connection: 'close',
  };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n${body}`);
}

/**
 * `requestContext.identity.sourceIp` as API Gateway reports it: the TCP
 * peer's address, never a header. A server listening on `::`
 * sees IPv4 clients as `::ffff:a.b.c.d`; API Gateway reports those as the
 * IPv4 address itself, and so does this.
 */
function sourceIpOf(request: IncomingMessage): string {
  const address = request.socket.remoteAddress ?? '127.0.0.1';
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return mapped?.[1] ?? address;
}

/**
 * The local API Gateway: matches each request against the route table,
 * builds the proxy event API Gateway would send, and calls the same handler
 * export the Lambda runs.
 */
export async function startGateway(options: GatewayOptions): Promise<LocalGateway> {
  const serve = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const started = Date.now();
    const method = request.method ?? 'GET';
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const site =
      options.console && (method === 'GET' || method === 'HEAD') && !isApiPath(path)
        ? options.console
        : undefined;
    const service = options.services?.[path] ?? site;
    if (service) {
      const status = await service(request, response);
      options.onRequest?.({ method, path, status, ms: Date.now() - started, requestId: undefined });
      return;
    }
    let body: Buffer;
    try {
      body = await readBody(request);
    } catch (error) {
      if (error instanceof PayloadTooLarge) {
        gatewayError(
          response,
          413,
          'invalid_request',
          "Request payload exceeds API Gateway's 10 MB limit",
        );
      } else {
        response.destroy();
      }
      return;
    }
    const { match } = matchRoute(options.routes, method, path);
    const incoming: IncomingRequest = {
      method,
      url: request.url ?? '/',
      headers: request.headers,
      body,
      sourceIp: sourceIpOf(request),
    };
    const event = toApiGatewayEvent(incoming, match?.route ?? null, match?.params ?? {});
    const family = match?.route.family;
    const handler = family ? options.functions[family] : options.fallback;
    let status: number;
    let requestId: string | undefined;
    let clientClosed = false;
    try {
      if (!handler) throw new Error(`No local function for family ${family}`);
      const streaming = streamingHandlerOf(handler);
      if (streaming) {
        // As API Gateway's STREAM transfer mode does: status and headers first, then the body as written.
        let opened: { statusCode: number; headers: Record<string, string> } | undefined;
        // Node's response swallows writes once its socket is gone, so a
        // client that hung up mid-stream shows as its socket closing first.
        let hungUp = false;
        const onHangUp = () => {
          hungUp = true;
        };
        const socket = request.socket;
        socket.once('close', onHangUp);
        try {
          const outcome = await streaming(
            event,
            {
              open: (meta) => {
                opened = meta;
                return openStreamed(request, response, meta);
              },
            },
            lambdaContext(family ?? 'fallback'),
          );
          clientClosed = outcome === 'client_closed' || hungUp;
        } finally {
          // A kept-alive socket serves the next request too.
          socket.off('close', onHangUp);
        }
        status = opened?.statusCode ?? 502;
        requestId = opened?.headers['X-Request-Id'];
      } else {
        const result = await handler(event, lambdaContext(family ?? 'fallback'));
        await writeResult(request, response, result);
        status = result.statusCode;
        requestId = result.headers?.['X-Request-Id']?.toString();
      }
    } catch (error) {
      // API Gateway answers 502 when the integration fails; so do we, and say why on the console.
      console.error('Function failed:', error);
      if (response.headersSent) response.destroy();
      else
        gatewayError(response, 502, 'internal_error', 'The function serving this endpoint failed');
      status = 502;
    }
    options.onRequest?.({
      method,
      path,
      status,
      ms: Date.now() - started,
      requestId,
      ...(clientClosed ? { clientClosed } : {}),
    });
  };

  const server = createServer((request, response) => {
    serve(request, response).catch((error: unknown) => {
      console.error('Gateway failed:', error);
      response.destroy();
    });
  });
  server.on('clientError', answerMalformedRequest);
  server.keepAliveTimeout = 5_000;
  const { port } = await listen(server, options.port, options.host);
  const hostForUrl = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${hostForUrl}:${port}`,
    port,
    end: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
