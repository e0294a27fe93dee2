import { table } from '../support/markdown-table';
import type { Machine } from './machine';
import {
  type ArrivalCheck,
  exactlyOnce,
  type WebhookBenchResult,
  type WebhookBenchSettings,
} from './webhook-delivery';

export interface WebhooksReport {
  readonly date: string;
  readonly machine: Machine;
  readonly command: string;
  readonly durationSeconds: number;
  readonly loadAverage: { readonly before: number; readonly after: number };
  readonly settings: WebhookBenchSettings;
  readonly result: WebhookBenchResult;
}

const count = (value: number) => value.toLocaleString('en-US');
const ms = (value: number) => value.toFixed(0);
const seconds = (value: number) => `${(value / 1000).toFixed(1)} s`;

function checkCells(check: ArrivalCheck): string[] {
  return [
    count(check.received),
    String(check.missing),
    String(check.duplicates),
    String(check.unexpected),
    String(check.badSignatures),
  ];
}

const CHECK_HEADER = ['Received', 'Missing', 'Duplicates', 'Unexpected', 'Bad signatures'];

/** Everything arrived once, verified, and the service recorded every delivery as delivered. */
export function allDeliveredOnce(result: WebhookBenchResult): boolean {
  const produced =
    result.backlog.check.produced +
    result.paced.reduce((sum, phase) => sum + phase.check.produced, 0);
  const { delivered = 0, ...others } = result.recorded;
  return (
    exactlyOnce(result) &&
    delivered === produced &&
    Object.values(others).every((value) => value === 0)
  );
}

