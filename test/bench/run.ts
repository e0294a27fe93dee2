/**
 * `npm run bench`: the local runtime's request overhead and each function's
 * bundle size, written to the `foundation` section of docs/benchmarks.md and
 * printed. A measurement, not a test: nothing here passes or fails on time;
 * it fails only when a request is not a correct 200.
 *
 * `npm run bench -- --quick`: a short run that prints and writes nothing.
 */
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { PLAN_LIMITS } from '../../layers/core/domain/plans';
import { SCOPE_RATE_LIMITS } from '../../layers/core/domain/scopes';
import { writeSection } from './benchmarks-doc';
import type { FoundationSettings } from './foundation-report';

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
  const settings = quick ? QUICK : FULL;
  assertWithinLimits(settings);
  const started = performance.now();
  const loadBefore = loadavg()[0] ?? 0;

  // Before any handler module builds its logger or SDK client (as bin/local.ts does).
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
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

main().catch((error: unknown) => {
  console.error('[bench] failed:', error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
