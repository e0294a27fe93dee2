/**
 * The `ingestion-and-streaming` section of `npm run bench` (issue 3:
 * "ingestion throughput (pages/s and chunks/s on a local site), and query
 * time to first streamed byte with the offline model").
 *
 * The real local runtime in memory (startTestService, loopback crawling
 * allowed) crawls a generated site served by node:http on 127.0.0.1: pages
 * of a few paragraphs each, linked to one another and listed in a sitemap.
 * A website data source is created and synced through the HTTP API; the sync
 * worker (`runtime.workers.stepSync()`) is timed end to end. Then an agent on
 * that data source is asked varied questions over HTTP with `stream: true`,
 * one at a time: time to the first byte of the response body and to the end
 * of the stream (the `done` event). Deterministic site and questions.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { table } from '../support/markdown-table';
import { benchCommand, writeSection } from './benchmarks-doc';
import { describeMachine, type Machine } from './machine';
import { measurePersistedSync, type PersistedSyncResult } from './persisted-sync';
import { type LatencySummary, summarize } from './stats';

export interface IngestionStreamingSettings {
  readonly pages: number;
  readonly paragraphsPerPage: number;
  readonly warmupQueries: number;
  readonly queries: number;
  /** The sync is abandoned (the run fails) after this long. */
  readonly syncBudgetMs: number;
  /** Issue 10 item 6: pages of the site synced by `npm start` with its data on disk. */
  readonly persistedPages: number;
  /** Then files presigned by one batch request (P108), uploaded and ingested by that runtime. */
  readonly uploadFiles: number;
  /** The persisted sync and the uploads are each abandoned after this long. */
  readonly persistedBudgetMs: number;
}

/** Queries stay under the Execute burst (120) of one key: no request is throttled. */
const FULL: IngestionStreamingSettings = {
  pages: 1_000,
  paragraphsPerPage: 4,
  warmupQueries: 10,
  queries: 100,
  syncBudgetMs: 40_000,
  persistedPages: 3_000,
  uploadFiles: 100,
  persistedBudgetMs: 300_000,
};

const QUICK: IngestionStreamingSettings = {
  ...FULL,
  pages: 60,
  queries: 30,
  persistedPages: 200,
  uploadFiles: 20,
};

const PRODUCTS = [
  'harbor kettle',
  'summit backpack',
  'meadow lamp',
  'canyon tent',
  'willow chair',
  'ember stove',
  'glacier bottle',
  'prairie blanket',
  'delta speaker',
  'orchard grinder',
  'tundra jacket',
  'lagoon kayak',
  'basalt skillet',
  'aurora headlamp',
  'cedar shelf',
] as const;

const TOPICS = [
  { aspect: 'cleaning', verb: 'clean', detail: 'a soft cloth and warm soapy water' },
  { aspect: 'assembly', verb: 'assemble', detail: 'the hex key that ships in the box' },
  { aspect: 'storage', verb: 'store', detail: 'a dry shelf away from direct sunlight' },
  { aspect: 'repair', verb: 'repair', detail: 'the spare parts kit sold separately' },
  { aspect: 'warranty', verb: 'register', detail: 'the serial number printed under the base' },
  { aspect: 'shipping', verb: 'ship', detail: 'the original padded carton' },
  { aspect: 'charging', verb: 'charge', detail: 'the braided cable and a 20 watt adapter' },
  { aspect: 'recycling', verb: 'recycle', detail: 'the drop-off points listed by your city' },
  { aspect: 'sizing', verb: 'measure', detail: 'a tape measure along the longest side' },
  { aspect: 'safety', verb: 'inspect', detail: 'a quick look at every seam and joint' },
  { aspect: 'travel', verb: 'pack', detail: 'the compression strap on the side' },
  { aspect: 'maintenance', verb: 'service', detail: 'a yearly check at an authorized shop' },
  { aspect: 'returns', verb: 'return', detail: 'the prepaid label from your account page' },
  { aspect: 'customization', verb: 'engrave', detail: 'the engraving form at checkout' },
  { aspect: 'accessories', verb: 'extend', detail: 'the matching accessory pack' },
  { aspect: 'winterizing', verb: 'winterize', detail: 'a breathable cover for the cold months' },
  { aspect: 'troubleshooting', verb: 'reset', detail: 'the pinhole button for ten seconds' },
  { aspect: 'setup', verb: 'set up', detail: 'the quick start card inside the lid' },
  { aspect: 'upgrades', verb: 'upgrade', detail: 'the trade-in program for older models' },
  { aspect: 'cleaning tools', verb: 'scrub', detail: 'a nylon brush rather than steel wool' },
] as const;

