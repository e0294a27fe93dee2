/**
 * Webhook delivery through the local runtime: the outbox sweep and the
 * deliveries consumer (lib/local/background-workers.ts, the same use case and
 * dispatcher handler as the cloud's Lambdas) posting to a loopback receiver.
 * Imports the runtime, so `run.ts` loads it only after setting the environment.
 */
import { Worker } from 'node:worker_threads';
import type { Dependencies } from '../../layers/core/ports/dependencies.port';
import { createAgent, updateAgent } from '../../layers/core/use-cases/agents/agent-use-cases';
import { createApiKey } from '../../layers/core/use-cases/api-keys/api-key-use-cases';
import { secretContext } from '../../layers/core/use-cases/webhooks/signed-request';
import { createWebhook } from '../../layers/core/use-cases/webhooks/webhook-management';
import { parseLocalConfig } from '../../lib/local/local-config';
import { type LocalRuntime, startLocalRuntime } from '../../lib/local/runtime';
import { verifyDelivery } from '../../lib/local/webhook-verification';
import { type LatencySummary, summarize } from './stats';

export interface WebhookBenchSettings {
  /** Backlog phase: agents created, then each updated once, before the workers start (2 events each). */
  readonly backlogAgents: number;
  /** Producers running the use cases side by side while the backlog is built. */
  readonly producers: number;
  /** Paced phase: events produced at `pacedRatePerSecond` while the workers run, per interval. */
  readonly pacedEvents: number;
  readonly pacedRatePerSecond: number;
  /** Worker intervals to run the paced phase at (`SVC_WORKER_INTERVAL_MS`; the default is 200). */
  readonly workerIntervalsMs: readonly number[];
  /** The backlog phase's worker interval. */
  readonly backlogIntervalMs: number;
  /**
   * The whole measurement's time bound. The backlog waits for its deliveries
   * only as long as leaves the paced phases their time; events not arrived
   * by then count as missing (and the bench fails).
   */
  readonly budgetMs: number;
  /** How long a paced phase waits for deliveries after its last event. */
  readonly pacedTailMs: number;
}

/** Exactly-once bookkeeping of one phase. */
export interface ArrivalCheck {
  readonly produced: number;
  readonly received: number;
  /** Produced changes that never arrived. */
  readonly missing: number;
  /** Deliveries of an event id already received. */
  readonly duplicates: number;
  /** Deliveries of no produced change. */
  readonly unexpected: number;
  /** Deliveries whose X-Svc-Signature and webhook-signature did not both verify. */
  readonly badSignatures: number;
}

export interface BacklogResult {
  readonly check: ArrivalCheck;
  readonly intervalMs: number;
  /** DynamoDB calls (tables and local queue) from starting the workers to the end of the drain, per delivery. */
  readonly dynamoDbCallsPerDelivery: number;
  /** Producing the backlog through the use cases (workers stopped). */
  readonly produceMs: number;
  /** From starting the workers to the last delivery received. */
  readonly drainMs: number;
  readonly deliveriesPerSecond: number;
}

export interface PacedResult {
  readonly check: ArrivalCheck;
  readonly intervalMs: number;
  readonly ratePerSecond: number;
  /** Commit (the event's `timestamp`) to receipt at the receiver. */
  readonly lag: LatencySummary;
  readonly elapsedMs: number;
}

export interface WebhookBenchResult {
  readonly backlog: BacklogResult;
  readonly paced: readonly PacedResult[];
  /** What the service recorded: deliveries by status, over the whole run. */
  readonly recorded: Readonly<Record<string, number>>;
  readonly setupMs: number;
  /** Mean time to open the webhook's sealed secret (Encryption SDK), which every attempt does. */
  readonly secretOpenMs: number;
}

interface Receipt {
  readonly atMs: number;
  readonly body: string;
  readonly headers: Record<string, string>;
}

/**
 * The receiver, run in a worker thread so that it has its own event loop (as
 * a subscriber's server would) and stamps each receipt when the body has
 * arrived, not when the busy runtime's loop gets round to it. Plain
 * JavaScript: it needs no TypeScript hooks.
 */
