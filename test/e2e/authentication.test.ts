import { wellFormedKey, withBadChecksum } from '../support/api-key-format';
import { expectFlatError, expectNestedError, expectSecurityHeaders } from '../support/error-shapes';
import { type ApiResponse, api } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { createKey, revokeKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

/**
 * Spec, Authentication, and D10: `Authorization: Bearer <key>`; a missing,
 * malformed, mistyped, unknown, revoked or other-environment key is 401, in
 * the nested shape on `/api/v1` and the flat `{ error: 'Invalid API key',
 * status: 401 }` on legacy paths (D5).
 */
describe('Authentication', () => {
  const clock = new TestClock();
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService({ clock });
  });
  afterAll(() => service.end());
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  /** Each case: the Authorization header to send (undefined: none), and what the message says. */
  const refusals: ReadonlyArray<{
    readonly name: string;
    readonly authorization: (s: TestService) => Promise<string | undefined> | string | undefined;
    readonly message: RegExp;
  }> = [
    {
      name: 'a missing Authorization header',
      authorization: () => undefined,
      message: /missing api key/i,
    },
    {
      name: 'a key without the Bearer prefix',
      authorization: (s) => s.adminKey,
      message: /Bearer/,
    },
    {
      name: 'another auth scheme',
      authorization: (s) => `Basic ${Buffer.from(`user:${s.adminKey}`).toString('base64')}`,
      message: /Bearer/,
    },
    { name: 'Bearer with no key', authorization: () => 'Bearer ', message: /Bearer/ },
    {
      name: 'a malformed key',
      authorization: () => 'Bearer svcsk_test_tooshort',
      message: /^Invalid API key$/,
    },
    {
      name: 'a key of the wrong prefix',
      authorization: () => `Bearer sk_test_${'a'.repeat(36)}`,
      message: /^Invalid API key$/,
    },
    {
      name: 'a key with a bad checksum (last character flipped)',
      authorization: (s) => `Bearer ${withBadChecksum(s.adminKey)}`,
      message: /^Invalid API key$/,
    },
    {
      name: 'a well-formed key that no organization holds',
      authorization: () => `Bearer ${wellFormedKey('test')}`,
      message: /^Invalid API key$/,
    },
    {
      name: 'two keys in one header',
      authorization: (s) => `Bearer ${s.adminKey} ${s.adminKey}`,
      message: /Bearer|Invalid API key/,
    },
  ];

  const get = (path: string, authorization: string | undefined): Promise<ApiResponse> =>
    api(service.url, path, authorization ? { headers: { authorization } } : {});

  describe('on /api/v1 (nested shape)', () => {
    it.each(refusals)('rejects $name with 401 unauthorized', async ({ authorization, message }) => {
      const response = await get('/api/v1/agents', await authorization(service));

      const error = expectNestedError(response, 401, 'unauthorized');
      expect(error.message).toMatch(message);
      expectSecurityHeaders(response);
    });

    it('never echoes the key it refuses', async () => {
      const badKey = withBadChecksum(service.adminKey);

      const response = await get('/api/v1/agents', `Bearer ${badKey}`);

      expect(response.status).toBe(401);
      expect(response.text).not.toContain(badKey);
      expect(response.text).not.toContain(badKey.slice(11, 41));
    });

    it('rejects a live key on a test deployment, naming the mismatch', async () => {
      const live = await createKey(service, service.orgId, {
        scopes: ['Admin'],
        environment: 'live',
      });

      const response = await get('/api/v1/agents', `Bearer ${live.key}`);

      const error = expectNestedError(response, 401, 'unauthorized');
      expect(error.message).toMatch(/live/);
      expect(error.message).toMatch(/test/);
      expect(error.message).not.toContain(live.key);
    });

    it('rejects a well-formed live key nobody holds with the same mismatch message', async () => {
      const response = await get('/api/v1/agents', `Bearer ${wellFormedKey('live')}`);

      const error = expectNestedError(response, 401, 'unauthorized');
      expect(error.message).toMatch(/live key cannot be used on this test deployment/);
    });

    it('rejects a key once it is revoked', async () => {
      const key = await createKey(service, service.orgId, { scopes: ['Read'] });
      const before = await get('/api/v1/agents', `Bearer ${key.key}`);
      expect(before.status).toBe(200);

      await revokeKey(service, key);
      const after = await get('/api/v1/agents', `Bearer ${key.key}`);

      const error = expectNestedError(after, 401, 'unauthorized');
      expect(error.message).toBe('Invalid API key');
    });

    it('accepts the Bearer scheme case-insensitively, as HTTP auth schemes are', async () => {
      const response = await get('/api/v1/agents', `bearer ${service.adminKey}`);

      expect(response.status).toBe(200);
    });

    it('checks the key before the body: an unauthenticated POST learns nothing but 401', async () => {
      const response = await api(service.url, '/api/v1/agents', {
        method: 'POST',
        rawBody: 'not json',
        headers: { 'content-type': 'text/plain' },
      });

      expectNestedError(response, 401, 'unauthorized');
    });

    it('checks the key before the path id: a malformed id is still 401 without a key', async () => {
      const response = await get('/api/v1/agents/not-an-id', undefined);

      expectNestedError(response, 401, 'unauthorized');
    });

    it('answers 401 on every v1 endpoint', async () => {
      const paths = [
        ['GET', '/api/v1/agents'],
        ['POST', '/api/v1/agents'],
        ['GET', '/api/v1/agents/agt_01jf3z8k7q2m4n6p8r0s2t4v6w'],
        ['PUT', '/api/v1/agents/agt_01jf3z8k7q2m4n6p8r0s2t4v6w'],
        ['DELETE', '/api/v1/agents/agt_01jf3z8k7q2m4n6p8r0s2t4v6w'],
        ['GET', '/api/v1/data-sources'],
        ['POST', '/api/v1/data-sources'],
        ['GET', '/api/v1/data-sources/ds_01jf3z8k7q2m4n6p8r0s2t4v6w'],
        ['PUT', '/api/v1/data-sources/ds_01jf3z8k7q2m4n6p8r0s2t4v6w'],
        ['DELETE', '/api/v1/data-sources/ds_01jf3z8k7q2m4n6p8r0s2t4v6w'],
        ['POST', '/api/v1/data-sources/ds_01jf3z8k7q2m4n6p8r0s2t4v6w/sync'],
        ['GET', '/api/v1/data-sources/ds_01jf3z8k7q2m4n6p8r0s2t4v6w/status'],
      ] as const;
      for (const [method, path] of paths) {
        const response = await api(service.url, path, { method });
        expectNestedError(response, 401, 'unauthorized');
      }
    });
  });

  describe('on legacy paths (flat shape)', () => {
    it.each(refusals)(
      "rejects $name with { error: 'Invalid API key', status: 401 }",
      async ({ authorization }) => {
        const response = await get('/api/ai-agent-managers', await authorization(service));

        const body = expectFlatError(response, 401);
        expect(body).toMatchObject({ error: 'Invalid API key', status: 401 });
        expectSecurityHeaders(response);
        expect(response.headers.get('deprecation')).toBe('true');
      },
    );

    it('rejects a live key on a test deployment, naming the mismatch beside the flat error', async () => {
      const live = await createKey(service, service.orgId, { environment: 'live' });

      const response = await get('/api/data-specs', `Bearer ${live.key}`);

      const body = expectFlatError(response, 401);
      expect(body).toMatchObject({ error: 'Invalid API key', status: 401 });
      expect(body.message).toMatch(/live key cannot be used on this test deployment/);
    });

    it('rejects a revoked key', async () => {
      const key = await createKey(service, service.orgId, { scopes: ['Write'] });
      await revokeKey(service, key);

      const response = await api(service.url, '/api/data-specs', {
        method: 'POST',
        key: key.key,
        body: {},
      });

      expect(expectFlatError(response, 401)).toMatchObject({
        error: 'Invalid API key',
        status: 401,
      });
    });
  });
});
