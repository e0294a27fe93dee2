/**
 * A real HTTP server on 127.0.0.1 standing in for an OpenAI-compatible
 * endpoint: the SDK reaches it through `baseURL` (as with OPENAI_BASE_URL)
 * and it answers from the hand-written fixtures in test/fixtures/openai.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'openai');

/** The text of a fixture file. */
export function fixture(name: string): string {
  return readFileSync(join(FIXTURES, name), 'utf8');
}

/** A JSON fixture, parsed. */
export function jsonFixture(name: string): Record<string, unknown> {
  return JSON.parse(fixture(name));
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The JSON body the SDK sent. */
  readonly body: any;
}

export type Reply = (request: RecordedRequest, res: ServerResponse) => void;

export interface FakeOpenAi {
  /** `http://127.0.0.1:<port>/v1`, what OPENAI_BASE_URL would hold. */
  readonly baseURL: string;
  readonly requests: RecordedRequest[];
  /** Connections the server saw closed by the client. */
  closedByClient(): number;
  close(): Promise<void>;
}

export async function startFakeOpenAi(reply: Reply): Promise<FakeOpenAi> {
  const requests: RecordedRequest[] = [];
  let closedByClient = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const request: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: text ? JSON.parse(text) : null,
      };
      requests.push(request);
      res.on('close', () => {
        if (!res.writableFinished) closedByClient += 1;
      });
      reply(request, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    closedByClient: () => closedByClient,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/**
 * Streams an `.sse` fixture event by event. `events` keeps only the first n
 * events; `ending` says what happens after them: `end` closes the response,
 * `stall` leaves it open and silent.
 */
export function sendSse(
  res: ServerResponse,
  sse: string,
  options: { readonly events?: number; readonly ending?: 'end' | 'stall' } = {},
): void {
  const events = sse.split(/(?<=\n\n)/).filter((event) => event.trim() !== '');
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const event of events.slice(0, options.events ?? events.length)) res.write(event);
  if ((options.ending ?? 'end') === 'end') res.end();
}