/** The `webhooks` section of docs/benchmarks.md, Markdown. */
export function renderWebhooksSection(report: WebhooksReport): string {
  const { machine, settings, result } = report;
  const { backlog } = result;
  const produced =
    backlog.check.produced + result.paced.reduce((sum, phase) => sum + phase.check.produced, 0);
  const recorded = Object.entries(result.recorded)
    .map(([status, value]) => `${status} ${count(value)}`)
    .join(', ');
  const intervals = settings.workerIntervalsMs.map((interval) => `${interval} ms`).join(' and ');
  return `## Webhook delivery: local dispatcher

Written by \`${report.command}\` (test/bench/run.ts, test/bench/webhook-delivery.ts) on
${report.date}; this section took ${report.durationSeconds.toFixed(0)} s. Rerun it rather than editing these figures.

**Machine**: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB.toFixed(1)} GiB RAM,
${machine.os}, Node.js ${machine.node}. 1-minute load average
${report.loadAverage.before.toFixed(2)} before this section and ${report.loadAverage.after.toFixed(2)} after it (this section itself
accounts for about 1; more means other work shared the machine and slowed these figures).

**Every event arrived exactly once: ${allDeliveredOnce(result) ? 'yes' : '**NO**'}.** ${count(produced)} events
produced, each delivered once and verified with both signatures (\`verifyDelivery\`,
the checks of docs/webhooks.md); the service recorded its deliveries as ${recorded}.

### Throughput: a backlog of ${count(backlog.check.produced)} events

${table(
  [
    'Events',
    'Committed in',
    'Worker interval',
    'Drained in',
    'Deliveries/s',
    'DynamoDB calls/delivery',
    ...CHECK_HEADER,
  ],
  [
    [
      count(backlog.check.produced),
      seconds(backlog.produceMs),
      `${backlog.intervalMs} ms`,
      seconds(backlog.drainMs),
      backlog.deliveriesPerSecond.toFixed(1),
      backlog.dynamoDbCallsPerDelivery.toFixed(1),
      ...checkCells(backlog.check),
    ],
  ],
)}

${count(settings.backlogAgents)} agents created and each renamed once (\`agent.created\` and
\`agent.updated\`), by ${settings.producers} concurrent producers calling the use cases, before
the workers' timer was started (the runtime ran with \`SVC_WORKER_INTERVAL_MS=0\`);
then it was started at ${backlog.intervalMs} ms and the clock ran until the last delivery was
received. Deliveries/s is events delivered over that time; DynamoDB
calls/delivery counts every call in that time (tables and local queue), the
idle polling of the sweep and the queues included.

### Lag: from commit to receipt, ${settings.pacedRatePerSecond} events/s

${table(
  [
    'Worker interval',
    'Events',
    'p50 ms',
    'p95 ms',
    'p99 ms',
    'Max ms',
    'Mean ms',
    'Measured for',
    ...CHECK_HEADER,
  ],
  result.paced.map((phase) => [
    `${phase.intervalMs} ms`,
    count(phase.check.produced),
    ms(phase.lag.p50Ms),
    ms(phase.lag.p95Ms),
    ms(phase.lag.p99Ms),
    ms(phase.lag.maxMs),
    ms(phase.lag.meanMs),
    seconds(phase.elapsedMs),
    ...checkCells(phase.check),
  ]),
)}

Events produced at a steady ${settings.pacedRatePerSecond} per second (alternately an agent created and
that agent renamed) while the workers ran at ${intervals} (\`SVC_WORKER_INTERVAL_MS\`;
\`npm start\`'s default is 200 ms). Lag is the receiver's clock at the end of the
body minus the envelope's \`timestamp\`, which the use case stamps just before
its write commits: it spans waiting for the next worker round, the outbox
sweep, the fan-out to a delivery and the queue, the dispatcher's attempt
and the POST. Both clocks are this machine's wall clock, in milliseconds.

**What is measured.** The real local runtime (\`startLocalRuntime\` in memory, as
\`npm start\` runs it, with \`SVC_ALLOW_PRIVATE_URLS=true\` so it may deliver to
loopback), started afresh for each phase (in ${Math.round(result.setupMs)} ms): the background
workers' own timer, started once per runtime, runs the outbox sweep
(\`publishPending\`) and the deliveries consumer, which calls the
webhook-dispatcher Lambda's handler export with SQS-shaped batches of 10 from
the local queue; each attempt reads the delivery and the webhook, opens the
webhook's sealed secret (envelope encryption, about ${result.secretOpenMs.toFixed(1)} ms of CPU each on this machine),
signs, POSTs over a fresh loopback connection, and records the attempt. One
webhook in one enterprise organization subscribes to \`agent.created\` and
\`agent.updated\`. The receiver runs in a worker thread (its own event loop, as a
subscriber's server would), answers \`200\` at once, and keeps every body and
header; after the run each delivery is verified and matched to the change
that caused it (missing, duplicate and unexpected deliveries are counted).
The changes are made by calling the agent use cases directly, not over HTTP:
the event path from the commit is the same either way (the handler calls the
same use case), the HTTP cost is the foundation section's subject, and
${count(produced)} writes over HTTP in under a minute would need about ${Math.ceil(produced / 15)} Write keys (a
Write key's burst is 15). The section is bounded to ${seconds(settings.budgetMs)}: the backlog waits for its
deliveries only as long as leaves the paced phases their time, and each
paced phase at most ${seconds(settings.pacedTailMs)} after its last event; a delivery later than that would
show as missing and fail the bench.

**What is not measured.** Everything runs on one Node.js event loop —
dynalite, the outbox sweep, the dispatcher and the producers — so throughput
is bounded by the CPU each delivery costs there (the DynamoDB calls above,
each serialized by the SDK and executed by dynalite in JavaScript, and the
secret's decryption), and lag under load is mostly queueing on that loop. In
the cloud the publisher is fed by the table's DynamoDB stream instead of a
timer, the dispatcher is SQS-triggered Lambda with its own concurrency, and
each DynamoDB call is a network round trip; receivers are across the
internet over TLS, not loopback. Retries, slow or failing receivers and
timeouts were not exercised here (test/e2e covers their behaviour, not their
speed). These figures compare local runs with each other, not with
production.
`;
}
