/**
 * The `console` section of `npm run bench` (issue 21 item 11: "bundle sizes
 * (the sign-in page and shell at most 80 KB of gzipped JavaScript; each
 * screen separately), build time, and on the local runtime the time from
 * "Ask" to the first streamed words and to the last").
 *
 * Build time: `node web/build.mjs` in a process of its own, as `npm start`
 * runs it. Bundle sizes: every JavaScript file of esbuild's metafile
 * (web/dist/meta.json) gzipped at level 9, grouped by what loads it — the
 * entry and the chunks it imports (the shell), the sign-in page's chunks,
 * and for each screen (named by its module under web/src/screens/) the
 * chunks opening it adds. Streaming: the real local runtime as `npm start`
 * runs it (its own process, data on disk), signed in as a person is, asking
 * an agent on the knowledge base over HTTP with `stream: true` and the
 * session's cookie and CSRF token: the request the console makes.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type LocalService, startLocalService } from '../../web/tests/support/local-service';
import { table } from '../support/markdown-table';
import { benchCommand, writeSection } from './benchmarks-doc';
import { describeMachine, type Machine } from './machine';
import { type LatencySummary, percentile, summarize } from './stats';

const ROOT = resolve(__dirname, '..', '..');
const DIST = join(ROOT, 'web', 'dist');
const ENTRY = 'web/src/app/main.tsx';
const SCREENS = 'web/src/screens/';
/** Issue 21 item 11: the sign-in page and the shell, in gzipped JavaScript. */
export const SIGN_IN_BUDGET_BYTES = 80 * 1024;

export interface ConsoleBenchSettings {
  readonly builds: number;
  readonly warmupQuestions: number;
  readonly questions: number;
}

const FULL: ConsoleBenchSettings = { builds: 5, warmupQuestions: 3, questions: 30 };
const QUICK: ConsoleBenchSettings = { builds: 1, warmupQuestions: 1, questions: 5 };

/** The metafile's outputs, as esbuild writes them (only what is read here). */
interface Metafile {
  readonly outputs: Readonly<
    Record<
      string,
      {
        readonly bytes: number;
        readonly entryPoint?: string;
        readonly imports: readonly { readonly path: string; readonly kind: string }[];
      }
    >
  >;
}

interface Chunk {
  /** Its name under web/dist (assets/…-HASH.js). */
  readonly file: string;
  readonly bytes: number;
  readonly gzipBytes: number;
  readonly entryPoint: string | null;
  /** What the browser fetches with it before it runs (static imports). */
  readonly imports: readonly string[];
}

export interface BundleGroup {
  readonly name: string;
  readonly files: number;
  readonly bytes: number;
  readonly gzipBytes: number;
}

export interface ConsoleBundles {
  /** The entry and its static imports: what every page loads first (the app, the shell). */
  readonly start: BundleGroup;
  /** The sign-in page: the start plus its own chunks. */
  readonly signIn: BundleGroup;
  /** Per screen folder: its chunk and what opening it adds to the start. */
  readonly screens: readonly (BundleGroup & { readonly ownGzipBytes: number })[];
  readonly allJsGzipBytes: number;
  readonly stylesheetsGzipBytes: number;
}

/**
 * The metafile's paths name the folder esbuild wrote to (web/.dist-<pid>,
 * renamed to web/dist afterwards): what matters is the part under it.
 */
function distName(path: string): string {
  const at = path.indexOf('/assets/');
  return at >= 0 ? path.slice(at + 1) : path;
}

function readChunks(): Map<string, Chunk> {
  const meta = JSON.parse(readFileSync(join(DIST, 'meta.json'), 'utf8')) as Metafile;
  const chunks = new Map<string, Chunk>();
  for (const [path, output] of Object.entries(meta.outputs)) {
    if (!path.endsWith('.js') && !path.endsWith('.css')) continue;
    const file = distName(path);
    const content = readFileSync(join(DIST, file));
    chunks.set(file, {
      file,
      bytes: content.length,
      gzipBytes: gzipSync(content, { level: 9 }).length,
      entryPoint: output.entryPoint ?? null,
      imports: output.imports
        .filter((imported) => imported.kind === 'import-statement')
        .map((imported) => distName(imported.path)),
    });
  }
  return chunks;
}

