/**
 * The `mixed-load` section of `npm run bench` (issue 13 item 5: "a bounded
 * mixed load (thousands of requests, concurrency ≥ 50, several
 * organizations, reads, writes, queries, searches, uploads) with zero 5xx and
 * limits enforced exactly").
 *
 * Against the service as `npm start` runs it: a child process (tsx
 * bin/local.ts) on a fresh temporary data directory, its background workers
 * on (uploads are ingested while the load runs). Organizations and keys are
 * made with the admin CLI (`svc orgs create`, `svc keys create`, D11, D36) on
 * its DynamoDB; the load itself is test/support/mixed-load.ts. The run fails,
 * and writes nothing, on any 5xx, any 4xx but 429, or an organization whose
 * 429s are not what its limits allow for what it was sent (P106).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Plan } from '../../layers/core/domain/plans';
import { runCli } from '../../lib/local/admin-cli';
import { ENTRY_POINTS, start } from '../support/child-process';
import { table } from '../support/markdown-table';
import {
  type ExpectedRefusals,
  expectedRefusals,
  type LoadOrganization,
  type MixedLoadResult,
  planMinuteViolations,
  prepareOrganizations,
  runMixedLoad,
  tally,
} from '../support/mixed-load';
import { benchCommand, writeSection } from './benchmarks-doc';
import { describeMachine, type Machine } from './machine';

interface OrganizationSpec {
  readonly name: string;
  readonly plan: Plan;
  readonly keys: number;
  readonly requests: number;
  readonly overdrawWrites?: number;
}

/**
 * 2,470 API requests (and an upload body per admitted upload): three
 * enterprise organizations with room for all they send (16 keys each keep
 * every key within its buckets; one key of the first overdraws its Write
 * bucket by 10), one pro organization sent three times its 100 a minute, one
 * free organization three times its 20.
 */
const FULL: readonly OrganizationSpec[] = [
  { name: 'enterprise-1', plan: 'enterprise', keys: 16, requests: 700, overdrawWrites: 10 },
  { name: 'enterprise-2', plan: 'enterprise', keys: 16, requests: 700 },
  { name: 'enterprise-3', plan: 'enterprise', keys: 16, requests: 700 },
  { name: 'pro', plan: 'pro', keys: 3, requests: 300 },
  { name: 'free', plan: 'free', keys: 1, requests: 60 },
];

const QUICK: readonly OrganizationSpec[] = [
  { name: 'enterprise-1', plan: 'enterprise', keys: 4, requests: 150, overdrawWrites: 5 },
  { name: 'pro', plan: 'pro', keys: 2, requests: 120 },
  { name: 'free', plan: 'free', keys: 1, requests: 30 },
];

const CONCURRENCY = 50;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** `svc …` in this process, against the running service's DynamoDB; its JSON output. */
async function svc(args: string[], env: Record<string, string>): Promise<Record<string, any>> {
  const lines: string[] = [];
  const code = await runCli([...args, '--json'], { out: (line) => lines.push(line), env });
  if (code !== 0) throw new Error(`svc ${args.join(' ')}: exit ${code}: ${lines.join('\n')}`);
  return JSON.parse(lines.join('\n'));
}

const fixed = (ms: number) => (Number.isNaN(ms) ? '—' : ms.toFixed(0));
const count = (n: number) => n.toLocaleString('en-US');

