/**
 * `npm run bench`: the local runtime's request overhead and each function's
 * bundle size, written to the `foundation` section of docs/benchmarks.md and
 * printed; then webhook delivery through the local dispatcher, written to the
 * `webhooks` section; semantic search, ingestion and streaming; and each
 * function's init time in fresh processes (`cold-start`). A measurement, not a test: nothing here passes or fails
 * on time; it fails only when a request is not a correct 200 or an event does
 * not arrive exactly once.
 *
 * `npm run bench -- --quick`: a short run that prints and writes nothing.
 * `npm run bench -- --only webhooks` (or `foundation`, `semantic-search`, `embedded-index`
 * (with `--sizes 100000,1000000` to choose its sizes),
 * `ingestion-and-streaming`, `adversarial-ingestion`, `parsing-memory`, `cold-start`, `mixed-load`,
 * `console`): one section only.
 */
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { PLAN_LIMITS } from '../../layers/core/domain/plans';
import { SCOPE_RATE_LIMITS } from '../../layers/core/domain/scopes';
import { benchCommand, writeSection } from './benchmarks-doc';
import type { FoundationSettings } from './foundation-report';
import type { WebhookBenchSettings } from './webhook-delivery';

const ROOT = resolve(__dirname, '..', '..');
const DOCUMENT = join(ROOT, 'docs', 'benchmarks.md');

/**
 * Per level at most 3,300 requests or 25 s, six levels: never more than
 * about 2.5 minutes (about 70 s on a 2-core machine).
 * A key serves 200 requests (the Read burst is 250) and an organization
 * 4 keys, 800 requests in the whole run (its plan allows 1,000 a minute).
 */
const FULL: FoundationSettings = {
  concurrencyLevels: [1, 8, 32],
  plan: {
    warmupRequests: 300,
    warmupMaxMs: 5_000,
    requests: 3_000,
    maxMs: 20_000,
    requestsPerKey: 200,
  },
  keysPerOrganization: 4,
};

const QUICK: FoundationSettings = {
  ...FULL,
  plan: { ...FULL.plan, warmupRequests: 50, requests: 300, maxMs: 5_000 },
};

/**
 * The webhooks section: 400 events as a backlog (drained in about 15 s on a
 * quiet 2-core machine), then 50 at 5 a second per worker interval (about
 * 10 s each), all within 55 s: the backlog waits for its deliveries only as
 * long as leaves the paced phases their time.
 */
const WEBHOOKS_FULL: WebhookBenchSettings = {
  backlogAgents: 200,
  producers: 8,
  backlogIntervalMs: 20,
  pacedEvents: 50,
  pacedRatePerSecond: 5,
  workerIntervalsMs: [20, 200],
  budgetMs: 55_000,
  pacedTailMs: 5_000,
};

const WEBHOOKS_QUICK: WebhookBenchSettings = {
  ...WEBHOOKS_FULL,
  backlogAgents: 50,
  pacedEvents: 15,
  workerIntervalsMs: [20],
  budgetMs: 25_000,
};

const SECTIONS = [
  'foundation',
  'webhooks',
  'semantic-search',
  'embedded-index',
  'ingestion-and-streaming',
  'adversarial-ingestion',
  'parsing-memory',
  'cold-start',
  'mixed-load',
  'console',
] as const;

/** `--only <section>`: run one section; by default all of them. */
function selectedSections(argv: readonly string[]): readonly string[] {
  const at = argv.indexOf('--only');
  if (at < 0) return SECTIONS;
  const name = argv[at + 1] ?? '';
  if (!(SECTIONS as readonly string[]).includes(name)) {
    throw new Error(`--only takes one of ${SECTIONS.join(', ')}`);
  }
  return [name];
}

