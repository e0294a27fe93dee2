import fc from 'fast-check';
import { ConfluenceEmulator } from '../support/confluence-emulator';
import { connectorSteps } from '../support/connector-sign-in';
import { createDataSource } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import type { WebSession } from '../support/web-session';

/**
 * Property-based fuzzing of the connector sign-in's inputs over real HTTP
 * (issue 12, D26, P146, P157): the new routes take no body, so the fuzzed
 * input is the callback's query (what anyone can send to a public URL) and
 * the path ids. Never a 5xx; the callback answers its HTML page or a flat
 * error (D5: outside /api/v1); nothing ever connects a source without the
 * provider's code for its own pending sign-in, whether or not the callback
 * brings the starting browser's flow cookie (P215).
 */
describe('Fuzzing the connector sign-in (issue 12)', () => {
  const clock = new TestClock();
  let emulator: ConfluenceEmulator;
  let service: TestService;
  let sourceId: string;
  let state: string;
  /** The browser that started the sign-in: its cookies (the flow's among them) and CSRF token. */
  let starter: WebSession;
  const { start } = connectorSteps(() => service, []);

  beforeAll(async () => {
    emulator = await new ConfluenceEmulator(clock).start();
    service = await startTestService({
      clock,
      env: {
        SVC_ALLOW_PRIVATE_URLS: 'true',
        SVC_CONFLUENCE_CLIENT_ID: emulator.clientId,
        SVC_CONFLUENCE_CLIENT_SECRET: emulator.clientSecret,
        SVC_ATLASSIAN_AUTH_URL: emulator.origin,
        SVC_ATLASSIAN_API_URL: emulator.origin,
      },
    });
    const source = await createDataSource(service, service.adminKey, {
      type: 'confluence',
      name: 'Fuzzed',
      config: { base_url: 'https://acme.atlassian.net', space_keys: ['ENG'] },
    });
    sourceId = source.id;
    const started = await start(sourceId);
    starter = started.browser;
    state = new URL(started.location ?? '').searchParams.get('state') ?? '';
  });
  afterAll(async () => {
    await service.end();
    await emulator.close();
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const text = fc.oneof(
    fc.string({ maxLength: 300 }),
    fc.string({ unit: 'binary', maxLength: 100 }),
    fc.constantFrom('', '%00', '../../', '<script>alert(1)</script>', 'null', '[]', '{}'),
  );

  it('answers any callback query well and never connects without a real code', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            // A real state with a forged code, an altered state, or anything at all.
            state: fc.oneof(
              fc.constant(state),
              text.map((suffix) => `${state}${suffix}`),
              text,
            ),
            code: text,
            error: text,
            extra: text,
          },
          { requiredKeys: [] },
        ),
        fc.boolean(),
        async (query, fromStarter) => {
          const params = new URLSearchParams();
          for (const [name, value] of Object.entries(query)) params.append(name, value);
          const cookie = fromStarter ? starter.jar.header('/api/oauth/callback') : undefined;
          const response = await api(service.url, `/api/oauth/callback?${params}`, {
            headers: cookie ? { cookie } : {},
          });

          expect(response.status).toBeLessThan(500);
          if (response.headers.get('content-type')?.startsWith('text/html')) {
            expect(response.text).not.toContain('<script>');
          } else {
            // D5: a path outside /api/v1 answers the flat shape.
            expect(json(response)).toHaveProperty('error');
          }
          const source = json(
            await api(service.url, `/api/v1/data-sources/${sourceId}`, { key: service.adminKey }),
          );
          expect(source.connection_status).toBe('Disconnected');
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);

  it('answers any id on the start and disconnect paths with a 4xx in the nested shape', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          text,
          fc.constantFrom('ds_00000000000000000000000000', 'agt_x', sourceId.toUpperCase()),
        ),
        fc.constantFrom('oauth/start', 'connection'),
        async (id, tail) => {
          // As the web application sends them (P216: the start needs the CSRF token too).
          const response = await starter.request(
            `/api/v1/data-sources/${encodeURIComponent(id)}/${tail}`,
            {
              method: tail === 'connection' ? 'DELETE' : 'GET',
              headers: { 'x-csrf-token': starter.csrfToken ?? '' },
              redirect: 'manual',
            },
          );
          expect(response.status).toBeGreaterThanOrEqual(400);
          expect(response.status).toBeLessThan(500);
          expect(Object.keys(json(response)).sort()).toEqual(['error', 'request_id']);
        },
      ),
      { numRuns: 30 },
    );
  }, 120_000);
});
