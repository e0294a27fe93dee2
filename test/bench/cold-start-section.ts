/**
 * The `cold-start` section of `npm run bench` (issue 8, part 3: "init time
 * measured, side by side"): every function's bundle and init time next to a
 * hello-world handler and a DynamoDB-clients-only handler measured in the
 * same run, and the init cost of `--enable-source-maps` for a few functions.
 * The measuring itself is test/bench/cold-start.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchCommand, writeSection } from './benchmarks-doc';
import { functionNames } from './bundle-size';
import {
  bundleHandler,
  type HandlerBundle,
  type InitMeasurement,
  type InitTarget,
  lambdaEnvironment,
  measureInitRoundRobin,
} from './cold-start';
import {
  type ColdStartSettings,
  DYNAMODB_ONLY,
  HELLO_WORLD,
  type MeasuredHandler,
  medianMs,
  medianOf,
  p90Ms,
  renderColdStartSection,
  verdictOf,
} from './cold-start-report';
import { measureFirstDocuments } from './first-document';
import { firstRequestEvent } from './first-request-events';
import { describeMachine } from './machine';

/**
 * 15 processes for 16 bundles and 3 with source maps: about 285 processes,
 * most of them loading a 4.7 MB bundle in about a second, so two at a time to
 * stay near 3 minutes on a 2-core machine.
 */
const FULL: ColdStartSettings = {
  processes: 15,
  concurrency: 2,
  // A CRUD family, the largest HTTP family, and a queue worker.
  sourceMapFunctions: ['agents', 'query', 'webhook-dispatcher'],
};

const QUICK: ColdStartSettings = { ...FULL, processes: 5 };

const WITH_SOURCE_MAPS = '--enable-source-maps';

interface Bundled {
  readonly name: string;
  /** `AWS_LAMBDA_FUNCTION_NAME` in its processes. */
  readonly functionName: string;
  readonly bundle?: HandlerBundle;
  readonly bundleError?: string;
}

/** Bundles every handler at once (esbuild builds them in parallel); a failure is kept, not thrown. */
async function bundleAll(
  entries: readonly { name: string; functionName: string; entry: string }[],
  outdir: string,
): Promise<Bundled[]> {
  return Promise.all(
    entries.map(async ({ name, functionName, entry }) => {
      try {
        return {
          name,
          functionName,
          bundle: await bundleHandler(entry, join(outdir, functionName)),
        };
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return { name, functionName, bundleError: message.split('\n')[0] ?? message };
      }
    }),
  );
}

function withoutFile(bundle: HandlerBundle): Omit<HandlerBundle, 'file'> {
  const { file: _file, ...sizes } = bundle;
  return sizes;
}

/**
 * Measures, prints, and (unless `quick`) writes the section. `only`: the
 * command ran this section alone.
 */