/** The bench must never be throttled: every request has to be a real 200. */
function assertWithinLimits(settings: FoundationSettings): void {
  const { requestsPerKey } = settings.plan;
  if (requestsPerKey >= SCOPE_RATE_LIMITS.Read.burst) {
    throw new Error(
      `requestsPerKey must stay below the Read burst (${SCOPE_RATE_LIMITS.Read.burst})`,
    );
  }
  if (settings.keysPerOrganization * requestsPerKey >= PLAN_LIMITS.enterprise.requestsPerMinute) {
    throw new Error('An organization would exceed the enterprise plan within one minute');
  }
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const sections = selectedSections(process.argv);
  // Before any handler module builds its logger or SDK client (as bin/local.ts does).
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  if (sections.includes('foundation')) await foundation(quick);
  if (sections.includes('webhooks')) await webhooks(quick, sections.length === 1);
  if (sections.includes('semantic-search')) {
    const { runSemanticSearchBench } = await import('./semantic-search');
    await runSemanticSearchBench({ quick, only: sections.length === 1, document: DOCUMENT });
  }
  if (sections.includes('embedded-index')) {
    const { runEmbeddedIndexBench } = await import('./embedded-index');
    const at = process.argv.indexOf('--sizes');
    const sizes = at < 0 ? undefined : (process.argv[at + 1] ?? '').split(',').map(Number);
    await runEmbeddedIndexBench({ quick, only: sections.length === 1, document: DOCUMENT, sizes });
  }
  if (sections.includes('ingestion-and-streaming')) {
    const { runIngestionStreamingBench } = await import('./ingestion-and-streaming');
    await runIngestionStreamingBench({ quick, only: sections.length === 1, document: DOCUMENT });
  }
  if (sections.includes('adversarial-ingestion')) {
    const { runAdversarialIngestionBench } = await import('./adversarial-ingestion');
    await runAdversarialIngestionBench({ quick, only: sections.length === 1, document: DOCUMENT });
  }
  if (sections.includes('parsing-memory')) {
    const { runParsingMemoryBench } = await import('./parsing-memory');
    await runParsingMemoryBench({ quick, only: sections.length === 1, document: DOCUMENT });
  }
  if (sections.includes('cold-start')) {
    const { runColdStartBench } = await import('./cold-start-section');
    await runColdStartBench({ quick, only: sections.length === 1, root: ROOT, document: DOCUMENT });
  }
  if (sections.includes('mixed-load')) {
    const { runMixedLoadBench } = await import('./mixed-load');
    await runMixedLoadBench({ quick, only: sections.length === 1, document: DOCUMENT });
  }
  if (sections.includes('console')) {
    const { runConsoleBench } = await import('./console');
    await runConsoleBench({ quick, only: sections.length === 1, document: DOCUMENT });
  }
}

async function foundation(quick: boolean): Promise<void> {
  const settings = quick ? QUICK : FULL;
  assertWithinLimits(settings);
  const started = performance.now();
  const loadBefore = loadavg()[0] ?? 0;
  const { measureRequestOverhead, nonOkCount } = await import('./request-overhead');
  const { measureBundleSizes } = await import('./bundle-size');
  const { describeMachine } = await import('./machine');
  const { renderFoundationSection } = await import('./foundation-report');

  const log = (line: string) => console.log(`[bench] ${line}`);
  log(
    `request overhead: concurrency ${settings.concurrencyLevels.join(', ')}${quick ? ' (quick)' : ''}`,
  );
  const overhead = await measureRequestOverhead({ ...settings, onProgress: log });
  log('bundle sizes');
  const bundles = await measureBundleSizes(ROOT);
  for (const fn of bundles) {
    log(
      `${fn.name}: ${fn.sdkExternal.bytes} B (gzip ${fn.sdkExternal.gzipBytes} B); with SDK ${fn.sdkBundled.bytes} B (gzip ${fn.sdkBundled.gzipBytes} B)`,
    );
  }

  const section = renderFoundationSection({
    date: new Date().toISOString().slice(0, 10),
    machine: describeMachine(),
    command: quick ? 'npm run bench -- --quick' : 'npm run bench',
    durationSeconds: (performance.now() - started) / 1000,
    loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 },
    settings,
    overhead,
    bundles,
  });
  console.log(`\n${section}`);

  const failures = overhead.levels.reduce((sum, level) => sum + nonOkCount(level), 0);
  if (failures > 0) {
    throw new Error(
      `${failures} responses were not a correct 200; docs/benchmarks.md left as it was`,
    );
  }
  if (quick) {
    log('quick run: docs/benchmarks.md left as it was');
    return;
  }
  writeSection(DOCUMENT, 'foundation', section);
  log(`wrote the foundation section of ${DOCUMENT}`);
}

async function webhooks(quick: boolean, only: boolean): Promise<void> {
  const settings = quick ? WEBHOOKS_QUICK : WEBHOOKS_FULL;
  const started = performance.now();
  const loadBefore = loadavg()[0] ?? 0;
  const { measureWebhookDelivery } = await import('./webhook-delivery');
  const { renderWebhooksSection, allDeliveredOnce } = await import('./webhooks-report');
  const { describeMachine } = await import('./machine');

  const log = (line: string) => console.log(`[bench] ${line}`);
  log(`webhook delivery${quick ? ' (quick)' : ''}`);
  const result = await measureWebhookDelivery(settings, log);
  const section = renderWebhooksSection({
    date: new Date().toISOString().slice(0, 10),
    machine: describeMachine(),
    command: benchCommand('webhooks', { quick, only }),
    durationSeconds: (performance.now() - started) / 1000,
    loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 },
    settings,
    result,
  });
  console.log(`\n${section}`);

  if (!allDeliveredOnce(result)) {
    throw new Error(
      'Not every event was delivered exactly once; docs/benchmarks.md webhooks section left as it was',
    );
  }
  if (quick) {
    log('quick run: docs/benchmarks.md left as it was');
    return;
  }
  writeSection(DOCUMENT, 'webhooks', section);
  log(`wrote the webhooks section of ${DOCUMENT}`);
}

main().catch((error: unknown) => {
  console.error('[bench] failed:', error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
