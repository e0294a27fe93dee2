import { join, relative } from 'node:path';
import { PLAN_LIMITS } from '../../layers/core/domain/plans';
import { SCOPE_RATE_LIMITS } from '../../layers/core/domain/scopes';
import { LOADED_ON_FIRST_USE } from '../../lib/constructs/function-bundle';
import { table } from '../support/markdown-table';
import { type FunctionBundleSize, LAMBDA_BUNDLING, PROVIDED_BY_RUNTIME } from './bundle-size';
import type { LoadPlan } from './load-driver';
import type { Machine } from './machine';
import type { LevelResult, OverheadResult } from './request-overhead';
import { nonOkCount } from './request-overhead';

export interface FoundationSettings {
  readonly concurrencyLevels: readonly number[];
  readonly plan: Omit<LoadPlan, 'concurrency'>;
  readonly keysPerOrganization: number;
}

export interface FoundationReport {
  readonly date: string;
  readonly machine: Machine;
  readonly command: string;
  readonly durationSeconds: number;
  /** The 1-minute load average before and after the run: other work on the machine skews the figures. */
  readonly loadAverage: { readonly before: number; readonly after: number };
  readonly settings: FoundationSettings;
  readonly overhead: OverheadResult;
  readonly bundles: readonly FunctionBundleSize[];
}

/** Alias paths are shown from here. */
const REPOSITORY_ROOT = join(__dirname, '..', '..');

const ms = (value: number) => value.toFixed(2);
const bytes = (value: number) => value.toLocaleString('en-US');
const kib = (value: number) => `${(value / 1024).toFixed(1)} KiB`;
const seconds = (value: number) => `${(value / 1000).toFixed(1)} s`;

function overheadTable(levels: readonly LevelResult[]): string {
  return table(
    [
      'Path',
      'Concurrency',
      'Requests',
      'Non-200',
      'p50 ms',
      'p95 ms',
      'p99 ms',
      'Max ms',
      'Requests/s',
      'Measured for',
      'DynamoDB calls/request',
    ],
    levels.map((level) => [
      level.mode === 'http' ? 'HTTP (gateway)' : 'In-process (handler)',
      String(level.concurrency),
      bytes(level.latency.count),
      String(nonOkCount(level)),
      ms(level.latency.p50Ms),
      ms(level.latency.p95Ms),
      ms(level.latency.p99Ms),
      ms(level.latency.maxMs),
      bytes(Math.round(level.requestsPerSecond)),
      seconds(level.elapsedMs),
      level.dynamoDbCallsPerRequest.toFixed(2),
    ]),
  );
}

/** HTTP minus in-process at each level: what the gateway, the socket and the client add. */
function gatewayTable(levels: readonly LevelResult[]): string {
  const rows: string[][] = [];
  for (const http of levels.filter((level) => level.mode === 'http')) {
    const direct = levels.find(
      (level) => level.mode === 'in-process' && level.concurrency === http.concurrency,
    );
    if (!direct) continue;
    rows.push([
      String(http.concurrency),
      ms(http.latency.p50Ms - direct.latency.p50Ms),
      ms(http.latency.p99Ms - direct.latency.p99Ms),
      `${((http.requestsPerSecond / direct.requestsPerSecond) * 100).toFixed(0)} %`,
      String(http.connections ?? '-'),
    ]);
  }
  return table(
    [
      'Concurrency',
      'Added p50 ms',
      'Added p99 ms',
      'HTTP throughput vs in-process',
      'TCP connections opened',
    ],
    rows,
  );
}

function bundleTable(bundles: readonly FunctionBundleSize[]): string {
  return table(
    [
      'Function',
      'index.js bytes',
      'gzip bytes',
      'With source map, gzip bytes',
      'SDK bundled: index.js bytes',
      'SDK bundled: gzip bytes',
      'Largest parts of index.js',
    ],
    bundles.map((fn) => [
      `\`${fn.name}\``,
      bytes(fn.sdkExternal.bytes),
      bytes(fn.sdkExternal.gzipBytes),
      bytes(fn.sdkExternal.packageGzipBytes),
      bytes(fn.sdkBundled.bytes),
      bytes(fn.sdkBundled.gzipBytes),
      fn.sdkExternal.largest.map((part) => `${part.name} ${kib(part.bytes)}`).join(', '),
    ]),
  );
}

