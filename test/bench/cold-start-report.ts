import { table } from '../support/markdown-table';
import type { HandlerBundle, InitMeasurement } from './cold-start';
import { coldStartTarget, judge, type Verdict } from './cold-start-targets';
import type { Machine } from './machine';
import { percentile } from './stats';

export interface ColdStartSettings {
  /** Fresh processes per function (and per reference handler). */
  readonly processes: number;
  /** Processes running at once. */
  readonly concurrency: number;
  /** Functions also measured with `NODE_OPTIONS=--enable-source-maps`. */
  readonly sourceMapFunctions: readonly string[];
}

/** One bundle and its init times; `bundleError` when esbuild could not build it. */
export interface MeasuredHandler {
  readonly name: string;
  readonly bundle?: Omit<HandlerBundle, 'file'>;
  readonly bundleError?: string;
  readonly init: InitMeasurement;
}

export interface SourceMapCost {
  readonly name: string;
  readonly mapBytes: number;
  readonly without: InitMeasurement;
  readonly with: InitMeasurement;
}

export interface ColdStartReport {
  readonly date: string;
  readonly machine: Machine;
  readonly command: string;
  readonly durationSeconds: number;
  readonly bundlingSeconds: number;
  readonly loadAverage: { readonly before: number; readonly after: number };
  readonly settings: ColdStartSettings;
  readonly helloWorld: MeasuredHandler;
  readonly dynamoDbOnly: MeasuredHandler;
  readonly functions: readonly MeasuredHandler[];
  readonly sourceMaps: readonly SourceMapCost[];
}

export const HELLO_WORLD = 'hello world (reference)';
export const DYNAMODB_ONLY = 'DynamoDB clients only (reference)';

/** Median (nearest rank) of a measurement; NaN when nothing loaded. */
export function medianMs(measurement: InitMeasurement): number {
  return percentile(sorted(measurement.samplesMs), 50);
}

export function p90Ms(measurement: InitMeasurement): number {
  return percentile(sorted(measurement.samplesMs), 90);
}

function sorted(samples: readonly number[]): number[] {
  return [...samples].sort((a, b) => a - b);
}

/** The verdict of one function against issue 8's target, from this run's figures. */
export function verdictOf(fn: MeasuredHandler, dynamoDbOnly: MeasuredHandler): Verdict {
  return judge(coldStartTarget(fn.name), {
    minifiedBytes: fn.bundle?.bytes ?? Number.POSITIVE_INFINITY,
    initRatioToDynamoDb: medianMs(fn.init) / medianMs(dynamoDbOnly.init),
  });
}

const kb = (bytes: number | undefined) =>
  bytes === undefined ? '—' : (bytes / 1_000).toLocaleString('en-US', { maximumFractionDigits: 1 });
const ms = (value: number) => (Number.isNaN(value) ? '—' : value.toFixed(1));
const ratio = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : '—');
const percent = (value: number) => (Number.isFinite(value) ? `${value.toFixed(0)} %` : '—');

function verdictCell(verdict: Verdict): string {
  switch (verdict.kind) {
    case 'meets':
      return 'yes';
    case 'misses':
      return `no (${verdict.reasons.join(', ')})`;
    case 'report-only':
      return '—';
  }
}

function initRows(report: ColdStartReport): string[][] {
  const dynamoDb = medianMs(report.dynamoDbOnly.init);
  const hello = medianMs(report.helloWorld.init);
  const row = (fn: MeasuredHandler, target: string, meets: string) => {
    const median = medianMs(fn.init);
    return [
      fn.name.includes('(reference)') ? fn.name : `\`${fn.name}\``,
      kb(fn.bundle?.bytes),
      kb(fn.bundle?.gzipBytes),
      fn.bundle?.firstUseBytes ? kb(fn.bundle.firstUseBytes) : '—',
      ms(median),
      ms(p90Ms(fn.init)),
      ratio(median / dynamoDb),
      ratio(median / hello),
      target,
      meets,
    ];
  };
  return [
    row(report.helloWorld, '—', '—'),
    row(report.dynamoDbOnly, '—', '—'),
    ...report.functions.map((fn) =>
      row(fn, coldStartTarget(fn.name).label, verdictCell(verdictOf(fn, report.dynamoDbOnly))),
    ),
  ];
}

function problems(report: ColdStartReport): string {
  const failed = [report.helloWorld, report.dynamoDbOnly, ...report.functions].filter(
    (fn) => fn.bundleError !== undefined || fn.init.error !== undefined,
  );
  if (failed.length === 0) return 'Every bundle was built and loaded in every process.';
  const lines = failed.map((fn) =>
    fn.bundleError !== undefined
      ? `- \`${fn.name}\` was not bundled: ${fn.bundleError}`
      : `- \`${fn.name}\` did not load (${fn.init.samplesMs.length} processes had loaded it before): ${fn.init.error}`,
  );
  return `Not measured (a dash in the table):\n\n${lines.join('\n')}`;
}

function sourceMapRows(costs: readonly SourceMapCost[]): string[][] {
  return costs.map((cost) => {
    const without = medianMs(cost.without);
    const withMaps = medianMs(cost.with);
    return [
      `\`${cost.name}\``,
      kb(cost.mapBytes),
      ms(without),
      ms(withMaps),
      ms(withMaps - without),
      percent(((withMaps - without) / without) * 100),
    ];
  });
}

