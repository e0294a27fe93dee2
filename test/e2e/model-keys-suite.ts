// Must come first: sets the loggers' level before any function module builds its logger.
import '../support/log-everything';
import { CapturedOutput } from '../support/captured-output';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { helpCenterPages, type LoopbackSite, startLoopbackSite } from '../support/loopback-site';
import { type ModelProviders, startModelProviders } from '../support/model-providers';
import { indexWebsite } from '../support/sync';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

/**
 * D33 model keys over HTTP, against the real local runtime, and agents
 * answering with them through `POST /api/v1/query` and the streaming chat
 * route. No real provider is reachable here: the providers are a loopback
 * server (test/support/model-providers.ts) whose responses follow the
 * providers' documentation (OpenAI's Chat Completions and Models; Anthropic's
 * Messages streaming events, Models and error bodies) and are served from
 * the fixtures in test/fixtures/{openai,anthropic}.
 */
export const OPENAI_KEY = 'sk-proj-e2eOpenAiKey0000000000000000000000000001';
export const ANTHROPIC_KEY = 'sk-ant-api03-e2eAnthropicKey00000000000000000002';
export const CUSTOM_KEY = 'custom-e2e-key-0000000000000000000000000003';
export const SECRETS = [OPENAI_KEY, ANTHROPIC_KEY, CUSTOM_KEY];
export const QUESTION = 'How many days do I have to return a widget for a full refund?';

/**
 * Everything the process writes, scanned for keys at the end (D33: never
 * logged). The service's DEBUG lines are kept for the scan, not printed:
 * jest's own output stays readable.
 */
export const output = new CapturedOutput((text) => text.startsWith('{"level"'));
export const captured = output.seen;

/**
 * The setting the model-key suites share: one service pointed at loopback
 * OpenAI and Anthropic stand-ins, a help-center site indexed as a source,
 * request helpers, and every log line kept to be scanned for keys.
 */
export function modelKeysSuite() {
  const clock = new TestClock();
  let service: TestService;
  let site: LoopbackSite;
  let providers: ModelProviders;
  let sourceId: string;

  beforeAll(async () => {
    output.start();
    // In a jest worker the console is jest's buffered one, which reaches
    // stdout only through the parent process: the loggers' lines are taken
    // where they are written.
    for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      const original = console[level].bind(console);
      jest.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        captured.push(args.map(String).join(' '));
        original(...args);
      });
    }
    providers = await startModelProviders();
    [service, site] = await Promise.all([
      startTestService({
        env: {
          SVC_ALLOW_PRIVATE_URLS: 'true',
          SVC_MODEL_KEY_OPENAI_URL: providers.openaiUrl,
          SVC_MODEL_KEY_ANTHROPIC_URL: providers.anthropicUrl,
          // Everything the service logs, so the scan below sees the most there is.
          LOG_LEVEL: 'DEBUG',
        },
        clock,
      }),
      startLoopbackSite(helpCenterPages),
    ]);
    sourceId = (await indexWebsite(service, service.adminKey, site.url('/'))).source.id;
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    output.stop();
    await service.end();
    await site.close();
    await providers.close();
  });
  beforeEach(() => {
    clock.advance(REFILL_ALL_BUCKETS_MS);
    providers.mode = 'ok';
  });

  const register = (body: Record<string, unknown>, key = service.adminKey) =>
    api(service.url, '/api/v1/model-keys', { method: 'POST', key, body });
  const registered = async (body: Record<string, unknown>) => {
    const response = await register(body);
    expect(response.status).toBe(201);
    return json(response);
  };
  const ask = (body: Record<string, unknown>, path = '/api/v1/query') =>
    api(service.url, path, { method: 'POST', key: service.adminKey, body });

  /** Registered last in a suite: scans everything its service wrote for the keys (never logged). */
  function itNeverLogsAKey() {
    it('never writes a key to the logs (captured and scanned)', () => {
      const everything = captured.join('');
      expect(everything.length).toBeGreaterThan(0);
      for (const secret of SECRETS) expect(everything).not.toContain(secret);
      // Nor their distinctive middles (a masked echo such as sk-abc***wxyz would still show these).
      for (const secret of SECRETS) expect(everything).not.toContain(secret.slice(8, 30));
    });
  }

  return {
    itNeverLogsAKey,
    clock,
    register,
    registered,
    ask,
    service: () => service,
    site: () => site,
    providers: () => providers,
    sourceId: () => sourceId,
  };
}
