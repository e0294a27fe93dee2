import fc from 'fast-check';
import { type FuzzBody, fuzzBody } from '../support/http-arbitraries';
import { type ApiResponse, api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { TestClock } from '../support/test-clock';
import { createTestUser, signedIn, type TestUser, type WebSession } from '../support/web-session';

const HOUR_MS = 3600 * 1000;

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
 * Property-based fuzzing of the sign-in and user bodies over real HTTP:
 * malformed, hostile or half-valid bodies get a 4xx in the right shape,
 * and a refused request leaves no user or session behind.
 */
describe('Fuzzing sign-in and users', () => {
  const clock = new TestClock();
  let service: TestService;
  let admin: TestUser;
  let browser: WebSession;
  beforeAll(async () => {
    service = await startTestService({ clock });
    admin = await createTestUser(service, { role: 'admin' });
    browser = await signedIn(service, admin);
  });
  afterAll(() => service.end());

  const raw = (body: FuzzBody) => ({
    ...(body.text !== undefined ? { rawBody: body.text } : {}),
    headers: (body.contentType ? { 'content-type': body.contentType } : {}) as Record<
      string,
      string
    >,
  });
  const userCount = async () =>
    (await service.runtime.dependencies.users.list(service.orgId, { limit: 1, offset: 0 })).total;

  it('answers every sign-in and invitation body well, and sets a cookie only on success', async () => {
    const bodies = fuzzBody([
      { email: admin.email, password: 'a wrong password' },
      { email: 'someone@example.com', password: 'whatever it is', org_id: service.orgId },
      { token: `svcinv_${'A'.repeat(43)}`, password: 'a long enough password' },
    ]);
    const paths = fc.constantFrom(
      '/api/v1/auth/login',
      '/api/auth/login',
      '/api/v1/auth/invitations/accept',
      '/api/auth/invitations/accept',
    );
    await fc.assert(
      fc.asyncProperty(paths, bodies, async (path, body) => {
        // Fresh throttle buckets: the schemas, not P62, are under test.
        clock.advance(HOUR_MS);
        const response = await api(service.url, path, { method: 'POST', ...raw(body) });

        expectWellFormed(path, response);
        expect(response.status).not.toBe(200);
        expect(response.headers.getSetCookie().join()).not.toMatch(/svc_session=[^;]/);
      }),
      { numRuns: 80 },
    );
  });

  it('answers every user body well, and creates a user only when it says 201', async () => {
    const bodies = fuzzBody([
      { email: 'fuzz@example.com', name: 'Fuzz', role: 'train' },
      { email: 'Fuzz.Two@example.com', name: 'F', role: 'admin' },
    ]);
    const paths = fc.constantFrom('/api/v1/users', '/api/user-management/users');
    await fc.assert(
      fc.asyncProperty(paths, bodies, async (path, body) => {
        clock.advance(HOUR_MS);
        const before = await userCount();
        const response = await browser.request(path, { method: 'POST', ...raw(body) });

        expectWellFormed(path, response);
        expect(await userCount()).toBe(before + (response.status === 201 ? 1 : 0));
      }),
      { numRuns: 80 },
    );
  });

  it('answers every update body well, and changes the user only when it says 200', async () => {
    const target = await createTestUser(service, { role: 'readonly' });
    const bodies = fuzzBody([
      { name: 'Renamed', role: 'configure' },
      { email: 'renamed@example.com', status: 'deactivated' },
      { status: 'active' },
    ]);
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        clock.advance(HOUR_MS);
        const before = await service.runtime.dependencies.users.get(service.orgId, target.id);
        const path = `/api/v1/users/${target.id}`;
        const response = await browser.request(path, { method: 'PUT', ...raw(body) });

        expectWellFormed(path, response);
        const after = await service.runtime.dependencies.users.get(service.orgId, target.id);
        if (response.status !== 200) expect(after).toEqual(before);
      }),
      { numRuns: 80 },
    );
  });
});