/** The `foundation` section of docs/benchmarks.md, Markdown. */
export function renderFoundationSection(report: FoundationReport): string {
  const { machine, settings, overhead } = report;
  const { plan } = settings;
  const perOrganization = settings.keysPerOrganization * plan.requestsPerKey;
  const bundling = Object.entries(LAMBDA_BUNDLING)
    .map(([option, value]) =>
      option === 'alias'
        ? `alias ${Object.entries(value)
            .map(([name, replacement]) => `${name}=${relative(REPOSITORY_ROOT, replacement)}`)
            .join(' ')}`
        : `${option} ${String(value)}`,
    )
    .join(', ');
  return `## Foundation: request overhead and bundle sizes

Written by \`${report.command}\` (test/bench/run.ts) on ${report.date}; the run took
${report.durationSeconds.toFixed(0)} s. Rerun it rather than editing these figures.

**Machine**: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB.toFixed(1)} GiB RAM,
${machine.os}, Node.js ${machine.node}. 1-minute load average
${report.loadAverage.before.toFixed(2)} before the run and ${report.loadAverage.after.toFixed(2)} after it (the bench itself accounts for up
to about 2 by its end; more means other work shared the machine and skewed the figures).

### Request overhead: authenticated, rate-limited \`GET /api/v1/agents/:id\`

${overheadTable(overhead.levels)}

What HTTP adds over calling the handler directly (HTTP minus in-process):

${gatewayTable(overhead.levels)}

A negative difference means the two are within run-to-run noise of each other.

**What is measured.** The real local runtime (\`startLocalRuntime\`, as \`npm start\`
runs it, in memory on free ports): local gateway, the \`agents\` handler export
with its whole middy chain, and dynalite, all in one Node.js process. Every
request is a real \`200\`: route match and API Gateway event, request id, Bearer
key lookup (a consistent \`GetItem\`), scope check, the GCRA scope bucket (one
conditional \`UpdateItem\`), the organization's plan minute counter (one conditional
\`UpdateItem\`; the plan itself is cached for 30 s per function instance, as in a
warm Lambda; the bootstrap organization is enterprise, which has no daily caps
to count), its concurrency lease (one conditional \`UpdateItem\`), the agent read
(\`GetItem\`), the lease's release (\`UpdateItem\`), the JSON response and its
\`X-RateLimit-*\` and security headers: six DynamoDB calls per request, over
loopback HTTP to dynalite, counted by a middleware on the runtime's client
(the last column; warm-up included, so a little over six where an
organization's first request also reads its plan).

- **HTTP rows**: a closed-loop client of \`concurrency\` virtual users in a worker
  thread (its own event loop, so it does not share one with the server) sends
  keep-alive HTTP/1.1 requests over loopback with \`node:http\`; latency is from
  sending the request to reading the whole body. Each response is checked:
  status 200, rate-limit headers present, the body names the agent asked for.
- **In-process rows**: the same handler export called with the event the
  gateway would build (\`toApiGatewayEvent\`, \`lambdaContext\`), no socket: the
  handler's and dynalite's share. The difference is the gateway, the HTTP
  parsing on both sides and the client.
- Each level: ${bytes(plan.warmupRequests)} warm-up requests (at most ${seconds(plan.warmupMaxMs)}, not
  measured), then ${bytes(plan.requests)} measured requests or ${seconds(plan.maxMs)}, whichever comes
  first, in the order of the table. Requests/s is measured requests over the
  measured phase's wall time.
- **Rate limits, kept real.** The Read bucket holds ${SCOPE_RATE_LIMITS.Read.burst} tokens per key and an
  enterprise organization may make ${bytes(PLAN_LIMITS.enterprise.requestsPerMinute)} requests a minute, so a fixed key
  would be refused within a second. Instead of a fake clock, the bench creates
  ${overhead.organizations} enterprise organizations (each with a data source and an agent) and
  ${overhead.keys} Read-only keys, ${settings.keysPerOrganization} per organization (setup ${seconds(overhead.setupMs)}). Each virtual user
  holds its own key and moves to a fresh one after ${plan.requestsPerKey} requests, and no
  organization receives more than ${bytes(perOrganization)} requests in the whole run, so neither
  limit refuses a request while both are enforced on every request with the
  system clock. A virtual user's requests on one key are sequential, so after
  its first request the limiter always takes its steady-state branch (one
  conditional update, no retry), as for a steady client in the cloud. A bench
  that exceeded a limit would show non-200s and fail.

**What is not measured.** dynalite is not DynamoDB: it is single-threaded
JavaScript on an in-memory LevelDB, in the same process and on the same event
loop as the gateway and the handlers, reached over loopback; in the cloud each
of the four calls is a network round trip to DynamoDB (typically a few
milliseconds), and each function instance serves one request at a time. So
throughput here is bounded by one event loop doing the work of gateway,
handlers and database, and latency under concurrency is mostly queueing on it.
Loopback is not API Gateway: no TLS, no API Gateway latency, no Lambda
invocation or cold start (init time, bundle loading). This is Node.js
${machine.node}; the functions are built for ${LAMBDA_BUNDLING.target}. One machine with ${machine.cores} cores
runs server, database and client, so these figures compare local runs with
each other, not with production.

### Bundle sizes

${bundleTable(report.bundles)}

Each \`functions/<name>/handler.ts\` is bundled with esbuild as the stack
bundles it (lib/constructs/function-bundle.ts), plus a source map, into a
temporary directory:

    ${bundling}, external ${PROVIDED_BY_RUNTIME.join(', ')}

The AWS SDK v3 is external because the Lambda Node.js runtime provides it; the
packages loaded on first use (P209: ${LOADED_ON_FIRST_USE.join(', ')}) are shipped
beside \`index.js\` and not counted here. gzip is level 9, per file; "with source
map" adds the gzipped \`index.js.map\`, which a deployment ships beside it only
with \`functionSourceMaps\` (P54). The "SDK bundled" columns bundle the AWS SDK
too, for a later decision to pin its version. The options are read from
function-bundle.ts's exported \`LAMBDA_BUNDLING\`, so the two cannot drift. Bundle size
is not cold-start time, which was not measured.
`;
}
