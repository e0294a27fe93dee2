import { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';
import type { Route } from '../../../layers/core/http/route';
import { type StreamableResult, streamable } from '../../../layers/core/http/streaming';
import { type AccessLogLine, type LocalGateway, startGateway } from '../../../lib/local/gateway';

const STREAM_ROUTE: Route = {
  method: 'GET',
  path: '/api/v1/stream',
  family: 'stream',
  operation: 'stream',
  access: 'public',
  api: 'v1',
  streaming: true,
};

/** An SSE body that sends one event, then waits for `release` (a model that is still thinking). */
function pendingStream(release: Promise<void>): Readable {
  return Readable.from(
    (async function* () {
      yield 'data: first\n\n';
      await release;
      yield 'data: second\n\n';
    })(),
  );
}

/**
 * Issue 14 item 4: a client that closes an SSE stream early made its choice;
 * the local gateway reports it at info (`clientClosed` on the access line,
 * the status that was sent) and never as a function failure or a 502.
 */
describe('Local gateway: a client closing a stream early', () => {
  let gateway: LocalGateway;
  const lines: AccessLogLine[] = [];
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });

  beforeAll(async () => {
    const handler = streamable(
      async (): Promise<StreamableResult> => ({
        statusCode: 200,
        headers: { 'Content-Type': 'text/event-stream', 'X-Request-Id': 'req_test' },
        body: pendingStream(released),
      }),
    );
    gateway = await startGateway({
      host: '127.0.0.1',
      port: 0,
      routes: [STREAM_ROUTE],
      functions: { stream: handler },
      fallback: async () => ({ statusCode: 404, body: '' }),
      onRequest: (line) => lines.push(line),
    });
  });
  afterAll(async () => {
    release();
    await gateway.end();
  });

  it('logs it as the client closing the stream, with the status sent, and no error', async () => {
    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      // Act: read the first event, then hang up, then let the body go on
      await new Promise<void>((resolve, reject) => {
        const outgoing = httpRequest(`${gateway.url}/api/v1/stream`, (incoming) => {
          incoming.once('data', () => {
            outgoing.destroy();
            resolve();
          });
        });
        outgoing.on('error', (error) => {
          if ((error as { code?: string }).code !== 'ECONNRESET') reject(error);
        });
        outgoing.end();
      });
      // The model answers a moment later, when the server has seen the hang-up.
      await new Promise((resolve) => setTimeout(resolve, 100));
      release();
      for (let waited = 0; lines.length === 0 && waited < 5_000; waited += 10) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }

      // Assess
      expect(lines).toEqual([
        expect.objectContaining({ path: '/api/v1/stream', status: 200, clientClosed: true }),
      ]);
      expect(errors).not.toHaveBeenCalled();
    } finally {
      errors.mockRestore();
    }
  });
});