/** The chunk and every chunk it statically imports, transitively. */
function closure(chunks: Map<string, Chunk>, file: string, into = new Set<string>()): Set<string> {
  if (into.has(file)) return into;
  into.add(file);
  for (const imported of chunks.get(file)?.imports ?? []) closure(chunks, imported, into);
  return into;
}

function group(chunks: Map<string, Chunk>, name: string, files: Iterable<string>): BundleGroup {
  let bytes = 0;
  let gzipBytes = 0;
  let count = 0;
  for (const file of files) {
    const chunk = chunks.get(file);
    if (!chunk) continue;
    bytes += chunk.bytes;
    gzipBytes += chunk.gzipBytes;
    count += 1;
  }
  return { name, files: count, bytes, gzipBytes };
}

/**
 * A lazily loaded screen by its module under web/src/screens/: its folder
 * (`agents`), or folder and page for Settings' pages (`settings/users`,
 * `settings/profile`), which load on their own too.
 */
export function screenName(entryPoint: string): string {
  return entryPoint
    .slice(SCREENS.length)
    .replace(/\/index\.tsx?$/, '')
    .replace(/\.tsx?$/, '');
}

/** Sizes from web/dist as the last build left it, whatever screens exist. */
export function measureBundles(): ConsoleBundles {
  const chunks = readChunks();
  const scripts = [...chunks.values()].filter((chunk) => chunk.file.endsWith('.js'));
  const entry = scripts.find((chunk) => chunk.entryPoint === ENTRY);
  if (!entry) throw new Error(`web/dist/meta.json has no output for ${ENTRY}`);
  const start = closure(chunks, entry.file);
  const screenChunks = scripts
    .filter((chunk) => chunk.entryPoint?.startsWith(SCREENS))
    .map((chunk) => ({
      chunk,
      folder: screenName(chunk.entryPoint ?? ''),
    }))
    .sort((a, b) => a.folder.localeCompare(b.folder));
  const signInChunk = screenChunks.find((screen) => screen.folder === 'sign-in');
  if (!signInChunk) throw new Error('web/dist/meta.json has no sign-in screen');
  const signIn = new Set([...start, ...closure(chunks, signInChunk.chunk.file)]);
  return {
    start: group(chunks, 'start (entry and the shell)', start),
    signIn: group(chunks, 'sign-in page and shell', signIn),
    screens: screenChunks.map(({ chunk, folder }) => ({
      ...group(
        chunks,
        folder,
        [...closure(chunks, chunk.file)].filter((file) => !start.has(file)),
      ),
      ownGzipBytes: chunk.gzipBytes,
    })),
    allJsGzipBytes: scripts.reduce((sum, chunk) => sum + chunk.gzipBytes, 0),
    stylesheetsGzipBytes: [...chunks.values()]
      .filter((chunk) => chunk.file.endsWith('.css'))
      .reduce((sum, chunk) => sum + chunk.gzipBytes, 0),
  };
}

