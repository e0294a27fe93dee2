import { request as httpRequest } from 'node:http';
import { expectFlatError, expectNestedError, expectSecurityHeaders } from '../support/error-shapes';
import { createDataSource } from '../support/fixtures';
import { type ApiResponse, api } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';

/**
 * Issue 14 item 4, over HTTP against the local runtime: what reaches the
 * gateway before any handler could judge it. A body is handed on as the
 * bytes the client sent (P196), so D4's strict UTF-8 check sees them; a path
 * id that does not even percent-decode is a malformed id (D1), not an
 * unknown path; and Node's own refusals carry the JSON shape and a request
 * id (D5, D6).
 */
describe('Gateway edges (issue 14)', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.end());

  const createAgent = (rawBody: Buffer, path = '/api/v1/agents') =>
    api(service.url, path, {
      method: 'POST',
      key: service.adminKey,
      rawBody,
      headers: { 'content-type': 'application/json' },
    });

  describe('bodies that are not valid UTF-8 (D4)', () => {
    it.each([
      ['a truncated two-byte sequence', Buffer.from([0xc3, 0x28])],
      ['a lone 0xff', Buffer.from([0xff])],
      ['an encoded surrogate', Buffer.from([0xed, 0xa0, 0x80])],
    ])('refuses %s inside a string with 400, storing nothing', async (_name, bytes) => {
      const body = Buffer.concat([Buffer.from('{"name":"bad'), bytes, Buffer.from('"}')]);
      const before = await api(service.url, '/api/v1/agents', { key: service.adminKey });

      const response = await createAgent(body);

      expect(expectNestedError(response, 400, 'invalid_request').message).toMatch(/UTF-8/);
      const after = await api(service.url, '/api/v1/agents', { key: service.adminKey });
      expect(after.body).toEqual(before.body);
    });

    it('refuses it on a legacy path in the flat shape', async () => {
      const body = Buffer.concat([
        Buffer.from('{"name":"'),
        Buffer.from([0xff]),
        Buffer.from('"}'),
      ]);

      expectFlatError(await createAgent(body, '/api/ai-agent-managers'), 400);
    });

    it('keeps valid multi-byte text byte for byte', async () => {
      const name = 'Ågent 日本語 🚀';
      const source = await createDataSource(service, service.adminKey);
      const body = { name, data_source_ids: [source.id] };

      const response = await createAgent(Buffer.from(JSON.stringify(body), 'utf8'));

      expect(response.status).toBe(201);
      expect((response.body as { name: string }).name).toBe(name);
    });
  });

  describe('path ids that do not percent-decode (D1)', () => {
    it.each([
      ['/api/v1/agents/%ff', 'nested'],
      ['/api/v1/agents/%zz', 'nested'],
      ['/api/v1/data-sources/%c3%28/status', 'nested'],
      ['/api/ai-agent-managers/%ff', 'flat'],
    ])('answers GET %s with 400, not 404', async (path, shape) => {
      const response = await api(service.url, path, { key: service.adminKey });

      if (shape === 'nested') expectNestedError(response, 400, 'invalid_request');
      else expectFlatError(response, 400);
    });
  });

  describe("refusals from Node's HTTP parser (D5, D6)", () => {
    /** Sends what fetch would refuse to send, over a plain socket. */
    function raw(path: string, headers: Record<string, string> = {}): Promise<ApiResponse> {
      const { hostname, port } = new URL(service.url);
      return new Promise((resolve, reject) => {
        const outgoing = httpRequest({ hostname, port, path, headers }, (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const responseHeaders = new Headers();
            for (const [name, value] of Object.entries(incoming.headers)) {
              if (typeof value === 'string') responseHeaders.set(name, value);
            }
            resolve({
              status: incoming.statusCode ?? 0,
              headers: responseHeaders,
              body: text ? JSON.parse(text) : null,
              text,
            });
          });
        });
        outgoing.on('error', reject);
        outgoing.end();
      });
    }

    it('answers a query string over 16 KB with a JSON 431 and a request id', async () => {
      const response = await raw(`/api/v1/agents?q=${'a'.repeat(20_000)}`);

      expect(expectNestedError(response, 431, 'invalid_request').message).toMatch(/16 KB/);
      expectSecurityHeaders(response);
    });

    it('answers oversized headers the same way', async () => {
      const response = await raw('/api/v1/agents', { 'x-padding': 'b'.repeat(20_000) });

      expectNestedError(response, 431, 'invalid_request');
    });

    it('keeps serving after refusing them', async () => {
      await raw(`/api/v1/agents?q=${'a'.repeat(20_000)}`);

      const response = await api(service.url, '/api/v1/agents', { key: service.adminKey });
      expect(response.status).toBe(200);
    });
  });
});