const COLORS = ['slate', 'coral', 'olive', 'sand', 'indigo', 'rust', 'pearl'] as const;

interface SitePage {
  readonly path: string;
  readonly title: string;
  readonly html: string;
  readonly question: string;
}

function pick<T>(list: readonly T[], n: number): T {
  const item = list[n % list.length];
  if (item === undefined) throw new Error('empty list');
  return item;
}

/** Page `n`: one product and one topic, a few paragraphs, links to its neighbors. */
function sitePage(
  n: number,
  settings: Pick<IngestionStreamingSettings, 'pages' | 'paragraphsPerPage'>,
): SitePage {
  const product = pick(PRODUCTS, n);
  const topic = pick(TOPICS, Math.floor(n / PRODUCTS.length));
  const color = pick(COLORS, n);
  const minutes = 5 + (n % 40);
  const days = 14 + (n % 17);
  const edition = 2018 + (n % 8);
  const title = `The ${product} ${edition} edition: ${topic.aspect} guide`;
  const paragraphs = [
    `This guide explains ${topic.aspect} for the ${color} ${product} of the ${edition} edition. To ${topic.verb} it you need ${topic.detail}. Most owners finish in about ${minutes} minutes.`,
    `Before you ${topic.verb} the ${product}, unplug every cable and empty any pockets or compartments. Check the label on the underside: the model code starts with ${product.slice(0, 3).toUpperCase()}-${edition}. Older codes follow the steps of the previous edition instead.`,
    `If something goes wrong while you ${topic.verb} the ${product}, stop and contact support within ${days} days of noticing the problem. Keep photos of the ${color} finish and of the model code, because they speed up every claim we handle.`,
    `Owners of the ${product} often ask whether ${topic.aspect} affects the warranty. It does not, as long as you use ${topic.detail} and follow the order of the steps above. Damage from other tools is not covered.`,
    `The ${product} also comes in other colors than ${color}; the ${topic.aspect} steps are the same for each of them. Limited editions may have a different finish that needs gentler handling.`,
  ].slice(0, settings.paragraphsPerPage);
  const links = [1, 2, 3].map((step) => `/guides/${(n + step) % settings.pages}`);
  const html = `<!doctype html><html><head><title>${title}</title></head><body>
<nav><a href="/">Home</a></nav>
<main><h1>${title}</h1>
${paragraphs.map((text) => `<p>${text}</p>`).join('\n')}
<h2>Related guides</h2>
<ul>${links.map((href) => `<li><a href="${href}">${href}</a></li>`).join('')}</ul>
</main></body></html>`;
  const questions = [
    `How do I ${topic.verb} the ${color} ${product}?`,
    `What do I need for ${topic.aspect} of the ${product} ${edition} edition?`,
    `How long does ${topic.aspect} of the ${product} take?`,
    `Does ${topic.aspect} affect the warranty of the ${product}?`,
  ];
  return { path: `/guides/${n}`, title, html, question: pick(questions, n) };
}

export interface GeneratedSite {
  readonly origin: string;
  readonly pages: readonly SitePage[];
  /** Requests the site answered. */
  requests(): number;
  close(): Promise<void>;
}