export async function runColdStartBench(options: {
  readonly quick: boolean;
  readonly only: boolean;
  readonly root: string;
  readonly document: string;
}): Promise<void> {
  const { quick, only, root } = options;
  const settings = quick ? QUICK : FULL;
  const log = (line: string) => console.log(`[bench] ${line}`);
  const started = performance.now();
  const loadBefore = loadavg()[0] ?? 0;
  const references = join(__dirname, 'reference-handlers');
  const entries = [
    { name: HELLO_WORLD, functionName: 'hello-world', entry: join(references, 'hello-world.ts') },
    {
      name: DYNAMODB_ONLY,
      functionName: 'dynamodb-clients',
      entry: join(references, 'dynamodb-clients.ts'),
    },
    ...functionNames(root).map((name) => ({
      name,
      functionName: name,
      entry: join(root, 'functions', name, 'handler.ts'),
    })),
  ];
  log(`cold start: bundling ${entries.length} handlers${quick ? ' (quick)' : ''}`);

  const outdir = mkdtempSync(join(tmpdir(), 'svc-bench-cold-start-'));
  let bundled: Bundled[];
  let bundlingSeconds: number;
  let measured: InitMeasurement[];
  let firstDocuments: Awaited<ReturnType<typeof measureFirstDocuments>>;
  try {
    bundled = await bundleAll(entries, outdir);
    bundlingSeconds = (performance.now() - started) / 1000;
    const nodePath = join(root, 'node_modules');
    const targets: InitTarget[] = bundled.flatMap(({ name, functionName, bundle }) => {
      if (!bundle) return [];
      // The references answer any event; the functions one they refuse without the network.
      const event = name === HELLO_WORLD || name === DYNAMODB_ONLY ? '{}' : firstRequestEvent(name);
      const plain = {
        id: name,
        bundleFile: bundle.file,
        environment: lambdaEnvironment({ functionName, bundle, nodePath }),
        ...(event === undefined ? {} : { event }),
      };
      if (!settings.sourceMapFunctions.includes(name)) return [plain];
      return [
        plain,
        {
          id: `${name} ${WITH_SOURCE_MAPS}`,
          bundleFile: bundle.file,
          environment: lambdaEnvironment({
            functionName,
            bundle,
            nodePath,
            nodeOptions: WITH_SOURCE_MAPS,
          }),
        },
      ];
    });
    log(
      `cold start: ${targets.length} bundles × ${settings.processes} processes, ${settings.concurrency} at a time`,
    );
    measured = await measureInitRoundRobin(targets, {
      processes: settings.processes,
      concurrency: settings.concurrency,
      onRound: (round) => log(`cold start: round ${round} of ${settings.processes} done`),
    });
    log(`cold start: the first document of each type, ${settings.processes} processes each`);
    firstDocuments = await measureFirstDocuments(join(outdir, 'first-document'), settings);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }

  const byId = new Map(measured.map((measurement) => [measurement.id, measurement]));
  const notMeasured = (id: string): InitMeasurement => ({
    id,
    samplesMs: [],
    error: 'not bundled',
  });
  const handlers: MeasuredHandler[] = bundled.map(({ name, bundle, bundleError }) => ({
    name,
    ...(bundle ? { bundle: withoutFile(bundle) } : {}),
    ...(bundleError === undefined ? {} : { bundleError }),
    init: byId.get(name) ?? notMeasured(name),
  }));
  const [helloWorld, dynamoDbOnly, ...functions] = handlers;
  if (!helloWorld || !dynamoDbOnly) throw new Error('the reference handlers were not measured');
  for (const fn of [helloWorld, dynamoDbOnly, ...functions]) {
    log(
      `${fn.name}: ${fn.bundle?.bytes ?? '—'} B, init median ${medianMs(fn.init).toFixed(1)} ms, p90 ${p90Ms(fn.init).toFixed(1)} ms, first request ${medianOf(fn.init.firstRequestMs).toFixed(1)} ms${fn.init.outcome ? ` (${fn.init.outcome})` : ''}${fn.init.error ? ` (${fn.init.error})` : ''}${fn.bundleError ? ` (${fn.bundleError})` : ''}`,
    );
  }
  const sourceMaps = settings.sourceMapFunctions.flatMap((name) => {
    const fn = functions.find((candidate) => candidate.name === name);
    const withMaps = byId.get(`${name} ${WITH_SOURCE_MAPS}`);
    return fn?.bundle && withMaps
      ? [{ name, mapBytes: fn.bundle.mapBytes, without: fn.init, with: withMaps }]
      : [];
  });

  for (const document of firstDocuments) {
    log(
      `first ${document.type}: ${medianOf(document.firstMs).toFixed(1)} ms, then ${medianOf(document.secondMs).toFixed(1)} ms${document.error ? ` (${document.error})` : ''}`,
    );
  }

  const section = renderColdStartSection({
    date: new Date().toISOString().slice(0, 10),
    machine: describeMachine(),
    command: benchCommand('cold-start', { quick, only }),
    durationSeconds: (performance.now() - started) / 1000,
    bundlingSeconds,
    loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 },
    settings,
    helloWorld,
    dynamoDbOnly,
    functions,
    sourceMaps,
    firstDocuments,
  });
  console.log(`\n${section}`);
  const missed = functions.filter((fn) => verdictOf(fn, dynamoDbOnly).kind === 'misses');
  log(
    `cold start: ${missed.length} of ${functions.length} functions miss their target${missed.length > 0 ? ` (${missed.map((fn) => fn.name).join(', ')})` : ''}; reported, not failed`,
  );
  if (quick) {
    log('quick run: docs/benchmarks.md left as it was');
    return;
  }
  writeSection(options.document, 'cold-start', section);
  log(`wrote the cold-start section of ${options.document}`);
}
