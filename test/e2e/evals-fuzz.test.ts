import fc from 'fast-check';
import { createAgent } from '../support/fixtures';
import { type FuzzBody, fuzzBody, fuzzId, fuzzQueryOf } from '../support/http-arbitraries';
import { type ApiResponse, api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

/** The invariants of every answer: never a 5xx, always the nested error shape (D5: v1 only). */
function expectWellFormed(response: ApiResponse): void {
  expect(response.status).toBeLessThan(500);
  expect(response.headers.get('x-request-id')).toMatch(/^req_[0-9a-z]{26}$/);
  if (response.status < 400) return;
  const body = json(response);
  expect(Object.keys(body).sort()).toEqual(['error', 'request_id']);
  expect(typeof body.error.code).toBe('string');
}

/** Each property makes up to a hundred requests: more than jest's 30 s on a loaded 2-core machine. */
const PROPERTY_TIMEOUT_MS = 120_000;

/**
 * Property-based fuzzing of `POST /api/v1/evals` and the evaluation reads
 * (issue 11 items 5 and 6; D4, D17, P139, P141) over real HTTP: malformed,
 * hostile or half-valid bodies get a 4xx in the nested shape, and a run is
 * stored (and queued) only when the answer is 202.
 */
describe('Fuzzing evaluations', () => {
  const clock = new TestClock();
  let service: TestService;
  let key: string;
  let agentId: string;

  beforeAll(async () => {
    service = await startTestService({ clock });
    key = service.adminKey;
    const kb = json(await api(service.url, '/api/v1/kb', { key })).data_source_id;
    agentId = (await createAgent(service, key, { name: 'Fuzzed', data_source_ids: [kb] })).id;
  });
  afterAll(() => service.end());

  const raw = (body: FuzzBody) => ({
    ...(body.text !== undefined ? { rawBody: body.text } : {}),
    headers: (body.contentType ? { 'content-type': body.contentType } : {}) as Record<
      string,
      string
    >,
  });
  const runCount = async () =>
    (await service.runtime.dependencies.evaluations.list(service.orgId, { limit: 1, offset: 0 }))
      .total;

  it(
    'answers every start body well, and stores a run only when it says 202',
    async () => {
      const validBodies = () => [
        {
          agent_id: agentId,
          name: 'Fuzz',
          questions: [
            {
              question: 'Warranty?',
              expected_sources: ['Warranty'],
              expected_answer: 'Two years.',
            },
            { question: 'Shipping?' },
          ],
        },
        {
          agent_id: agentId,
          from_interactions: { feedback: 'any', limit: 5, since: '2026-01-01' },
        },
        { agent_id: agentId, questions: [{ question: 'Returns?', expected_sources: null }] },
      ];
      await fc.assert(
        fc.asyncProperty(fuzzBody(validBodies()), async (body) => {
          clock.advance(REFILL_ALL_BUCKETS_MS);
          const before = await runCount();
          const response = await api(service.url, '/api/v1/evals', {
            method: 'POST',
            key,
            ...raw(body),
          });

          expectWellFormed(response);
          expect(await runCount()).toBe(before + (response.status === 202 ? 1 : 0));
        }),
        { numRuns: 80 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'answers every list and read query string well',
    async () => {
      clock.advance(REFILL_ALL_BUCKETS_MS);
      const started = json(
        await api(service.url, '/api/v1/evals', {
          method: 'POST',
          key,
          body: { agent_id: agentId, questions: [{ question: 'Anything?' }] },
        }),
      ).id;
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.constant('/api/v1/evals'),
            fuzzId([started]).map((id) => `/api/v1/evals/${encodeURIComponent(id)}`),
          ),
          fuzzQueryOf({
            limit: fc.integer({ min: -2, max: 300 }).map(String),
            offset: fc.integer({ min: -2, max: 5 }).map(String),
          }),
          async (path, query) => {
            clock.advance(REFILL_ALL_BUCKETS_MS);
            const response = await api(service.url, `${path}?${query}`, { key });
            expectWellFormed(response);
          },
        ),
        { numRuns: 60 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );
});