const RECEIVER_SOURCE = `
const { createServer } = require('node:http');
const { parentPort } = require('node:worker_threads');
const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const atMs = Date.now();
    response.writeHead(200).end();
    const headers = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === 'string') headers[name] = value;
    }
    parentPort.postMessage({ kind: 'receipt', receipt: { atMs, body: Buffer.concat(chunks).toString('utf8'), headers } });
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ kind: 'listening', port: server.address().port }));
parentPort.on('message', () => server.close(() => parentPort.close()));
`;

type ReceiverMessage =
  | { readonly kind: 'listening'; readonly port: number }
  | { readonly kind: 'receipt'; readonly receipt: Receipt };

/** A loopback receiver that answers 200 at once and keeps what it got for checking afterwards. */
class Receiver {
  readonly receipts: Receipt[] = [];
  private readonly worker = new Worker(RECEIVER_SOURCE, { eval: true });
  private listeners: Array<() => void> = [];

  start(): Promise<string> {
    return new Promise((resolve, reject) => {
      this.worker.once('error', reject);
      this.worker.on('message', (message: ReceiverMessage) => {
        if (message.kind === 'listening') {
          resolve(`http://127.0.0.1:${message.port}/webhook`);
          return;
        }
        this.receipts.push(message.receipt);
        for (const listener of this.listeners) listener();
      });
    });
  }

  /** Resolves when `count` receipts have arrived since `from`, or after `timeoutMs`. */
  waitFor(from: number, count: number, timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.listeners = this.listeners.filter((listener) => listener !== check);
        resolve();
      };
      const check = () => {
        if (this.receipts.length - from >= count) done();
      };
      const timer = setTimeout(done, timeoutMs);
      this.listeners.push(check);
      check();
    });
  }

  async end(): Promise<void> {
    const exited = new Promise((resolve) => this.worker.once('exit', resolve));
    this.worker.postMessage('close');
    await Promise.race([exited, sleep(2_000)]);
    await this.worker.terminate();
  }
}

interface AgentEventEnvelope {
  readonly id: string;
  readonly type: string;
  readonly timestamp: string;
  readonly data?: { id?: unknown; agent?: { id?: unknown; name?: unknown } };
}

/** The change a delivery reports: `agent.created:<id>` or `agent.updated:<id>:<name after>`. */
function changeKey(envelope: AgentEventEnvelope): string {
  if (envelope.type === 'agent.created') return `agent.created:${String(envelope.data?.id)}`;
  const agent = envelope.data?.agent;
  return `${String(envelope.type)}:${String(agent?.id)}:${String(agent?.name)}`;
}

function checkArrivals(
  expected: ReadonlySet<string>,
  receipts: readonly Receipt[],
  secret: string,
  lags: number[],
): ArrivalCheck {
  const seenEvents = new Set<string>();
  const seenChanges = new Set<string>();
  let duplicates = 0;
  let unexpected = 0;
  let badSignatures = 0;
  for (const receipt of receipts) {
    if (!verifyDelivery(receipt.body, receipt.headers, secret, new Date(receipt.atMs)).ok) {
      badSignatures += 1;
    }
    const envelope = JSON.parse(receipt.body) as AgentEventEnvelope;
    if (seenEvents.has(envelope.id)) {
      duplicates += 1;
      continue;
    }
    seenEvents.add(envelope.id);
    const key = changeKey(envelope);
    if (!expected.has(key) || seenChanges.has(key)) {
      unexpected += 1;
      continue;
    }
    seenChanges.add(key);
    lags.push(receipt.atMs - Date.parse(envelope.timestamp));
  }
  return {
    produced: expected.size,
    received: receipts.length,
    missing: expected.size - seenChanges.size,
    duplicates,
    unexpected,
    badSignatures,
  };
}

