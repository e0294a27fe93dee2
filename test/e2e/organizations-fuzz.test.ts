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

const raw = (body: FuzzBody) => ({
  ...(body.text !== undefined ? { rawBody: body.text } : {}),
  headers: (body.contentType ? { 'content-type': body.contentType } : {}) as Record<string, string>,
});

/**
 * Property-based fuzzing of the new bodies (key creation, D11; the
 * organization's settings, D13, D15) over real HTTP: malformed, hostile or
 * half-valid bodies get a 4xx in the right shape, and a refused request
 * writes nothing (no partial write).
 */
describe('Fuzzing key management and the organization', () => {
  const clock = new TestClock();
  let service: TestService;
  let browser: WebSession;
  beforeAll(async () => {
    service = await startTestService({ clock });
    browser = await signedIn(service, await createTestUser(service, { role: 'admin' }));
  });
  afterAll(() => service.end());

  const keyCount = async () =>
    (await service.runtime.dependencies.apiKeys.listByOrganization(service.orgId)).length;

  it('answers every key body well, and makes a working key only when it says 201', async () => {
    const bodies = fuzzBody([
      { name: 'fuzzed key', scopes: ['Read', 'Execute'] },
      { name: 'k', scopes: ['Admin'], environment: 'test' },
    ]);
    const paths = fc.constantFrom('/api/v1/keys', '/api/keys');
    await fc.assert(
      fc.asyncProperty(paths, bodies, async (path, body) => {
        clock.advance(REFILL_ALL_BUCKETS_MS);
        const before = await keyCount();
        const response = await browser.request(path, { method: 'POST', ...raw(body) });

        expectWellFormed(path, response);
        expect(await keyCount()).toBe(before + (response.status === 201 ? 1 : 0));
        if (response.status === 201) {
          const used = await api(service.url, '/api/v1/interactions', { key: json(response).key });
          expect([200, 403]).toContain(used.status);
        }
      }),
      { numRuns: 80 },
    );
  });

  it('answers every organization body well, and changes it only when it says 200', async () => {
    const bodies = fuzzBody([
      { name: 'Fuzzed', settings: { ip_allowlist: ['127.0.0.0/8', '2001:db8::/32'] } },
      { name: 'Plain', plan: 'enterprise' },
      { settings: { ip_allowlist: ['127.0.0.1/32', '10.0.0.0/8'] } },
      { settings: { ip_allowlist: [] } },
    ]);
    const paths = fc.constantFrom(
      `/api/v1/organizations/${service.orgId}`,
      `/api/organizations/${service.orgId}`,
    );
    const stored = () => service.runtime.dependencies.organizations.get(service.orgId);
    await fc.assert(
      fc.asyncProperty(paths, bodies, async (path, body) => {
        clock.advance(REFILL_ALL_BUCKETS_MS);
        const before = await stored();
        const response = await browser.request(path, { method: 'PUT', ...raw(body) });

        expectWellFormed(path, response);
        const after = await stored();
        if (response.status !== 200) expect(after).toEqual(before);
        // The administrator is never shut out (P77), whatever was accepted.
        expect(after?.plan).toBe('enterprise');
        expect((await browser.request(path)).status).toBe(200);
      }),
      { numRuns: 80 },
    );
  });
});
