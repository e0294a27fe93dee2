import fc from 'fast-check';
import { ROUTES } from '../../layers/core/http/routes/route-table';
import {
  anyString,
  encode,
  type FuzzBody,
  fuzzBody,
  fuzzId,
  fuzzQuery,
  routePath,
} from '../support/http-arbitraries';
import { type ApiResponse, api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { createKey, createTenant, type TestKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

const VALID_AGENT = { name: 'Fuzzed agent', data_source_ids: [] as string[], temperature: 0.7 };
const VALID_LEGACY_AGENT = { name: 'Fuzzed', dataSourceIds: [] as string[], maxTokens: 100 };
const VALID_SOURCE = {
  type: 'website',
  name: 'Fuzzed source',
  config: { url: 'https://fuzz.example.com', max_pages: 10 },
  sync_frequency: 'daily',
};
const VALID_LEGACY_SOURCE = {
  type: 'website',
  name: 'Fuzzed',
  syncFrequency: 'weekly',
  config: { url: 'https://fuzz.example.com', maxPages: 3 },
};
const VALID_FILE_UPLOAD = { filename: 'guide.md', content_type: 'text/markdown', size_bytes: 2048 };
const VALID_BODIES = [
  VALID_AGENT,
  VALID_LEGACY_AGENT,
  VALID_SOURCE,
  VALID_LEGACY_SOURCE,
  VALID_FILE_UPLOAD,
];

/** D5: which error shape a path answers in, judged from the path the server sees. */
function shapeFor(path: string): 'nested' | 'flat' {
  const { pathname } = new URL(path, 'http://localhost');
  return pathname.startsWith('/api/') && !/^\/api\/v\d+(\/|$)/.test(pathname) ? 'flat' : 'nested';
}

/** The invariants every response keeps, whatever was sent. */
function expectWellFormed(path: string, response: ApiResponse): void {
  expect(response.status).toBeLessThan(500);
  const requestId = response.headers.get('x-request-id');
  expect(requestId).toMatch(/^req_[0-9a-z]{26}$/);
  expect(response.headers.get('strict-transport-security')).toMatch(/max-age=31536000/);
  if (response.status === 204) {
    expect(response.text).toBe('');
    return;
  }
  // D14's browser endpoints and D26's connector callback (only they) answer redirects, HTML pages and SAML metadata.
  const contentType = response.headers.get('content-type') ?? '';
  if (response.status === 303 || /^(text\/html|application\/samlmetadata\+xml)/.test(contentType)) {
    expect(path).toMatch(/^\/api\/(v1\/sso\/|oauth\/callback(\?|$))/);
    return;
  }
  expect(response.body).not.toBeNull();
  const body = json(response);
  if (response.status < 400) {
    // A resource, not an error body (a status object has its own `error` field, D24).
    expect(body).not.toHaveProperty('request_id');
    return;
  }
  if (shapeFor(path) === 'nested') {
    expect(Object.keys(body).sort()).toEqual(['error', 'request_id']);
    // The OpenAI-compatible routes add OpenAI's `type` and `param` to the same error.
    const openAiCompatible = new URL(path, 'http://localhost').pathname.startsWith(
      '/api/v1/openai/',
    );
    expect([
      ['code', 'details', 'message'],
      ...(openAiCompatible ? [['code', 'details', 'message', 'param', 'type']] : []),
    ]).toContainEqual(Object.keys(body.error).sort());
    expect(typeof body.error.code).toBe('string');
    expect(typeof body.error.message).toBe('string');
    expect(typeof body.error.details).toBe('object');
    expect(body.error.details).not.toBeNull();
  } else {
    expect(typeof body.error).toBe('string');
  }
  expect(body.request_id).toBe(requestId);
}

/**
 * Property-based fuzzing over real HTTP: any method, path, query and body on
 * every route of the table (v1 and legacy) must give a well-formed answer, and
 * a failed request must never leave a partial write behind. The clock is
 * moved on before every request, so rate limits do not hide the code under
 * test behind 429s.
 */
describe('Fuzzing every endpoint', () => {
  const clock = new TestClock();
  let service: TestService;
  let readOnly: TestKey;
  const knownIds: string[] = [];

  beforeAll(async () => {
    service = await startTestService({ clock });
    readOnly = await createKey(service, service.orgId, { scopes: ['Read'] });
    for (const [path, body] of [
      ['/api/v1/data-sources', VALID_SOURCE],
      ['/api/v1/data-sources', VALID_SOURCE],
      ['/api/v1/data-sources', { type: 'file', name: 'Fuzzed files' }],
      ['/api/v1/agents', VALID_AGENT],
      ['/api/v1/agents', VALID_AGENT],
    ] as const) {
      const response = await api(service.url, path, {
        method: 'POST',
        key: service.adminKey,
        body,
      });
      knownIds.push(json(response).id);
    }
  });
  afterAll(() => service.end());

  async function send(
    method: string,
    path: string,
    body: FuzzBody,
    key: string | null,
  ): Promise<ApiResponse> {
    clock.advance(REFILL_ALL_BUCKETS_MS);
    return api(service.url, path, {
      method,
      ...(key ? { key } : {}),
      ...(body.text !== undefined ? { rawBody: body.text } : {}),
      headers: body.contentType ? { 'content-type': body.contentType } : {},
    });
  }

  it('never answers 5xx on any route, and always in the shape of its path family', async () => {
    const request = fc.record({
      route: fc.constantFrom(...ROUTES),
      // Mostly the route's own method; sometimes another one (405s, and other routes on the path).
      otherMethod: fc.oneof(
        { weight: 4, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH') },
      ),
      id: fuzzId(knownIds),
      query: fc.option(fuzzQuery, { freq: 2 }),
      body: fuzzBody(VALID_BODIES),
      key: fc.oneof(
        { weight: 8, arbitrary: fc.constant('admin' as const) },
        {
          weight: 1,
          arbitrary: fc.constantFrom('read' as const, 'none' as const, 'garbage' as const),
        },
      ),
    });

    await fc.assert(
      fc.asyncProperty(request, async ({ route, otherMethod, id, query, body, key }) => {
        const method = otherMethod ?? route.method;
        const path = `${routePath(route, id)}${query ? `?${query}` : ''}`;
        const sentBody = method === 'GET' ? { text: undefined, contentType: undefined } : body;
        const keys = {
          admin: service.adminKey,
          read: readOnly.key,
          garbage: 'svcsk_test_garbage',
          none: null,
        };

        const response = await send(method, path, sentBody, keys[key]);

        expectWellFormed(path, response);
      }),
      { numRuns: 400 },
    );
  });

  it('answers unknown paths under /api and /api/v1 with a well-formed 404 or 405', async () => {
    const path = fc.oneof(
      fc.webPath().map((rest) => `/api/v1${rest.startsWith('/') ? rest : `/${rest}`}`),
      fc.webPath().map((rest) => `/api${rest.startsWith('/') ? rest : `/${rest}`}`),
      fc.webPath().map((rest) => `/api/v2${rest.startsWith('/') ? rest : `/${rest}`}`),
      anyString(30).map((segment) => `/api/v1/${encode(segment)}`),
    );

    await fc.assert(
      fc.asyncProperty(path, fc.constantFrom('GET', 'POST', 'DELETE'), async (target, method) => {
        const response = await send(
          method,
          target,
          { text: undefined, contentType: undefined },
          service.adminKey,
        );

        expectWellFormed(target, response);
      }),
      { numRuns: 100 },
    );
  });

  describe('no partial writes', () => {
    let tenant: TestKey;
    beforeAll(async () => {
      tenant = await createTenant(service);
    });

    const total = async (path: string): Promise<number> => {
      clock.advance(REFILL_ALL_BUCKETS_MS);
      const response = await api(service.url, `${path}?limit=200`, { key: tenant.key });
      expect(response.status).toBe(200);
      return json(response).total;
    };

    it.each([
      ['/api/v1/agents', '/api/v1/agents', [VALID_AGENT]],
      ['/api/ai-agent-managers', '/api/v1/agents', [VALID_LEGACY_AGENT, VALID_AGENT]],
      ['/api/v1/data-sources', '/api/v1/data-sources', [VALID_SOURCE]],
      ['/api/data-specs', '/api/v1/data-sources', [VALID_LEGACY_SOURCE, VALID_SOURCE]],
    ])(
      'creates exactly one resource on POST %s when it answers 201, and none otherwise',
      async (createPath, listPath, validBodies) => {
        await fc.assert(
          fc.asyncProperty(fuzzBody(validBodies), async (body) => {
            const before = await total(listPath);

            const response = await send('POST', createPath, body, tenant.key);

            expectWellFormed(createPath, response);
            const after = await total(listPath);
            if (response.status === 201) {
              expect(after).toBe(before + 1);
              const stored = await api(service.url, `${listPath}/${json(response).id}`, {
                key: tenant.key,
              });
              expect(json(stored)).toEqual(json(response));
            } else {
              expect(after).toBe(before);
            }
          }),
          { numRuns: 60 },
        );
      },
    );

    it.each([
      ['/api/v1/agents', '/api/v1/agents', VALID_AGENT, [VALID_AGENT]],
      ['/api/ai-agent-managers', '/api/v1/agents', VALID_AGENT, [VALID_LEGACY_AGENT]],
      ['/api/v1/data-sources', '/api/v1/data-sources', VALID_SOURCE, [VALID_SOURCE]],
    ] as const)(
      'leaves a resource unchanged when PUT %s/:id fails',
      async (updatePath, readPath, valid, validBodies) => {
        clock.advance(REFILL_ALL_BUCKETS_MS);
        const created = await api(service.url, readPath, {
          method: 'POST',
          key: tenant.key,
          body: valid,
        });
        const id = json(created).id;
        const read = async () => {
          clock.advance(REFILL_ALL_BUCKETS_MS);
          return json(await api(service.url, `${readPath}/${id}`, { key: tenant.key }));
        };

        await fc.assert(
          fc.asyncProperty(fuzzBody(validBodies), async (body) => {
            const before = await read();

            const response = await send('PUT', `${updatePath}/${id}`, body, tenant.key);

            expectWellFormed(updatePath, response);
            const after = await read();
            if (response.status === 200) expect(after).toEqual(json(response));
            else expect(after).toEqual(before);
          }),
          { numRuns: 60 },
        );
      },
    );
  });
});
