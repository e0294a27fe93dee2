import { expectFlatError, expectNestedError, expectSecurityHeaders } from '../support/error-shapes';
import { createAgent, createDataSource } from '../support/fixtures';
import { type ApiResponse, api } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { createKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

/** Routing (D7: unknown paths and versions are 404; wrong methods 405) and headers every response carries. */
describe('HTTP surface', () => {
  const clock = new TestClock();
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService({ clock });
  });
  afterAll(() => service.end());
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  /** `key: null` sends no Authorization header. */
  const call = (path: string, method = 'GET', key: string | null = service.adminKey) =>
    api(service.url, path, { method, ...(key ? { key } : {}) });

  describe('unknown paths', () => {
    it.each([
      '/api/v2/agents',
      '/api/v0/agents',
      '/api/v1/agent',
      '/api/v1/agents/agt_01jf3z8k7q2m4n6p8r0s2t4v6w/extra',
      '/api/v1',
      '/api/v1/',
      '/',
      '/agents',
    ])('answers GET %s with a nested 404 not_found', async (path) => {
      for (const key of [service.adminKey, null]) {
        const response = await call(path, 'GET', key);

        const error = expectNestedError(response, 404, 'not_found');
        expect(error.message).toContain('No such endpoint');
        expectSecurityHeaders(response);
      }
    });

    it.each(['/api/chatbot', '/api/data-specs/ds_01jf3z8k7q2m4n6p8r0s2t4v6w'])(
      'answers the unknown legacy path %s with a flat 404',
      async (path) => {
        const response = await call(path);

        expect(expectFlatError(response, 404)).toMatchObject({ status: 404, code: 'not_found' });
      },
    );
  });

  describe('wrong methods', () => {
    it.each([
      ['PATCH', '/api/v1/agents', 'GET, POST'],
      ['DELETE', '/api/v1/agents', 'GET, POST'],
      ['POST', '/api/v1/agents/agt_01jf3z8k7q2m4n6p8r0s2t4v6w', 'GET, PUT, DELETE'],
      ['GET', '/api/v1/data-sources/ds_01jf3z8k7q2m4n6p8r0s2t4v6w/sync', 'POST'],
      ['PUT', '/api/v1/data-sources/ds_01jf3z8k7q2m4n6p8r0s2t4v6w/status', 'GET'],
    ])('answers %s %s with a nested 405 and Allow: %s', async (method, path, allow) => {
      const response = await call(path, method);

      expectNestedError(response, 405, expect.any(String));
      expect(response.headers.get('allow')).toBe(allow);
      expectSecurityHeaders(response);
    });

    it.each([
      ['DELETE', '/api/data-specs', 'GET, POST'],
      ['GET', '/api/data-specs/ds_01jf3z8k7q2m4n6p8r0s2t4v6w/process', 'POST'],
      ['PATCH', '/api/ai-agent-managers/agt_01jf3z8k7q2m4n6p8r0s2t4v6w', 'GET, PUT, DELETE'],
    ])('answers legacy %s %s with a flat 405 and Allow: %s', async (method, path, allow) => {
      const response = await call(path, method);

      expect(expectFlatError(response, 405)).toMatchObject({ status: 405 });
      expect(response.headers.get('allow')).toBe(allow);
    });

    it('answers 405 before looking at the key', async () => {
      const response = await call('/api/v1/agents', 'PATCH', null);

      expect(response.status).toBe(405);
    });
  });

  describe('headers on every response', () => {
    it('sends HSTS, the other security headers and a unique request id on successes and errors alike', async () => {
      const readOnly = await createKey(service, service.orgId, { scopes: ['Read'] });
      const source = await createDataSource(service, service.adminKey);
      await createAgent(service, service.adminKey, { name: 'uses', data_source_ids: [source.id] });
      const doomed = await createAgent(service, service.adminKey, {
        name: 'd',
        data_source_ids: [],
      });
      const responses: Array<[number, ApiResponse]> = [
        [200, await call('/api/v1/agents')],
        [
          201,
          await api(service.url, '/api/v1/data-sources', {
            method: 'POST',
            key: service.adminKey,
            body: { type: 'file', name: 'f' },
          }),
        ],
        [202, await call(`/api/v1/data-sources/${source.id}/sync`, 'POST')],
        [204, await call(`/api/v1/agents/${doomed.id}`, 'DELETE')],
        [400, await call('/api/v1/agents?limit=0')],
        [401, await call('/api/v1/agents', 'GET', null)],
        [403, await call('/api/v1/agents', 'POST', readOnly.key)],
        [404, await call('/api/v2/agents')],
        [405, await call('/api/v1/agents', 'PATCH')],
        [409, await call(`/api/v1/data-sources/${source.id}`, 'DELETE')],
        [
          413,
          await api(service.url, '/api/v1/agents', {
            method: 'POST',
            key: service.adminKey,
            rawBody: `"${'x'.repeat(1024 * 1024)}"`,
            headers: { 'content-type': 'application/json' },
          }),
        ],
        [
          415,
          await api(service.url, '/api/v1/agents', {
            method: 'POST',
            key: service.adminKey,
            rawBody: 'x',
            headers: { 'content-type': 'text/plain' },
          }),
        ],
        [200, await call('/api/data-specs')],
        [401, await call('/api/data-specs', 'GET', null)],
        [404, await call('/api/nothing-here')],
      ];

      for (const [status, response] of responses) {
        expect(response.status).toBe(status);
        expectSecurityHeaders(response);
        expect(response.headers.get('cache-control')).toBe('no-store');
      }
      const ids = responses.map(([, response]) => response.headers.get('x-request-id'));
      expect(new Set(ids).size).toBe(ids.length);
    });

    it("answers a body over API Gateway's 10 MB limit with 413 before any function runs", async () => {
      const response = await api(service.url, '/api/v1/agents', {
        method: 'POST',
        key: service.adminKey,
        rawBody: Buffer.alloc(10 * 1024 * 1024 + 1, 0x20),
        headers: { 'content-type': 'application/json' },
      });

      expectNestedError(response, 413, 'invalid_request');
      expectSecurityHeaders(response);
    });

    it('sends JSON with a charset on every JSON response', async () => {
      const response = await call('/api/v1/agents');

      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    });
  });
});
