import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createOpenSearchClient } from '../../../../layers/core/adapters/opensearch/client';
import type { SearchClient } from '../../../../layers/core/adapters/opensearch/search-client';

/** One request as the stand-in received it. */
export interface RecordedRequest {
  readonly method: string;
  /** Decoded path, e.g. `/svc-chunks-*,-svc-chunks-x/_delete_by_query`. */
  readonly path: string;
  readonly query: Record<string, string>;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

export interface Reply {
  /** @default 200 */
  readonly status?: number;
  /** JSON answered as `application/json`; a fixture from `fixture()`, usually. */
  readonly body?: unknown;
  /** Answer only after this long (to provoke client timeouts). */
  readonly delayMs?: number;
  /** Close the connection without answering. */
  readonly hangUp?: boolean;
}

export type Respond = (request: RecordedRequest) => Reply;

export interface RecordingOpenSearch {
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Answers from now on. */
  respondWith(respond: Respond): void;
  close(): Promise<void>;
}

const FIXTURES = join(__dirname, '..', '..', '..', 'fixtures', 'opensearch');

/** A hand-written OpenSearch answer from test/fixtures/opensearch (see its README). */
export function fixture(name: string): unknown {
  return JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8'));
}

/** A request body parsed as JSON. */
export function jsonOf(request: RecordedRequest | undefined): any {
  if (!request) throw new Error('No such request was recorded');
  return JSON.parse(request.body);
}

/** A bulk or multi-search body: one JSON value per line. */
export function ndjsonOf(request: RecordedRequest | undefined): any[] {
  if (!request) throw new Error('No such request was recorded');
  return request.body
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

/**
 * A stand-in for an OpenSearch cluster on 127.0.0.1: records each request
 * and answers what `respond` says (unknown requests get a 500 that names
 * them, so a test fails loudly).
 */
export async function startRecordingOpenSearch(respond?: Respond): Promise<RecordingOpenSearch> {
  const requests: RecordedRequest[] = [];
  let current: Respond =
    respond ??
    ((request) => ({
      status: 500,
      body: { error: { type: 'unexpected', reason: `${request.method} ${request.path}` } },
    }));
  const server: Server = createServer((incoming, outgoing) => {
    const parts: Buffer[] = [];
    incoming.on('data', (part: Buffer) => parts.push(part));
    incoming.on('end', () => {
      const url = new URL(incoming.url ?? '/', 'http://127.0.0.1');
      const request: RecordedRequest = {
        method: incoming.method ?? 'GET',
        path: decodeURIComponent(url.pathname),
        query: Object.fromEntries(url.searchParams),
        headers: incoming.headers,
        body: Buffer.concat(parts).toString('utf8'),
      };
      requests.push(request);
      const reply = current(request);
      const send = () => {
        if (reply.hangUp) {
          incoming.socket.destroy();
          return;
        }
        const payload = reply.body === undefined ? '' : JSON.stringify(reply.body);
        outgoing.writeHead(reply.status ?? 200, {
          'content-type': 'application/json; charset=UTF-8',
          'content-length': Buffer.byteLength(payload),
        });
        outgoing.end(request.method === 'HEAD' ? undefined : payload);
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    respondWith(next) {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A client for the stand-in: no retries, so every request the adapter means to send is seen once. */
export function clientFor(server: { url: string }, timeoutMs = 2000): SearchClient {
  return createOpenSearchClient({ url: server.url, maxRetries: 0, timeoutMs });
}

/**
 * Answers by route: the first `[method, path pattern, reply]` whose method
 * and path match. Paths are matched on the decoded path, e.g. `/_msearch`.
 */
export function routes(...table: [string, RegExp | string, Reply | Respond][]): Respond {
  return (request) => {
    for (const [method, path, reply] of table) {
      const pathMatches =
        typeof path === 'string' ? request.path === path : path.test(request.path);
      if (method === request.method && pathMatches) {
        return typeof reply === 'function' ? reply(request) : reply;
      }
    }
    return {
      status: 500,
      body: { error: { type: 'unexpected', reason: `${request.method} ${request.path}` } },
    };
  };
}
