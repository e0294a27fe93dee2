import fc from 'fast-check';
import { type FuzzBody, fuzzBody } from '../support/http-arbitraries';
import { type ApiResponse, api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

/** The invariants of every answer: never a 5xx, always the path family's error shape (D5). */
function expectWellFormed(path: string, response: ApiResponse): void {
  expect(response.status).toBeLessThan(500);
  expect(response.headers.get('x-request-id')).toMatch(/^req_[0-9a-z]{26}$/);
  if (response.status < 400) return;
  const body = json(response);
  if (path.startsWith('/api/v1/')) {
    expect(Object.keys(body).sort()).toEqual(['error', 'request_id']);
    expect(typeof body.error.code).toBe('string');
  } else {
    expect(typeof body.error).toBe('string');
  }
}

/**
 * Property-based fuzzing of the knowledge-base bodies and query strings
 * (issue 11 item 6; D4, D17, D32) over real HTTP: malformed, hostile or
 * half-valid bodies get a 4xx in the right shape; a refused create makes
 * no article and a refused update records no version.
 */
/** Each property makes up to a hundred requests: more than jest's 30 s on a loaded 2-core machine. */
const PROPERTY_TIMEOUT_MS = 120_000;

describe('Fuzzing knowledge-base articles', () => {
  const clock = new TestClock();
  let service: TestService;
  let key: string;

  beforeAll(async () => {
    service = await startTestService({ clock });
    key = service.adminKey;
  });
  afterAll(() => service.end());

  const raw = (body: FuzzBody) => ({
    ...(body.text !== undefined ? { rawBody: body.text } : {}),
    headers: (body.contentType ? { 'content-type': body.contentType } : {}) as Record<
      string,
      string
    >,
  });
  const articleCount = async () =>
    (await service.runtime.dependencies.kbArticles.list(service.orgId, {})).length;
  const validBodies = () => [
    { title: 'Fuzzed', content: '# Heading\n\nText.', tags: ['a', 'b'], status: 'published' },
    { title: 'Draft', content: '', status: 'draft' },
    { title: 'Plain', content: 'x'.repeat(1_000) },
  ];

  it(
    'answers every create body well, and makes an article only when it says 201',
    async () => {
      const paths = fc.constantFrom('/api/v1/kb', '/api/kb');
      await fc.assert(
        fc.asyncProperty(paths, fuzzBody(validBodies()), async (path, body) => {
          clock.advance(REFILL_ALL_BUCKETS_MS);
          const before = await articleCount();
          const response = await api(service.url, path, { method: 'POST', key, ...raw(body) });

          expectWellFormed(path, response);
          expect(await articleCount()).toBe(before + (response.status === 201 ? 1 : 0));
        }),
        { numRuns: 80 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'answers every update body well, and records a version only when it says 200',
    async () => {
      const target = json(
        await api(service.url, '/api/v1/kb', {
          method: 'POST',
          key,
          body: { title: 'Target', content: 'Original' },
        }),
      ).id;
      const paths = fc.constantFrom(`/api/v1/kb/${target}`, `/api/kb/${target}`);
      await fc.assert(
        fc.asyncProperty(paths, fuzzBody(validBodies()), async (path, body) => {
          clock.advance(REFILL_ALL_BUCKETS_MS);
          const before = await service.runtime.dependencies.kbArticles.get(service.orgId, target);
          const response = await api(service.url, path, { method: 'PUT', key, ...raw(body) });

          expectWellFormed(path, response);
          const after = await service.runtime.dependencies.kbArticles.get(service.orgId, target);
          if (response.status === 200) expect(after?.version).toBe((before?.version ?? 0) + 1);
          else expect(after).toEqual(before);
        }),
        { numRuns: 80 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'answers any list query string and version number well',
    async () => {
      const target = json(
        await api(service.url, '/api/v1/kb', {
          method: 'POST',
          key,
          body: { title: 'T', content: 'c' },
        }),
      ).id;
      const queryValue = fc.oneof(
        fc.string({ maxLength: 12 }),
        fc.integer({ min: -5, max: 500 }).map(String),
        fc.constantFrom('draft', 'published', '', '1e3', '0x10'),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('status', 'limit', 'offset', 'tag'),
          queryValue,
          // Not '', '.' or '..': those are other paths (the list, the article) once the URL is resolved.
          fc
            .oneof(fc.string({ maxLength: 12 }), fc.integer({ min: -3, max: 5 }).map(String))
            .filter((value) => !['', '.', '..'].includes(value)),
          async (name, value, version) => {
            clock.advance(REFILL_ALL_BUCKETS_MS);
            const list = `/api/v1/kb?${name}=${encodeURIComponent(value)}`;
            expectWellFormed(list, await api(service.url, list, { key }));
            const one = `/api/v1/kb/${target}/versions/${encodeURIComponent(version)}`;
            const response = await api(service.url, one, { key });
            expectWellFormed(one, response);
            if (response.status === 200) expect(json(response).version).toBe(1);
          },
        ),
        { numRuns: 50 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );
});
