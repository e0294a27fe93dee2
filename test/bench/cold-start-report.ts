import { table } from '../support/markdown-table';
import type { HandlerBundle, InitMeasurement } from './cold-start';
import { coldStartTarget, judge, type Verdict } from './cold-start-targets';
import type { FirstDocumentMeasurement } from './first-document';
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
  readonly firstDocuments: readonly FirstDocumentMeasurement[];
}

export const HELLO_WORLD = 'hello world (reference)';
export const DYNAMODB_ONLY = 'DynamoDB clients only (reference)';

/** Median (nearest rank) of a measurement; NaN when nothing loaded. */
export function medianMs(measurement: InitMeasurement): number {
  return percentile(sorted(measurement.samplesMs), 50);
}

/** Median (nearest rank) of any samples; NaN when there are none. */
export function medianOf(samples: readonly number[] | undefined): number {
  return percentile(sorted(samples ?? []), 50);
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
  const firstRequestOfDynamoDb = medianOf(report.dynamoDbOnly.init.firstRequestMs);
  const row = (fn: MeasuredHandler, target: string, meets: string) => {
    const median = medianMs(fn.init);
    const firstRequest = medianOf(fn.init.firstRequestMs);
    return [
      fn.name.includes('(reference)') ? fn.name : `\`${fn.name}\``,
      kb(fn.bundle?.bytes),
      kb(fn.bundle?.gzipBytes),
      fn.bundle?.firstUseBytes ? kb(fn.bundle.firstUseBytes) : '—',
      ms(median),
      ms(p90Ms(fn.init)),
      ratio(median / dynamoDb),
      ratio(median / hello),
      ms(firstRequest),
      fn.init.outcome ?? '—',
      ratio((median + firstRequest) / (dynamoDb + firstRequestOfDynamoDb)),
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

function firstDocumentRows(documents: readonly FirstDocumentMeasurement[]): string[][] {
  return documents.map((document) => {
    const first = medianOf(document.firstMs);
    const second = medianOf(document.secondMs);
    return [
      document.type,
      document.error === undefined ? ms(first) : `— (${document.error})`,
      ms(second),
      ms(first - second),
    ];
  });
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
  return `## Cold start: init and first request per function

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
    'First request median ms',
    'First request answered',
    'Init + first request × DynamoDB only',
    'Target (issues 8, 33)',
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
speak OAuth and OIDC to outside providers, to 350 KB (P209); \`mcp\` and
\`openai\` when at most 1 MB, and \`query\` and \`search\` when also within 2×
at init (issue 33); the two workers that parse documents
(\`ingestion-worker\`, \`sync-worker\`) when within 2.5× at init (issue 33).
"First use KB" is what is shipped beside
\`index.js\` and loaded at its first use, never at init (P209). The other
workers and the fallback have no number to meet ("as small as their job
allows"): their figures are reported only.

"First request" is a second step in the same process, right after init
(test/bench/first-request-probe.cjs): the handler is invoked with one event
it answers without the network (test/bench/first-request-events.ts: an HTTP
family's first route without credentials, so authentication runs and refuses
it; a queue worker a message it drops; the references any event), the median
of its processes. It is what the request path itself loads or builds on first
use; work that waits for a request that reaches a model, the index or a
document is in the next table and in the "first use" column, not in this one.
"Init + first request × DynamoDB only" divides the two together by the same
two figures of the DynamoDB-only reference, so that nothing moved from init
to the first request is hidden by the ratio.

### The first document of each type (parsing workers)

${table(
  ['Type', 'First document median ms', 'Second document median ms', 'First-use load ms'],
  firstDocumentRows(report.firstDocuments),
)}

The ingestion and sync workers load each parser (PDF.js through unpdf, mammoth for
DOCX, markdown-it, csv-parse, htmlparser2 for HTML, DOCX and Markdown), and the
BPE tokenizer that sizes chunks, when the first document that needs it arrives,
not at init (lib/constructs/function-bundle.ts ships them beside \`index.js\`;
layers/core/adapters/parsing/parser-libraries.ts loads them). Each figure is
the median of ${settings.processes} fresh processes running the probe
test/bench/first-document-probe.ts, bundled as the workers are: it parses and
chunks one small document of the type (two pages of PDF, two paragraphs of
the others) twice. "First-use load" is the first minus the second: the
parser's load, and the tokenizer's at the first document of any type (plain
text has no parser, so its row is the tokenizer's alone). A worker pays each
once per cold start, at the first message with a document of that type.

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
P70, the Anthropic and OpenAI SDKs, node-saml, P93, the workers' parsers
and tokenizer, measured in their own table), the S3 client of
\`data-sources\` (P71), the SQS client (P210), secrets and connections, and in
the answering families what an answer needs and a refused request does not:
the offline answerer's modules, the OpenSearch client, the answerers for
organizations' own keys and grounding's sentence segmenter (the first
\`Intl\` object, which initializes ICU), evaluated at their first use
inside \`index.js\` (see "What refused requests do not load" below). This is Node.js
${machine.node} on ${machine.cores} x86 cores with ${settings.concurrency} processes sharing them; the functions run
Node.js 24 on ARM64 with the CPU share of their memory size (1,024 MB, about
0.6 vCPU), so absolute times there differ: compare the rows and the ratios
with each other, not with production.`;
}