export function renderMixedLoadSection(report: {
  readonly date: string;
  readonly machine: Machine;
  readonly command: string;
  readonly durationSeconds: number;
  readonly loadAverage: { readonly before: number; readonly after: number };
  readonly specs: readonly OrganizationSpec[];
  readonly result: MixedLoadResult;
  readonly refusals: readonly ExpectedRefusals[];
}): string {
  const { machine, result } = report;
  const rows = tally(result.outcomes);
  const total = rows.reduce(
    (sum, row) => ({
      requests: sum.requests + row.requests,
      ok: sum.ok + row.ok,
      tooMany: sum.tooMany + row.tooMany,
      other: sum.other + row.otherClientErrors,
      server: sum.server + row.serverErrors,
    }),
    { requests: 0, ok: 0, tooMany: 0, other: 0, server: 0 },
  );
  const seconds = (result.endedAt - result.startedAt) / 1000;
  const kindRows = [
    ...rows.map((row) => [
      row.kind,
      count(row.requests),
      count(row.ok),
      count(row.tooMany),
      count(row.otherClientErrors),
      count(row.serverErrors),
      fixed(row.p50Ms),
      fixed(row.p99Ms),
    ]),
    [
      'all',
      count(total.requests),
      count(total.ok),
      count(total.tooMany),
      count(total.other),
      count(total.server),
      '—',
      '—',
    ],
  ];
  const orgRows = report.refusals.map((row) => {
    const spec = report.specs.find((candidate) => candidate.name === row.org);
    return [
      row.org,
      row.plan,
      String(spec?.keys ?? 0),
      count(row.sent),
      count(row.refused),
      row.expectedMin === row.expectedMax
        ? count(row.expectedMin)
        : `${count(row.expectedMin)}–${count(row.expectedMax)}`,
      count(result.concurrencyRetries.get(row.org) ?? 0),
    ];
  });
  return `## Mixed load (issue 13)

Measured ${report.date} with \`${report.command}\` in ${report.durationSeconds.toFixed(0)} s on ${machine.cpu}
(${machine.cores} cores, ${machine.memoryGiB.toFixed(1)} GiB, ${machine.os}, Node ${machine.node}); load average
${report.loadAverage.before.toFixed(2)} before the run and ${report.loadAverage.after.toFixed(2)} after it.
The load itself took ${seconds.toFixed(1)} s (${(total.requests / seconds).toFixed(0)} responses/s), ${CONCURRENCY} requests at a time.

${table(['Kind', 'Requests', '2xx', '429', 'Other 4xx', '5xx', 'p50 ms', 'p99 ms'], kindRows)}

${table(['Organization', 'Plan', 'Keys', 'Sent', '429', '429 the limits allow', 'Concurrency refusals retried'], orgRows)}

**What is measured.** \`npm start\` runs as a child process on a fresh
temporary data directory, background workers on; organizations and Admin
keys are made with the admin CLI. Each organization first creates an agent
and a file data source (2 requests, counted in its limits), then
${CONCURRENCY} workers send the shuffled requests of every organization:
\`read\` (\`GET /api/v1/agents\`, \`GET /api/v1/agents/:id\`), \`write\`
(\`POST /api/v1/agents\`), \`query\` (\`POST /api/v1/query\`, offline model),
\`search\` (\`POST /api/v1/semantic-search\`), \`upload\` (\`POST …/files\`, then
its presigned upload, \`upload-body\`, 1.4 KB, ingested in the background).
Latency is from sending a request to its whole response, on one client
process sharing the machine with the service. A 429 for \`concurrency\` (pro
10, free 2 at once, D31) is retried after a jittered pause and counted in the
last column; it charges nothing (P59), so every request ends 2xx or with a
429 for a limit that stays spent. **Limits exactly**: an organization admits
min(Σ over its keys and scopes of min(sent, bucket), plan cap), whatever the
order of arrival (P106); buckets refill during the run and a run may cross
a minute, so the allowed 429s are a range from every refill and minute
counted to none (\`test/e2e/mixed-load.test.ts\` checks the exact figure on a
frozen clock). The plan's minute is then checked minute by minute: no minute
holds more admitted requests (sent and answered within it) than the plan
allows, and every \`plan_rate\` refusal overlaps a minute where the plan may
have been full. The organizations with a plan cap within reach are sent first,
each request beside one of the others'. The enterprise organizations stay
within every limit but one key of \`enterprise-1\`, which overdraws its Write
bucket (15) by 10. Responses are slow here because the machine was shared:
its load average says how much.`;
}

export async function runMixedLoadBench(options: {
  readonly quick: boolean;
  readonly only: boolean;
  readonly document: string;
}): Promise<void> {
  const { quick, only } = options;
  const specs = quick ? QUICK : FULL;
  const log = (line: string) => console.log(`[bench] ${line}`);
  const started = performance.now();
  const loadBefore = loadavg()[0] ?? 0;
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-mixed-load-'));
  const [port, dynamoPort] = [await freePort(), await freePort()];
  const env = {
    SVC_DATA_DIR: dataDir,
    PORT: String(port),
    SVC_DYNAMODB_PORT: String(dynamoPort),
    HOST: '127.0.0.1',
  };
  const url = `http://127.0.0.1:${port}`;
  log(`mixed load: npm start on ${url}, data in ${dataDir}`);
  const server = start(ENTRY_POINTS.start, [], env);
  let result: MixedLoadResult;
  try {
    await server.waitFor(/Press Ctrl-C to stop/, 120_000);
    const organizations: LoadOrganization[] = [];
    for (const spec of specs) {
      const org = await svc(['orgs', 'create', '--name', spec.name, '--plan', spec.plan], env);
      const keys: string[] = [];
      for (let i = 0; i < spec.keys; i += 1) {
        keys.push((await svc(['keys', 'create', '--org', org.id, '--scopes', 'Admin'], env)).key);
      }
      organizations.push({
        name: spec.name,
        plan: spec.plan,
        orgId: org.id,
        keys,
        requests: spec.requests,
        ...(spec.overdrawWrites ? { overdrawWrites: spec.overdrawWrites } : {}),
      });
    }
    const prepared = await prepareOrganizations(url, organizations);
    log(
      `${specs.reduce((sum, spec) => sum + spec.requests + (spec.overdrawWrites ?? 0), 0)} requests, concurrency ${CONCURRENCY}`,
    );
    result = await runMixedLoad({ url, organizations: prepared, concurrency: CONCURRENCY });
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const refusals = expectedRefusals(result, 'real');
  const section = renderMixedLoadSection({
    date: new Date().toISOString().slice(0, 10),
    machine: describeMachine(),
    command: benchCommand('mixed-load', { quick, only }),
    durationSeconds: (performance.now() - started) / 1000,
    loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 },
    specs,
    result,
    refusals,
  });
  console.log(`\n${section}`);

  const problems = [
    ...tally(result.outcomes)
      .filter((row) => row.serverErrors > 0 || row.otherClientErrors > 0)
      .map(
        (row) =>
          `${row.kind}: ${row.serverErrors} 5xx, ${row.otherClientErrors} 4xx other than 429`,
      ),
    ...planMinuteViolations(result),
    ...refusals
      .filter((row) => row.refused < row.expectedMin || row.refused > row.expectedMax)
      .map(
        (row) =>
          `${row.org}: ${row.refused} 429s, the limits allow ${row.expectedMin}–${row.expectedMax}`,
      ),
  ];
  if (problems.length > 0) {
    throw new Error(`mixed load: ${problems.join('; ')}; docs/benchmarks.md left as it was`);
  }
  if (quick) {
    log('quick run: docs/benchmarks.md left as it was');
    return;
  }
  writeSection(options.document, 'mixed-load', section);
  log(`wrote the mixed-load section of ${options.document}`);
}