export function renderColdStartSection(report: ColdStartReport): string {
  const { machine, settings } = report;
  return `## Cold start: init time per function

Written by \`${report.command}\` (test/bench/cold-start-section.ts) on ${report.date};
this section took ${report.durationSeconds.toFixed(0)} s (bundling ${report.bundlingSeconds.toFixed(0)} s). Rerun it rather than editing these figures.

**Machine**: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB.toFixed(1)} GiB RAM,
${machine.os}, Node.js ${machine.node}. 1-minute load average
${report.loadAverage.before.toFixed(2)} before this section and ${report.loadAverage.after.toFixed(2)} after it (this section itself
accounts for about ${settings.concurrency}; more means other work shared the machine and slowed these figures).

### Init time: \`require()\` of each bundle in a fresh process (${settings.processes} processes each)

${table(
  [
    'Function',
    'Minified KB',
    'Gzip KB',
    'First use KB',
    'Init median ms',
    'Init p90 ms',
    '× DynamoDB only',
    '× hello world',
    'Target (issue 8)',
    'Meets target',
  ],
  initRows(report),
)}

${problems(report)}

KB are 1,000 bytes (and MB 1,000,000), the stricter reading of the issue's
targets. "× DynamoDB only" and "× hello world" divide a function's median by
the reference's median from the same run. A CRUD family (\`agents\`,
\`data-sources\`, \`interactions\`, \`analytics\`, \`webhooks\`) meets its target
when its \`index.js\` is at most 300 KB minified and its median init at most 2×
the DynamoDB-only reference's; the other families that only read and write
the table are held to the same, and \`sso\` and \`connections\`, which also
speak OAuth and OIDC to outside providers, to 350 KB (P209); \`query\` and
\`search\` when at most 1 MB. "First use KB" is what is shipped beside
\`index.js\` and loaded at its first use, never at init (P209). The
workers and the fallback have no number to meet ("as small as their job
allows"): their figures are reported only.

### What \`--enable-source-maps\` costs at init

${table(
  [
    'Function',
    'index.js.map KB',
    'Init median ms without',
    'Init median ms with',
    'Added ms',
    'Added',
  ],
  sourceMapRows(report.sourceMaps),
)}

Node.js with \`NODE_OPTIONS=--enable-source-maps\` reads and parses each
bundle's \`index.js.map\` when it loads the bundle, so stack traces name the
TypeScript sources. "With" is the same bundle, in the same round-robin, with
that option set; "without" is the main table's figure. The map has no sources
content. On this cost the stack ships neither the map nor the option unless a
deployment sets \`functionSourceMaps\` (P54).

**What is measured.** Each function's \`functions/<name>/handler.ts\`, and two
reference handlers (test/bench/reference-handlers/: one that imports nothing,
and one that builds a DynamoDB document client at module scope, what every
HTTP family minimally needs), is bundled into a temporary directory exactly as
the stack bundles it (lib/constructs/function-bundle.ts: esbuild with \`LAMBDA_BUNDLING\`,
\`@aws-sdk/*\` external because the Lambda Node.js runtime ships the SDK, and the
packages loaded on first use, P209, bundled beside \`index.js\`: their size is
the "first use" column, and init does not load them). Then
each bundle is loaded in ${settings.processes} fresh \`node\` processes, the bundles
taken round-robin (every bundle once, then every bundle again, …) so that a
busy spell of the machine spreads over all of them, ${settings.concurrency} processes
at a time. A process (test/bench/init-probe.cjs) times \`require()\` of
\`index.js\` with \`process.hrtime.bigint()\`: reading, compiling and running the
bundle's module scope, which constructs the handler, as Lambda's init phase
does. \`@aws-sdk/*\` resolves through \`NODE_PATH\` from the repository's
node_modules, as it does from /var/runtime/node_modules on Lambda. Each
process gets what a deployed function's environment holds and nothing of the
bench's: \`AWS_LAMBDA_FUNCTION_NAME\`, \`AWS_REGION=us-east-1\`, dummy
credentials, and placeholder values for every configuration key any function
parses (\`FUNCTION_CONFIGURATION\` in test/bench/function-configuration.ts), so
a composition built at module load runs without the network.

**What is not measured.** Lambda's own share of a cold start: creating the
sandbox, fetching and unpacking the code, starting Node.js and the runtime
client before the handler's module is required. The composition is in
these figures: in Lambda (and here, with \`AWS_LAMBDA_FUNCTION_NAME\` set) each
function builds it while its module loads (P48). Work deferred to a first
use is not: the packages loaded on first use (P209: the Encryption SDK,
P70, the Anthropic SDK, P136, node-saml, P93), the S3 client of
\`data-sources\` (P71), the SQS client (P210), secrets and connections. This is Node.js
${machine.node} on ${machine.cores} x86 cores with ${settings.concurrency} processes sharing them; the functions run
Node.js 24 on ARM64 with the CPU share of their memory size (1,024 MB, about
0.6 vCPU), so absolute times there differ: compare the rows and the ratios
with each other, not with production.`;
}