/** `node web/build.mjs`, `count` times, each in a new process: wall milliseconds. */
function measureBuilds(count: number): number[] {
  const times: number[] = [];
  for (let n = 0; n < count; n += 1) {
    const started = performance.now();
    const built = spawnSync(process.execPath, [join(ROOT, 'web', 'build.mjs')], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    if (built.status !== 0) throw new Error(`web/build.mjs failed: ${built.stderr}`);
    times.push(performance.now() - started);
  }
  return times;
}

/** A person's session (D12): the cookie and the CSRF token the console keeps in memory. */
interface Session {
  readonly cookie: string;
  readonly csrfToken: string;
}

const ADMIN = { email: 'bench@console.test', password: 'a bench password, long enough' };

async function call(
  service: LocalService,
  session: Session,
  method: string,
  path: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      Cookie: session.cookie,
      'X-CSRF-Token': session.csrfToken,
      'Content-Type': 'application/json',
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

async function signIn(service: LocalService): Promise<Session> {
  const response = await fetch(`${service.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(ADMIN),
  });
  if (!response.ok) throw new Error(`sign-in: ${response.status} ${await response.text()}`);
  const body = (await response.json()) as { csrf_token: string };
  const cookie = response.headers
    .getSetCookie()
    .map((header) => header.split(';')[0])
    .join('; ');
  return { cookie, csrfToken: body.csrf_token };
}

const PRODUCTS = ['harbor kettle', 'summit backpack', 'meadow lamp', 'canyon tent', 'ember stove'];
const TOPICS = [
  ['cleaning', 'Wipe it with a soft cloth and warm soapy water, then let it dry in the air.'],
  ['warranty', 'It is covered for two years from purchase; keep the receipt to claim.'],
  ['returns', 'Return it unused within 30 days in its box for a full refund.'],
] as const;

/** Published articles the agent answers from (the knowledge base reaches the index through the sync worker, P119). */
async function prepareAgent(service: LocalService, session: Session): Promise<string> {
  for (const product of PRODUCTS) {
    await call(service, session, 'POST', '/api/v1/kb', {
      title: `The ${product}`,
      status: 'published',
      content: TOPICS.map(
        ([topic, text]) => `${topic} of the ${product}. ${text} Ask support about the ${product}.`,
      ).join('\n\n'),
    });
  }
  const kb = await call(service, session, 'GET', '/api/v1/kb');
  const agent = await call(service, session, 'POST', '/api/v1/agents', {
    name: 'Product help',
    data_source_ids: [kb.data_source_id],
  });
  const agentId = String(agent.id);
  // Until the background workers have indexed the articles, answers have nothing to cite.
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    const answer = await call(service, session, 'POST', '/api/v1/query', {
      agent_id: agentId,
      query: `How do I clean the ${PRODUCTS[0]}?`,
    });
    if (Array.isArray(answer.sources) && answer.sources.length > 0) return agentId;
    await new Promise((done) => setTimeout(done, 250));
  }
  throw new Error('the knowledge base articles were not indexed within 60 s');
}

interface StreamedAnswer {
  readonly ok: boolean;
  readonly firstWordsMs: number;
  readonly lastWordsMs: number;
  readonly doneMs: number;
  readonly deltas: number;
}

/**
 * One question as the console asks it: from sending the request ("Ask") to
 * the first `delta` event with text (the first words on screen), to the last
 * one, and to `done`. Events are read as they arrive (D19's SSE frames).
 */
async function ask(
  service: LocalService,
  session: Session,
  agentId: string,
  question: string,
): Promise<StreamedAnswer> {
  const started = performance.now();
  const response = await fetch(`${service.url}/api/v1/query`, {
    method: 'POST',
    headers: {
      Cookie: session.cookie,
      'X-CSRF-Token': session.csrfToken,
      'Content-Type': 'application/json',
      Accept: 'text/event-stream',
    },
    body: JSON.stringify({ agent_id: agentId, query: question, stream: true }),
  });
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  if (!reader) throw new Error('a streamed answer came without a body');
  let buffer = '';
  let firstWordsMs = Number.NaN;
  let lastWordsMs = Number.NaN;
  let doneMs = Number.NaN;
  let deltas = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    const blocks = buffer.split('\n\n');
    buffer = blocks.pop() ?? '';
    const now = performance.now() - started;
    for (const block of blocks) {
      const event = /^event: (.+)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event === 'delta' && data && (JSON.parse(data) as { text?: string }).text) {
        deltas += 1;
        if (Number.isNaN(firstWordsMs)) firstWordsMs = now;
        lastWordsMs = now;
      }
      if (event === 'done') doneMs = now;
    }
  }
  const ok =
    response.status === 200 &&
    (response.headers.get('content-type') ?? '').startsWith('text/event-stream') &&
    !Number.isNaN(firstWordsMs) &&
    !Number.isNaN(doneMs);
  return { ok, firstWordsMs, lastWordsMs, doneMs, deltas };
}

export interface StreamingFigures {
  readonly firstWords: LatencySummary;
  readonly lastWords: LatencySummary;
  readonly done: LatencySummary;
  readonly deltasPerAnswer: number;
  readonly nonOk: number;
}

async function measureStreaming(
  settings: ConsoleBenchSettings,
  log: (line: string) => void,
): Promise<StreamingFigures> {
  const service = await startLocalService({ admin: ADMIN });
  try {
    const session = await signIn(service);
    const agentId = await prepareAgent(service, session);
    const first: number[] = [];
    const last: number[] = [];
    const done: number[] = [];
    let deltas = 0;
    let nonOk = 0;
    for (let n = 0; n < settings.warmupQuestions + settings.questions; n += 1) {
      const product = PRODUCTS[n % PRODUCTS.length];
      const [topic] = TOPICS[Math.floor(n / PRODUCTS.length) % TOPICS.length] ?? TOPICS[0];
      const answer = await ask(service, session, agentId, `What about ${topic} of the ${product}?`);
      if (!answer.ok) nonOk += 1;
      if (n < settings.warmupQuestions) continue;
      first.push(answer.firstWordsMs);
      last.push(answer.lastWordsMs);
      done.push(answer.doneMs);
      deltas += answer.deltas;
    }
    const figures = {
      firstWords: summarize(first),
      lastWords: summarize(last),
      done: summarize(done),
      deltasPerAnswer: deltas / Math.max(1, settings.questions),
      nonOk,
    };
    log(
      `streamed answers: first words p50 ${figures.firstWords.p50Ms.toFixed(1)} ms, last words p50 ${figures.lastWords.p50Ms.toFixed(1)} ms`,
    );
    return figures;
  } finally {
    await service.stop();
  }
}

const kb = (bytes: number) => (bytes / 1024).toFixed(1);
const ms = (value: number) => value.toFixed(1);

export function renderConsoleSection(report: {
  readonly date: string;
  readonly machine: Machine;
  readonly command: string;
  readonly durationSeconds: number;
  readonly loadAverage: { readonly before: number; readonly after: number };
  readonly settings: ConsoleBenchSettings;
  readonly buildMs: readonly number[];
  readonly bundles: ConsoleBundles;
  readonly streaming: StreamingFigures;
}): string {
  const { machine, bundles, streaming, settings } = report;
  const sortedBuilds = [...report.buildMs].sort((a, b) => a - b);
  const within = bundles.signIn.gzipBytes <= SIGN_IN_BUDGET_BYTES;
  return `## The web console

Written by \`${report.command}\` (test/bench/console.ts) on ${report.date};
the run took ${Math.round(report.durationSeconds)} s. Rerun it rather than editing these figures.

**Machine**: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB.toFixed(1)} GiB RAM,
${machine.os}, Node.js ${machine.node}. 1-minute load average
${report.loadAverage.before.toFixed(2)} before the run and ${report.loadAverage.after.toFixed(2)} after it.

### JavaScript, gzipped (issue 21 item 11: the sign-in page and shell at most 80 KB)

${table(
  ['What loads', 'Files', 'KB', 'KB gzipped', 'Within 80 KB gzipped'],
  [
    [
      bundles.signIn.name,
      String(bundles.signIn.files),
      kb(bundles.signIn.bytes),
      kb(bundles.signIn.gzipBytes),
      within ? 'yes' : 'NO',
    ],
    [
      bundles.start.name,
      String(bundles.start.files),
      kb(bundles.start.bytes),
      kb(bundles.start.gzipBytes),
      '—',
    ],
  ],
)}

Each screen, loaded when first opened (P227), on top of the start:

${table(
  [
    'Screen (web/src/screens/…)',
    'Files it adds',
    'KB it adds',
    'KB gzipped it adds',
    'Its own chunk, KB gzipped',
  ],
  bundles.screens.map((screen) => [
    screen.name,
    String(screen.files),
    kb(screen.bytes),
    kb(screen.gzipBytes),
    kb(screen.ownGzipBytes),
  ]),
)}

All JavaScript together: ${kb(bundles.allJsGzipBytes)} KB gzipped; the stylesheets (the
shell's linked from the page, each screen's loaded with the screen): ${kb(bundles.stylesheetsGzipBytes)} KB gzipped.

### Build (\`node web/build.mjs\`, ${settings.builds} run${settings.builds === 1 ? '' : 's'})

${table(
  ['Runs', 'Median s', 'Fastest s', 'Slowest s'],
  [
    [
      String(sortedBuilds.length),
      (percentile(sortedBuilds, 50) / 1000).toFixed(2),
      ((sortedBuilds[0] ?? Number.NaN) / 1000).toFixed(2),
      ((sortedBuilds[sortedBuilds.length - 1] ?? Number.NaN) / 1000).toFixed(2),
    ],
  ],
)}

### From "Ask" to the answer (${settings.questions} questions after ${settings.warmupQuestions} of warm-up)

${table(
  ['Time to', 'p50 ms', 'p95 ms', 'Max ms', 'Mean ms'],
  (
    [
      ['the first streamed words', streaming.firstWords],
      ['the last streamed words', streaming.lastWords],
      ['the end of the stream (`done`)', streaming.done],
    ] as const
  ).map(([label, summary]) => [
    label,
    ms(summary.p50Ms),
    ms(summary.p95Ms),
    ms(summary.maxMs),
    ms(summary.meanMs),
  ]),
)}

${streaming.deltasPerAnswer.toFixed(1)} \`delta\` events with text per answer on average.

**What is measured.** Sizes: every file of esbuild's metafile
(\`web/dist/meta.json\`) gzipped at level 9, each on its own (as each is
fetched). "Start" is the entry (\`web/src/app/main.tsx\`) and every chunk it
imports: the app, the shell, the API client, Preact; the sign-in page adds
its own chunk and what it imports. A screen is named by its folder (Settings' pages by folder and page) and
counted as what opening it fetches beyond the start (its chunk and the
shared chunks only screens use); screens are found from the metafile, so new
ones appear here as they are added. Build: \`node web/build.mjs\` in a new
process each time (bundling, minifying, hashing, writing \`web/dist\`), wall
time. Streaming: the real local runtime as \`npm start\` runs it (\`tsx
bin/local.ts\`, its own process, data on disk in a temporary directory, its
background workers), ${PRODUCTS.length} published knowledge-base articles and an
agent on them; signed in with a password as a person is, each question is
\`POST /api/v1/query\` with \`stream: true\`, the session cookie and
\`X-CSRF-Token\` (what the console sends), one at a time. Times run from
sending the request to the first \`delta\` event with text (the first words
a person sees), to the last such event, and to \`done\`. The offline answerer
composes the answer from the retrieved passages and sends its pieces at once,
so first and last words are close: with a hosted model the gap is the
model's generation time.`;
}

/** Measures, prints, and (unless `quick`) writes the section. */
export async function runConsoleBench(options: {
  readonly quick: boolean;
  readonly only: boolean;
  readonly document: string;
}): Promise<void> {
  const settings = options.quick ? QUICK : FULL;
  const log = (line: string) => console.log(`[bench] ${line}`);
  const started = performance.now();
  const loadBefore = loadavg()[0] ?? 0;
  log(`console: ${settings.builds} builds, ${settings.questions} streamed questions`);
  const buildMs = measureBuilds(settings.builds);
  const bundles = measureBundles();
  log(
    `console bundles: sign-in and shell ${kb(bundles.signIn.gzipBytes)} KB gzipped; ${bundles.screens.length} screens`,
  );
  const streaming = await measureStreaming(settings, log);
  const { quick, only } = options;
  const section = renderConsoleSection({
    date: new Date().toISOString().slice(0, 10),
    machine: describeMachine(),
    command: benchCommand('console', { quick, only }),
    durationSeconds: (performance.now() - started) / 1000,
    loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 },
    settings,
    buildMs,
    bundles,
    streaming,
  });
  console.log(`\n${section}`);
  if (streaming.nonOk > 0) {
    throw new Error(
      `${streaming.nonOk} streamed answers were not a 200 event stream with words and done; docs/benchmarks.md left as it was`,
    );
  }
  if (quick) {
    log('quick run: docs/benchmarks.md left as it was');
    return;
  }
  writeSection(options.document, 'console', section);
  log(`wrote the console section of ${options.document} (${relative(ROOT, options.document)})`);
}