/** Runs `count` tasks, `concurrency` at a time. */
async function inParallel(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next;
      next += 1;
      await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** A fresh local runtime in memory on free ports, allowed to deliver to loopback, with one webhook to `url`. */
async function startPhaseRuntime(url: string, workerIntervalMs: number) {
  const runtime: LocalRuntime = await startLocalRuntime(
    parseLocalConfig({
      HOST: '127.0.0.1',
      PORT: '0',
      SVC_DYNAMODB_PORT: '0',
      SVC_IN_MEMORY: 'true',
      SVC_ALLOW_PRIVATE_URLS: 'true',
      SVC_WORKER_INTERVAL_MS: String(workerIntervalMs),
    }),
  );
  try {
    const orgId = runtime.bootstrap.organization.id;
    // P217: owned by an Admin key, so every agent's events are delivered.
    const key = await createApiKey(runtime.dependencies, {
      orgId,
      name: 'bench',
      scopes: ['Admin'],
      environment: 'test',
    });
    const webhook = await createWebhook(
      runtime.dependencies,
      orgId,
      { url, events: ['agent.created', 'agent.updated'], description: 'npm run bench' },
      { type: 'api_key', id: key.record.id },
    );
    return { runtime, orgId, webhook };
  } catch (error) {
    await runtime.end();
    throw error;
  }
}

/**
 * Each phase starts the real local runtime afresh, in memory
 * (SVC_ALLOW_PRIVATE_URLS=true), with one webhook for agent.created and
 * agent.updated pointing at one loopback receiver, and lets the background
 * workers' own timer run (started once per runtime, as `npm start` does):
 * the backlog phase (throughput) with the timer started only once the
 * backlog is committed, then a paced phase (lag) per worker interval.
 */
export async function measureWebhookDelivery(
  settings: WebhookBenchSettings,
  onProgress: (line: string) => void,
): Promise<WebhookBenchResult> {
  const started = performance.now();
  const receiver = new Receiver();
  try {
    const url = await receiver.start();
    const recorded: Record<string, number> = {};
    const addRecorded = (counts: Record<string, number>) => {
      for (const [status, value] of Object.entries(counts)) {
        recorded[status] = (recorded[status] ?? 0) + value;
      }
    };

    const setupStarted = performance.now();
    const first = await startPhaseRuntime(url, 0);
    const setupMs = performance.now() - setupStarted;
    let backlog: BacklogResult;
    let openMs: number;
    try {
      const pacedMs =
        settings.workerIntervalsMs.length *
        ((settings.pacedEvents / settings.pacedRatePerSecond) * 1000 +
          settings.pacedTailMs +
          setupMs);
      backlog = await backlogPhase(
        first.runtime,
        receiver,
        first.webhook.secret,
        { ...settings, deadline: started + settings.budgetMs - pacedMs },
        onProgress,
      );
      addRecorded(
        await recordedStatuses(first.runtime.dependencies, first.orgId, first.webhook.id),
      );
      openMs = await secretOpenMs(first.runtime.dependencies, first.orgId);
    } finally {
      await first.runtime.end();
    }

    const paced: PacedResult[] = [];
    for (const intervalMs of settings.workerIntervalsMs) {
      const phase = await startPhaseRuntime(url, intervalMs);
      try {
        paced.push(
          await pacedPhase(
            phase.runtime,
            receiver,
            phase.webhook.secret,
            settings,
            intervalMs,
            onProgress,
          ),
        );
        addRecorded(
          await recordedStatuses(phase.runtime.dependencies, phase.orgId, phase.webhook.id),
        );
      } finally {
        await phase.runtime.end();
      }
    }
    return { backlog, paced, recorded, setupMs, secretOpenMs: openMs };
  } finally {
    await receiver.end();
  }
}

async function backlogPhase(
  runtime: LocalRuntime,
  receiver: Receiver,
  secret: string,
  settings: WebhookBenchSettings & { readonly deadline: number },
  onProgress: (line: string) => void,
): Promise<BacklogResult> {
  const deps = runtime.dependencies;
  const calls = { count: 0 };
  runtime.client.middlewareStack.add(
    (next) => (args) => {
      calls.count += 1;
      return next(args);
    },
    { step: 'initialize', name: 'benchWebhookDynamoDbCallCounter' },
  );
  const orgId = runtime.bootstrap.organization.id;
  const expected = new Set<string>();
  const produceStarted = performance.now();
  await inParallel(settings.backlogAgents, settings.producers, async (index) => {
    const agent = await createAgent(deps, orgId, { name: `Backlog ${index}`, data_source_ids: [] });
    expected.add(`agent.created:${agent.id}`);
    const name = `Backlog ${index} renamed`;
    await updateAgent(deps, orgId, agent.id, { name });
    expected.add(`agent.updated:${agent.id}:${name}`);
  });
  const produceMs = performance.now() - produceStarted;
  onProgress(`backlog: ${expected.size} events committed in ${(produceMs / 1000).toFixed(1)} s`);

  const from = receiver.receipts.length;
  const callsBefore = calls.count;
  const started = Date.now();
  runtime.workers.start(settings.backlogIntervalMs);
  await receiver.waitFor(from, expected.size, Math.max(0, settings.deadline - performance.now()));
  const callsDuring = calls.count - callsBefore;
  // Whatever else arrives (a duplicate) within a few more rounds is counted too.
  await sleep(settings.backlogIntervalMs * 5);
  await runtime.workers.stop();
  const receipts = receiver.receipts.slice(from);
  const check = checkArrivals(expected, receipts, secret, []);
  const last = receipts.reduce((latest, receipt) => Math.max(latest, receipt.atMs), started);
  const drainMs = last - started;
  const result = {
    check,
    intervalMs: settings.backlogIntervalMs,
    dynamoDbCallsPerDelivery: receipts.length > 0 ? callsDuring / receipts.length : 0,
    produceMs,
    drainMs,
    deliveriesPerSecond: drainMs > 0 ? (check.produced - check.missing) / (drainMs / 1000) : 0,
  };
  onProgress(
    `backlog: ${check.received} deliveries in ${(drainMs / 1000).toFixed(2)} s (${Math.round(result.deliveriesPerSecond)}/s); missing ${check.missing}, duplicates ${check.duplicates}`,
  );
  return result;
}

async function pacedPhase(
  runtime: LocalRuntime,
  receiver: Receiver,
  secret: string,
  settings: WebhookBenchSettings,
  intervalMs: number,
  onProgress: (line: string) => void,
): Promise<PacedResult> {
  const deps = runtime.dependencies;
  const orgId = runtime.bootstrap.organization.id;
  const expected = new Set<string>();
  const from = receiver.receipts.length;
  // The runtime's workers already run on their own timer at `intervalMs`.
  const started = performance.now();
  const gapMs = 1000 / settings.pacedRatePerSecond;
  let current: string | null = null;
  for (let index = 0; index < settings.pacedEvents; index += 1) {
    await sleep(started + index * gapMs - performance.now());
    if (current === null) {
      const agent = await createAgent(deps, orgId, { name: `Paced ${index}`, data_source_ids: [] });
      current = agent.id;
      expected.add(`agent.created:${agent.id}`);
    } else {
      const name = `Paced ${index}`;
      await updateAgent(deps, orgId, current, { name });
      expected.add(`agent.updated:${current}:${name}`);
      current = null;
    }
  }
  await receiver.waitFor(from, expected.size, settings.pacedTailMs);
  await sleep(intervalMs * 5);
  const elapsedMs = performance.now() - started;
  await runtime.workers.stop();
  const lags: number[] = [];
  const check = checkArrivals(expected, receiver.receipts.slice(from), secret, lags);
  const lag = summarize(lags);
  onProgress(
    `paced at ${settings.pacedRatePerSecond}/s, worker interval ${intervalMs} ms: lag p50 ${lag.p50Ms} ms, p95 ${lag.p95Ms} ms, max ${lag.maxMs} ms; missing ${check.missing}, duplicates ${check.duplicates}`,
  );
  return { check, intervalMs, ratePerSecond: settings.pacedRatePerSecond, lag, elapsedMs };
}

async function recordedStatuses(
  deps: Dependencies,
  orgId: string,
  webhookId: string,
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const status of ['delivered', 'pending', 'failed', 'cancelled'] as const) {
    const page = await deps.deliveries.list(orgId, webhookId, { status }, { limit: 1, offset: 0 });
    counts[status] = page.total;
  }
  return counts;
}

/** Opening a webhook secret sealed as the service seals them (D33's envelope encryption), 50 times. */
async function secretOpenMs(deps: Dependencies, orgId: string): Promise<number> {
  const context = secretContext(orgId, 'wh_bench');
  const sealed = await deps.secretSealer.seal(
    'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
    context,
  );
  const rounds = 50;
  const started = performance.now();
  for (let round = 0; round < rounds; round += 1) await deps.secretSealer.open(sealed, context);
  return (performance.now() - started) / rounds;
}

/** Every phase received every event exactly once, each correctly signed. */
export function exactlyOnce(result: WebhookBenchResult): boolean {
  return [result.backlog.check, ...result.paced.map((phase) => phase.check)].every(
    (check) =>
      check.missing === 0 &&
      check.duplicates === 0 &&
      check.unexpected === 0 &&
      check.badSignatures === 0,
  );
}
