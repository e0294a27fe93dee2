import fc from 'fast-check';
import { type FuzzBody, fuzzBody } from '../support/http-arbitraries';
import { type ApiResponse, api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import { createTestUser, signedIn, type WebSession } from '../support/web-session';

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
 * Property-based fuzzing of the group bodies (issue 9 item 5) over real
 * HTTP with a signed-in administrator: malformed, hostile or half-valid
 * bodies get a 4xx in the right shape, and a refused request writes nothing
 * (no group made, the group unchanged).
 */
describe('Fuzzing groups', () => {
  const clock = new TestClock();
  let service: TestService;
  let browser: WebSession;
  let agentId: string;

  beforeAll(async () => {
    service = await startTestService({ clock });
    browser = await signedIn(service, await createTestUser(service, { role: 'admin' }));
    agentId = json(
      await api(service.url, '/api/v1/agents', {
        method: 'POST',
        key: service.adminKey,
        body: { name: 'Fuzz target', data_source_ids: [] },
      }),
    ).id;
  });
  afterAll(() => service.end());

  const raw = (body: FuzzBody) => ({
    ...(body.text !== undefined ? { rawBody: body.text } : {}),
    headers: (body.contentType ? { 'content-type': body.contentType } : {}) as Record<
      string,
      string
    >,
  });
  const groupCount = async () =>
    (await service.runtime.dependencies.groups.list(service.orgId, { limit: 1, offset: 0 })).total;
  const validBodies = () => [
    { name: 'Fuzzed', role: 'train', agent_ids: [agentId] },
    { name: 'Fuzzed too', description: 'd', role: 'admin', agent_ids: null },
    { name: 'Legacy', agentIds: [agentId] },
  ];

  it('answers every create body well, and makes a group only when it says 201', async () => {
    const paths = fc.constantFrom('/api/v1/groups', '/api/groups');
    await fc.assert(
      fc.asyncProperty(paths, fuzzBody(validBodies()), async (path, body) => {
        clock.advance(REFILL_ALL_BUCKETS_MS);
        const before = await groupCount();
        const response = await browser.request(path, { method: 'POST', ...raw(body) });

        expectWellFormed(path, response);
        expect(await groupCount()).toBe(before + (response.status === 201 ? 1 : 0));
      }),
      { numRuns: 100 },
    );
  });

  it('answers every update body well, and changes the group only when it says 200', async () => {
    const target = json(
      await browser.request('/api/v1/groups', { method: 'POST', body: { name: 'Target' } }),
    ).id;
    const paths = fc.constantFrom(`/api/v1/groups/${target}`, `/api/groups/${target}`);
    await fc.assert(
      fc.asyncProperty(paths, fuzzBody(validBodies()), async (path, body) => {
        clock.advance(REFILL_ALL_BUCKETS_MS);
        const before = await service.runtime.dependencies.groups.get(service.orgId, target);
        const response = await browser.request(path, { method: 'PUT', ...raw(body) });

        expectWellFormed(path, response);
        const after = await service.runtime.dependencies.groups.get(service.orgId, target);
        if (response.status !== 200) expect(after).toEqual(before);
      }),
      { numRuns: 100 },
    );
  });

  it('answers any body sent to the membership routes well (they take none)', async () => {
    const group = json(
      await browser.request('/api/v1/groups', { method: 'POST', body: { name: 'Members' } }),
    ).id;
    const user = await createTestUser(service, { role: 'readonly' });
    const path = `/api/v1/groups/${group}/members/${user.id}`;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('PUT', 'DELETE'),
        fuzzBody([{ user_id: user.id }, { role: 'admin' }]),
        async (method, body) => {
          clock.advance(REFILL_ALL_BUCKETS_MS);
          const response = await browser.request(path, { method, ...raw(body) });

          expectWellFormed(path, response);
        },
      ),
      { numRuns: 60 },
    );
  });
});
