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

/**
 * An SSE body that has sent one event and waits for more (a model that is
 * still thinking), and says when the server stops reading it: the
 * gateway's pipeline destroys it once the client has hung up.
 */
function pendingStream(): { body: Readable; destroyed: Promise<void> } {
  let destroyedNow: () => void = () => undefined;
  const destroyed = new Promise<void>((resolve) => {
    destroyedNow = resolve;
  });
  const body = new Readable({
    read() {},
    destroy(error, callback) {
      destroyedNow();
      callback(error);
    },
  });
  body.push('data: first\n\n');
  return { body, destroyed };
}

/**
 * Issue 14 item 4: a client that closes an SSE stream early made its choice;
 * the local gateway reports it at info (`clientClosed` on the access line,
 * the status that was sent) and never as a function failure or a 502.
 */
describe('Local gateway: a client closing a stream early', () => {
  let gateway: LocalGateway;
  const lines: AccessLogLine[] = [];
  let logged: () => void = () => undefined;
  const firstLine = new Promise<void>((resolve) => {
    logged = resolve;
  });
  const stream = pendingStream();

  beforeAll(async () => {
    const handler = streamable(
      async (): Promise<StreamableResult> => ({
        statusCode: 200,
        headers: { 'Content-Type': 'text/event-stream', 'X-Request-Id': 'req_test' },
        body: stream.body,
      }),
    );
    gateway = await startGateway({
      host: '127.0.0.1',
      port: 0,
      routes: [STREAM_ROUTE],
      functions: { stream: handler },
      fallback: async () => ({ statusCode: 404, body: '' }),
      onRequest: (line) => {
        lines.push(line);
        logged();
      },
    });
  });
  afterAll(async () => {
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
      // The model answers once the server has seen the hang-up (it stops reading the body).
      await stream.destroyed;
      stream.body.push('data: second\n\n');
      await firstLine;

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
