import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { newId } from '../../layers/core/domain/ids';
import { PLAN_LIMITS } from '../../layers/core/domain/plans';
import type { AccessLogLine } from '../../lib/local/gateway';
import { createAgent } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { helpCenterPages, type LoopbackSite, startLoopbackSite } from '../support/loopback-site';
import { parseEventStream } from '../support/sse';
import { indexWebsite } from '../support/sync';
import { createTenant, type TestKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

const FREE = PLAN_LIMITS.free;
const QUESTION = 'How long is the return window for a widget?';

/** The first two chunks of OpenAI's documented stream (role, then some text), from our fixture. */
const OPENING_CHUNKS = readFileSync(
  join(__dirname, '..', 'fixtures', 'openai', 'chat-completion-stream.sse'),
  'utf8',
)
  .split(/(?<=\n\n)/)
  .slice(0, 2)
  .join('');

/**
 * An OpenAI-compatible endpoint that starts an answer and then, as a model
 * still thinking would, sends nothing more: it holds the stream open
 * (`stall`) or drops the connection (`break`). It reports when the service
 * closes a stream it holds, the sign the model call was given up.
 */
async function startStallingProvider() {
  const state = { mode: 'stall' as 'stall' | 'break' };
  const closed: Array<() => void> = [];
  let open = 0;
  const server = createServer((req, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'GET' && req.url?.endsWith('/models')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(readFileSync(join(__dirname, '..', 'fixtures', 'openai', 'models-list.json')));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(OPENING_CHUNKS);
      if (state.mode === 'break') {
        res.socket?.destroy();
        return;
      }
      open += 1;
      res.on('close', () => {
        open -= 1;
        for (const notify of closed.splice(0)) notify();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    state,
    openStreams: () => open,
    /** Resolves once no stream is held open any more. */
    allClosed: () =>
      open === 0 ? Promise.resolve() : new Promise<void>((resolve) => closed.push(resolve)),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The client's ways of leaving mid-answer, each resolving once it has left. */
type Leave = (
  url: string,
  key: string,
  body: unknown,
  whileOpen: () => Promise<void>,
) => Promise<void>;

/** `fetch` aborted with an AbortController once the first delta arrived. */
const fetchAbort: Leave = async (url, key, body, whileOpen) => {
  const controller = new AbortController();
  const response = await fetch(`${url}/api/v1/query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let seen = '';
  while (!seen.includes('event: delta')) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before a delta: ${seen}`);
    seen += decoder.decode(value, { stream: true });
  }
  await whileOpen();
  controller.abort();
  await reader.closed.catch(() => undefined);
};

/** A client that stops reading after the first delta, then drops its connection. */
const stopReadingThenHangUp: Leave = (url, key, body, whileOpen) =>
  new Promise<void>((resolve, reject) => {
    const request = httpRequest(`${url}/api/v1/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    });
    request.on('error', () => undefined);
    request.on('response', (response) => {
      let seen = '';
      response.on('data', (chunk: Buffer) => {
        seen += chunk.toString('utf8');
        if (!seen.includes('event: delta')) return;
        response.pause();
        whileOpen().then(() => {
          request.destroy();
          resolve();
        }, reject);
      });
      response.on('end', () => reject(new Error(`the stream ended before a delta: ${seen}`)));
    });
    request.end(JSON.stringify(body));
  });

/**
 * A streamed answer (`POST /api/v1/query`, `stream: true`) whose client goes
 * away mid-answer, or whose model provider breaks off: the organization's
 * concurrency slot is free as soon as the request has ended, the model call
 * is given up (the provider's stream closed, nothing left running), and no
 * interaction is recorded (docs/architecture.md: only a finished answer is).
 */
describe('A streamed answer cut off mid-answer', () => {
  const clock = new TestClock();
  let service: TestService;
  let site: LoopbackSite;
  let provider: Awaited<ReturnType<typeof startStallingProvider>>;
  let tenant: TestKey;
  let agentId: string;
  const accessLines: AccessLogLine[] = [];
  const lineWaiters: Array<() => void> = [];

  beforeAll(async () => {
    [site, provider] = await Promise.all([
      startLoopbackSite(helpCenterPages),
      startStallingProvider(),
    ]);
    service = await startTestService({
      env: { SVC_ALLOW_PRIVATE_URLS: 'true' },
      clock,
      onRequest: (line) => {
        accessLines.push(line);
        for (const notify of lineWaiters.splice(0)) notify();
      },
    });
    // The free plan: two concurrent requests, so one slot held by mistake shows at once.
    tenant = await createTenant(service, { plan: 'free', scopes: ['Admin'] });
    const sourceId = (await indexWebsite(service, tenant.key, site.url('/'))).source.id;
    clock.advance(REFILL_ALL_BUCKETS_MS);
    const modelKey = await api(service.url, '/api/v1/model-keys', {
      method: 'POST',
      key: tenant.key,
      body: {
        provider: 'custom',
        key: 'stalling-provider-key-000000000000',
        endpoint: provider.url,
      },
    });
    expect(modelKey.status).toBe(201);
    agentId = (
      await createAgent(service, tenant.key, {
        name: 'Slow model',
        data_source_ids: [sourceId],
        model: 'gpt-4o-mini',
        model_key_id: json(modelKey).id,
      })
    ).id;
  });
  afterAll(async () => {
    await service.end();
    await Promise.all([site.close(), provider.close()]);
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  /** Resolves with the access-log line of the next `POST /api/v1/query` to end. */
  async function nextQueryLine(from: number): Promise<AccessLogLine> {
    for (;;) {
      const line = accessLines.slice(from).find((entry) => entry.path === '/api/v1/query');
      if (line) return line;
      await new Promise<void>((resolve) => lineWaiters.push(resolve));
    }
  }

  /** Takes as many slots as the plan has, then gives back those it got: the number free. */
  async function freeSlots(): Promise<number> {
    const now = clock.now().getTime();
    const leases = service.runtime.dependencies.concurrencyLeases;
    const grants = [];
    for (let i = 0; i < FREE.concurrentRequests; i += 1) {
      grants.push(
        await leases.acquire(
          tenant.orgId,
          newId('request'),
          FREE.concurrentRequests,
          now,
          now + 60_000,
        ),
      );
    }
    for (const grant of grants) if (grant.granted) await leases.release(grant.lease);
    return grants.filter((grant) => grant.granted).length;
  }

  const interactionCount = async () =>
    json(await api(service.url, '/api/v1/interactions?limit=200', { key: tenant.key })).total;

  // The model call's silence watchdog gives up after 20 s: a stream left
  // running would close only then, past this test's 15 s.
  it.each([
    ['the client aborts its fetch', fetchAbort],
    ['the client stops reading and hangs up', stopReadingThenHangUp],
  ])(
    '%s: slot free, model call given up, nothing recorded',
    async (_how, leave) => {
      provider.state.mode = 'stall';
      const interactionsBefore = await interactionCount();
      const from = accessLines.length;

      let slotsWhileOpen: number | undefined;
      await leave(
        service.url,
        tenant.key,
        { agent_id: agentId, query: QUESTION, stream: true },
        async () => {
          slotsWhileOpen = await freeSlots();
        },
      );
      const line = await nextQueryLine(from);
      await provider.allClosed();

      // The open stream held one of the two slots (so the check below can see a leak).
      expect(slotsWhileOpen).toBe(FREE.concurrentRequests - 1);
      expect(line).toMatchObject({ status: 200, clientClosed: true });
      expect(await freeSlots()).toBe(FREE.concurrentRequests);
      expect(provider.openStreams()).toBe(0);
      expect(await interactionCount()).toBe(interactionsBefore);
    },
    15_000,
  );

  it('the provider breaks off: an error event ends the stream, the slot is free, nothing recorded', async () => {
    provider.state.mode = 'break';
    const interactionsBefore = await interactionCount();

    const response = await api(service.url, '/api/v1/query', {
      method: 'POST',
      key: tenant.key,
      body: { agent_id: agentId, query: QUESTION, stream: true },
    });

    const events = parseEventStream(response.text);
    expect(events[0]?.event).toBe('sources');
    expect(events.map((event) => event.event)).not.toContain('done');
    expect(events.at(-1)?.event).toBe('error');
    expect(events.at(-1)?.data.error.code).toBe('service_unavailable');
    expect(await freeSlots()).toBe(FREE.concurrentRequests);
    expect(await interactionCount()).toBe(interactionsBefore);
  });
});