export async function startSite(
  settings: Pick<IngestionStreamingSettings, 'pages' | 'paragraphsPerPage'>,
): Promise<GeneratedSite> {
  const pages = Array.from({ length: settings.pages }, (_, n) => sitePage(n, settings));
  const byPath = new Map(pages.map((page) => [page.path, page.html]));
  let origin = '';
  let requests = 0;
  const server: Server = createServer((request, res) => {
    requests += 1;
    const path = request.url ?? '/';
    if (path === '/robots.txt') {
      res
        .writeHead(200, { 'Content-Type': 'text/plain' })
        .end(`User-agent: *\nAllow: /\nSitemap: ${origin}/sitemap.xml\n`);
      return;
    }
    if (path === '/sitemap.xml') {
      const urls = ['/', ...pages.map((page) => page.path)]
        .map((p) => `<url><loc>${origin}${p}</loc></url>`)
        .join('');
      res
        .writeHead(200, { 'Content-Type': 'application/xml' })
        .end(
          `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`,
        );
      return;
    }
    if (path === '/') {
      const list = pages.map((page) => `<li><a href="${page.path}">${page.title}</a></li>`);
      res
        .writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
        .end(
          `<!doctype html><html><head><title>Product guides</title></head><body><main><h1>Product guides</h1><p>Guides for every product we make, one topic each.</p><ul>${list.join('')}</ul></main></body></html>`,
        );
      return;
    }
    const html = byPath.get(path);
    if (html === undefined) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    pages,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface IngestionResult {
  readonly pagesServed: number;
  readonly documents: number;
  readonly chunks: number;
  readonly syncSeconds: number;
  readonly workerRounds: number;
}

export interface StreamingResult {
  readonly ttfb: LatencySummary;
  readonly total: LatencySummary;
  readonly answersWithCitations: number;
  readonly nonOk: number;
}

async function expectStatus(
  label: string,
  response: Awaited<ReturnType<typeof api>>,
  status: number,
): Promise<Record<string, any>> {
  if (response.status !== status) {
    throw new Error(`${label}: expected ${status}, got ${response.status} ${response.text}`);
  }
  return json(response);
}

async function ingest(
  service: TestService,
  site: GeneratedSite,
  settings: IngestionStreamingSettings,
  log: (line: string) => void,
): Promise<{ result: IngestionResult; dataSourceId: string }> {
  const key = service.adminKey;
  const source = await expectStatus(
    'create the data source',
    await api(service.url, '/api/v1/data-sources', {
      method: 'POST',
      key,
      body: {
        type: 'website',
        name: 'Generated guides',
        config: { url: `${site.origin}/`, max_pages: settings.pages + 1 },
        sync_frequency: 'manual',
      },
    }),
    201,
  );
  const dataSourceId = String(source.id);
  await expectStatus(
    'request a sync',
    await api(service.url, `/api/v1/data-sources/${dataSourceId}/sync`, { method: 'POST', key }),
    202,
  );
  const servedBefore = site.requests();
  const started = performance.now();
  let rounds = 0;
  let status: Record<string, any> = {};
  for (;;) {
    rounds += 1;
    const consumed = await service.runtime.workers.stepSync();
    status = await expectStatus(
      'sync status',
      await api(service.url, `/api/v1/data-sources/${dataSourceId}/status`, { key }),
      200,
    );
    if (status.job_status === 'succeeded' || status.job_status === 'failed') break;
    if (consumed === 0 && rounds > 1) break;
    if (performance.now() - started > settings.syncBudgetMs) {
      throw new Error(`the sync did not finish within ${settings.syncBudgetMs} ms`);
    }
  }
  const syncSeconds = (performance.now() - started) / 1000;
  if (status.job_status !== 'succeeded') {
    throw new Error(`the sync ended ${JSON.stringify(status)}`);
  }
  const result: IngestionResult = {
    pagesServed: site.requests() - servedBefore,
    documents: Number(status.documents_processed ?? status.documents_total ?? Number.NaN),
    chunks: Number(status.chunks_indexed),
    syncSeconds,
    workerRounds: rounds,
  };
  log(
    `sync: ${result.documents} documents, ${result.chunks} chunks in ${syncSeconds.toFixed(2)} s (${result.pagesServed} requests served)`,
  );
  return { result, dataSourceId };
}

/** One streamed query: ms to the first body byte and to the end of the stream. */
async function streamedQuery(
  service: TestService,
  agentId: string,
  question: string,
): Promise<{ ok: boolean; ttfbMs: number; totalMs: number; cited: boolean }> {
  const started = performance.now();
  const response = await fetch(`${service.url}/api/v1/query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ agent_id: agentId, query: question, stream: true }),
  });
  const reader = response.body?.getReader();
  if (!reader) throw new Error('a streamed query answered without a body');
  const decoder = new TextDecoder();
  let ttfbMs = Number.NaN;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (value.length > 0 && Number.isNaN(ttfbMs)) ttfbMs = performance.now() - started;
    text += decoder.decode(value, { stream: true });
  }
  const totalMs = performance.now() - started;
  const isStream = (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
  const ok = response.status === 200 && isStream && /(^|\n)event: done\n/.test(text);
  return { ok, ttfbMs, totalMs, cited: /\[\d+\]/.test(text) };
}

async function measureStreaming(
  service: TestService,
  site: GeneratedSite,
  dataSourceId: string,
  settings: IngestionStreamingSettings,
  log: (line: string) => void,
): Promise<StreamingResult> {
  const agent = await expectStatus(
    'create the agent',
    await api(service.url, '/api/v1/agents', {
      method: 'POST',
      key: service.adminKey,
      body: { name: 'Guide desk', data_source_ids: [dataSourceId] },
    }),
    201,
  );
  const ttfb: number[] = [];
  const total: number[] = [];
  let nonOk = 0;
  let cited = 0;
  const count = settings.warmupQueries + settings.queries;
  for (let n = 0; n < count; n += 1) {
    // A stride through the pages: consecutive questions ask about different products and topics.
    const page = site.pages[(n * 37) % site.pages.length];
    if (!page) throw new Error('no page to ask about');
    const result = await streamedQuery(service, String(agent.id), page.question);
    if (!result.ok) nonOk += 1;
    if (n < settings.warmupQueries) continue;
    ttfb.push(result.ttfbMs);
    total.push(result.totalMs);
    if (result.cited) cited += 1;
  }
  const summary: StreamingResult = {
    ttfb: summarize(ttfb),
    total: summarize(total),
    answersWithCitations: cited,
    nonOk,
  };
  log(
    `streamed queries: TTFB p50 ${summary.ttfb.p50Ms.toFixed(1)} ms, p95 ${summary.ttfb.p95Ms.toFixed(1)} ms; total p50 ${summary.total.p50Ms.toFixed(1)} ms, p95 ${summary.total.p95Ms.toFixed(1)} ms`,
  );
  return summary;
}

const ms = (value: number) => value.toFixed(1);

export function renderIngestionStreamingSection(report: {
  readonly date: string;
  readonly machine: Machine;
  readonly command: string;
  readonly durationSeconds: number;
  readonly loadAverage: { readonly before: number; readonly after: number };
  readonly settings: IngestionStreamingSettings;
  readonly ingestion: IngestionResult;
  readonly streaming: StreamingResult;
  readonly persisted: PersistedSyncResult;
  readonly persistedLoad: { readonly before: number; readonly after: number };
}): string {
  const { machine, settings, ingestion, streaming, persisted } = report;
  const persistedRows = [
    [
      persisted.documents.toLocaleString('en-US'),
      persisted.chunks.toLocaleString('en-US'),
      persisted.jobSeconds.toFixed(2),
      (persisted.documents / persisted.jobSeconds).toFixed(1),
      ((persisted.cpuSeconds * 1000) / persisted.documents).toFixed(2),
      `${report.persistedLoad.before.toFixed(2)} → ${report.persistedLoad.after.toFixed(2)}`,
    ],
  ];
  const upload = persisted.upload;
  const uploadRows = upload
    ? [
        [
          String(upload.files),
          upload.chunks.toLocaleString('en-US'),
          upload.presignMs.toFixed(0),
          upload.seconds.toFixed(2),
          (upload.files / upload.seconds).toFixed(1),
        ],
      ]
    : [];
  const ingestionRows = [
    [
      ingestion.documents.toLocaleString('en-US'),
      ingestion.chunks.toLocaleString('en-US'),
      ingestion.syncSeconds.toFixed(2),
      (ingestion.documents / ingestion.syncSeconds).toFixed(1),
      (ingestion.chunks / ingestion.syncSeconds).toFixed(1),
    ],
  ];
  const latencyRows = (
    [
      ['first byte of the body', streaming.ttfb],
      ['end of the stream (`done`)', streaming.total],
    ] as const
  ).map(([label, latency]) => [
    label,
    ms(latency.p50Ms),
    ms(latency.p95Ms),
    ms(latency.p99Ms),
    ms(latency.maxMs),
    ms(latency.meanMs),
  ]);
  return `## Ingestion throughput and streamed query latency

Written by \`${report.command}\` (test/bench/ingestion-and-streaming.ts) on ${report.date};
the run took ${report.durationSeconds.toFixed(0)} s. Rerun it rather than editing these figures.

**Machine**: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB.toFixed(1)} GiB RAM,
${machine.os}, Node.js ${machine.node}. 1-minute load average
${report.loadAverage.before.toFixed(2)} before the run and ${report.loadAverage.after.toFixed(2)} after it.

### Ingestion of a local site (one sync, end to end)

${table(['Pages indexed', 'Chunks indexed', 'Sync s', 'Pages/s', 'Chunks/s'], ingestionRows)}

### The same kind of site synced by \`npm start\`, data on disk (issue 10 item 6)

${table(['Pages indexed', 'Chunks indexed', 'Job s', 'Pages/s', 'CPU ms a page', '1-min load (before → after)'], persistedRows)}

${settings.uploadFiles} files presigned by one batch request (P108) to the same runtime, each sent to its
ticket (the presigned form upload) and ingested:

${table(['Files', 'Chunks', 'Presign ms (one request)', 'Until all indexed, s', 'Files/s'], uploadRows)}

### Streamed query (${settings.queries} sequential queries after ${settings.warmupQueries} of warm-up)

${table(['Time to', 'p50 ms', 'p95 ms', 'p99 ms', 'Max ms', 'Mean ms'], latencyRows)}

${streaming.answersWithCitations} of the ${settings.queries} measured answers cite a source.

**What is measured.** The real local runtime in memory (\`startTestService\`:
dynalite, the HTTP gateway, the handlers, the embedded index; loopback
crawling allowed), on one machine with the site it crawls. The site is
generated and served by \`node:http\` on 127.0.0.1: ${settings.pages} guide pages of
${settings.paragraphsPerPage} short paragraphs each plus a home page linking
to all of them, every page linking to three others, all listed in a sitemap
named by robots.txt (no crawl delay). A website data source is created and a
sync requested over the HTTP API; the sync time is the sync worker
(\`runtime.workers.stepSync()\`, ${ingestion.workerRounds} round${ingestion.workerRounds === 1 ? '' : 's'}) from the start of the job to its
\`succeeded\` status: robots.txt, sitemap, fetching (the crawler's default
concurrency of 4), parsing, chunking, offline embedding
(\`offline-hash-v1/384\`) and indexing. Pages are the status endpoint's
documents processed and chunks its \`chunks_indexed\`. Then an agent on that
data source (the defaults: \`hybrid\`, \`offline-extractive\`) is asked one
question at a time over HTTP with \`stream: true\`, each about a different
page's product and topic. "First byte" is when the first bytes of the
response body arrive (the \`sources\` event: retrieval is done by then); "end
of the stream" is when the body ends after the \`done\` event. The offline
answerer generates no tokens over time, so the gap between the two is the
answer's composition and the interaction's recording, not a model's speed.

**The persisted sync.** \`npm start\` (tsx bin/local.ts, its own process, with
its background workers on their default 200 ms interval) on a fresh
SVC_DATA_DIR in a temporary directory: dynalite on LevelDB, the embedded
index's snapshot and log (every write flushed with fdatasync before it
counts), the local queues in DynamoDB. It syncs a generated site of
${settings.persistedPages.toLocaleString('en-US')} pages like the one above;
the bench only talks HTTP to it and polls the status endpoint once a second.
"Job s" is the job's own \`started_at\` to \`finished_at\`. "CPU ms a page" is the
CPU time (user + system, from /proc) of the service's processes (the runtime
and its parsing process, which parses the pages and chunks the documents,
P201, and starts with the sync's first page: its start, about a CPU second,
is counted) during the sync, divided by the pages: it depends
far less than pages/s on what else the machine runs (contention still inflates it). The machine this
ran on is shared (see the load average): pages/s there is the share of two
cores the service got, and CPU ms a page is what a page costs.`;
}

/**
 * Measures, prints, and (unless `quick`) writes the section. `only`: the
 * command ran this section alone.
 */
export async function runIngestionStreamingBench(options: {
  readonly quick: boolean;
  readonly only: boolean;
  readonly document: string;
}): Promise<void> {
  const settings = options.quick ? QUICK : FULL;
  const log = (line: string) => console.log(`[bench] ${line}`);
  const started = performance.now();
  const loadBefore = loadavg()[0] ?? 0;
  log(
    `ingestion and streaming: ${settings.pages} pages, ${settings.queries} queries${options.quick ? ' (quick)' : ''}`,
  );
  const loadBeforeInMemory = loadBefore;
  const [service, site] = await Promise.all([
    startTestService({ env: { SVC_ALLOW_PRIVATE_URLS: 'true' } }),
    startSite(settings),
  ]);
  let ingestion: IngestionResult;
  let streaming: StreamingResult;
  try {
    const ingested = await ingest(service, site, settings, log);
    ingestion = ingested.result;
    streaming = await measureStreaming(service, site, ingested.dataSourceId, settings, log);
  } finally {
    await service.end();
    await site.close();
  }
  const persistedLoadBefore = loadavg()[0] ?? 0;
  log(
    `persisted (npm start): ${settings.persistedPages} pages, then ${settings.uploadFiles} files in one batch`,
  );
  const persistedSite = await startSite({
    pages: settings.persistedPages,
    paragraphsPerPage: settings.paragraphsPerPage,
  });
  let persisted: PersistedSyncResult;
  try {
    persisted = await measurePersistedSync(persistedSite, {
      pages: settings.persistedPages,
      budgetMs: settings.persistedBudgetMs,
      uploadFiles: settings.uploadFiles,
      log,
    });
  } finally {
    await persistedSite.close();
  }
  const persistedLoad = { before: persistedLoadBefore, after: loadavg()[0] ?? 0 };
  const { quick, only } = options;
  const section = renderIngestionStreamingSection({
    date: new Date().toISOString().slice(0, 10),
    machine: describeMachine(),
    command: benchCommand('ingestion-and-streaming', { quick, only }),
    durationSeconds: (performance.now() - started) / 1000,
    loadAverage: { before: loadBeforeInMemory, after: loadavg()[0] ?? 0 },
    settings,
    ingestion,
    streaming,
    persisted,
    persistedLoad,
  });
  console.log(`\n${section}`);
  if (streaming.nonOk > 0) {
    throw new Error(
      `${streaming.nonOk} streamed queries were not a 200 event stream ending in done; docs/benchmarks.md left as it was`,
    );
  }
  if (quick) {
    log('quick run: docs/benchmarks.md left as it was');
    return;
  }
  writeSection(options.document, 'ingestion-and-streaming', section);
  log(`wrote the ingestion-and-streaming section of ${options.document}`);
}
