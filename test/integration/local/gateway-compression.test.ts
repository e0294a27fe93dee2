import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { Route } from '../../../layers/core/http/route';
import { type StreamableResult, streamable } from '../../../layers/core/http/streaming';
import { consoleSite } from '../../../lib/local/console-site';
import { type LocalGateway, startGateway } from '../../../lib/local/gateway';

const route = (path: string, family: string, streaming = false): Route => ({
  method: 'GET',
  path,
  family,
  operation: family,
  access: 'public',
  api: 'v1',
  ...(streaming ? { streaming: true } : {}),
});

/** A JSON answer well over the compression threshold, and very compressible. */
const LIST = JSON.stringify({
  items: Array.from({ length: 200 }, (_, index) => ({ id: `agt_${index}`, name: 'Support bot' })),
});
const SCRIPT = `export const words = ${JSON.stringify('the console '.repeat(2000))};\n`;

interface Answer {
  readonly response: IncomingMessage;
  readonly body: Buffer;
}

/** One GET over a real socket, its body as received (still encoded). */
function get(url: string, acceptEncoding?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      { headers: acceptEncoding === undefined ? {} : { 'Accept-Encoding': acceptEncoding } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ response, body: Buffer.concat(chunks) }));
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

function decoded({ response, body }: Answer): string {
  const encoding = response.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(body).toString('utf8');
  if (encoding === 'gzip') return gunzipSync(body).toString('utf8');
  return body.toString('utf8');
}

describe('Local gateway: compression by Accept-Encoding', () => {
  let gateway: LocalGateway;
  let directory: string;
  let events: Readable;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'compressed-console-'));
    mkdirSync(join(directory, 'assets'));
    writeFileSync(join(directory, 'index.html'), `<!doctype html><title>console</title>`);
    writeFileSync(join(directory, 'assets', 'main-ABC123.js'), SCRIPT);
    writeFileSync(join(directory, 'robots.txt'), 'User-agent: *\nDisallow: /\n');
    events = new Readable({ read() {} });
    gateway = await startGateway({
      host: '127.0.0.1',
      port: 0,
      routes: [
        route('/api/v1/list', 'list'),
        route('/api/v1/tiny', 'tiny'),
        route('/api/v1/events', 'events', true),
        route('/api/v1/answer', 'answer', true),
      ],
      functions: {
        list: async () => ({
          statusCode: 200,
          headers: { 'Content-Type': 'application/json; charset=utf-8' },
          body: LIST,
        }),
        tiny: async () => ({
          statusCode: 200,
          headers: { 'Content-Type': 'application/json; charset=utf-8' },
          body: '{"ok":true}',
        }),
        events: streamable(
          async (): Promise<StreamableResult> => ({
            statusCode: 200,
            headers: { 'Content-Type': 'text/event-stream' },
            body: events,
          }),
        ),
        // A streaming family's answer that is not a stream (a query with stream: false).
        answer: streamable(
          async (): Promise<StreamableResult> => ({
            statusCode: 200,
            headers: { 'Content-Type': 'application/json; charset=utf-8' },
            body: LIST,
          }),
        ),
      },
      fallback: async () => ({ statusCode: 404, body: '' }),
      console: consoleSite(directory),
    });
  });
  afterAll(async () => {
    events.push(null);
    await gateway.end();
    rmSync(directory, { recursive: true, force: true });
  });

  it.each([
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip, deflate', 'gzip'],
  ])(
    'sends the API JSON to "%s" as %s, saying it varies by Accept-Encoding',
    async (accept, encoding) => {
      const answer = await get(`${gateway.url}/api/v1/list`, accept);

      expect(answer.response.headers['content-encoding']).toBe(encoding);
      expect(answer.response.headers.vary).toBe('Accept-Encoding');
      expect(answer.body.length).toBeLessThan(LIST.length / 4);
      expect(decoded(answer)).toBe(LIST);
    },
  );

  it('sends the JSON as it is to a client that takes no compression', async () => {
    for (const accept of [undefined, 'identity']) {
      const answer = await get(`${gateway.url}/api/v1/list`, accept);

      expect(answer.response.headers['content-encoding']).toBeUndefined();
      expect(answer.response.headers.vary).toBe('Accept-Encoding');
      expect(answer.body.toString('utf8')).toBe(LIST);
    }
  });

  it('leaves an answer too small to gain as it is', async () => {
    const answer = await get(`${gateway.url}/api/v1/tiny`, 'br, gzip');

    expect(answer.response.headers['content-encoding']).toBeUndefined();
    expect(answer.body.toString('utf8')).toBe('{"ok":true}');
  });

  it("compresses a streaming family's JSON answer too", async () => {
    const answer = await get(`${gateway.url}/api/v1/answer`, 'br');

    expect(answer.response.headers['content-encoding']).toBe('br');
    expect(decoded(answer)).toBe(LIST);
  });

  it('sends an event stream uncompressed, each event as soon as it is written', async () => {
    // Act: open the stream asking for Brotli, then write one event and wait for it while it stays open
    const first = await new Promise<{ headers: IncomingMessage['headers']; text: string }>(
      (resolve, reject) => {
        const outgoing = httpRequest(
          `${gateway.url}/api/v1/events`,
          { headers: { 'Accept-Encoding': 'br, gzip' } },
          (response) => {
            response.once('data', (chunk: Buffer) => {
              resolve({ headers: response.headers, text: chunk.toString('utf8') });
              outgoing.destroy();
            });
          },
        );
        outgoing.on('error', (error: NodeJS.ErrnoException) => {
          if (error.code !== 'ECONNRESET') reject(error);
        });
        outgoing.end();
        setTimeout(() => events.push('data: {"type":"delta","text":"Hello"}\n\n'), 50);
      },
    );

    expect(first.headers['content-encoding']).toBeUndefined();
    expect(first.text).toBe('data: {"type":"delta","text":"Hello"}\n\n');
  });

  it.each([
    ['br', 'br'],
    ['gzip', 'gzip'],
  ])(
    "serves the console's scripts to %s compressed, with their length",
    async (accept, encoding) => {
      const answer = await get(`${gateway.url}/assets/main-ABC123.js`, accept);

      expect(answer.response.statusCode).toBe(200);
      expect(answer.response.headers['content-encoding']).toBe(encoding);
      expect(answer.response.headers['content-length']).toBe(String(answer.body.length));
      expect(answer.response.headers.vary).toBe('Accept-Encoding');
      expect(answer.response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(decoded(answer)).toBe(SCRIPT);
    },
  );

  it("serves the console's scripts as they are without Accept-Encoding", async () => {
    const answer = await get(`${gateway.url}/assets/main-ABC123.js`);

    expect(answer.response.headers['content-encoding']).toBeUndefined();
    expect(answer.body.toString('utf8')).toBe(SCRIPT);
  });

  it('answers /robots.txt with the robots file, and a missing file path with a 404, not the application', async () => {
    const robots = await get(`${gateway.url}/robots.txt`, 'br');
    const missing = await get(`${gateway.url}/sitemap.xml`, 'br');

    expect(robots.response.statusCode).toBe(200);
    expect(robots.response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(decoded(robots)).toContain('User-agent: *');
    expect(missing.response.statusCode).toBe(404);
    expect(decoded(missing)).not.toContain('<!doctype html>');
  });
});
