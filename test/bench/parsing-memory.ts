/**
 * The `parsing-memory` section of `npm run bench` (issue 13: "measure peak
 * RSS in the bench for 50 MiB text, a 1,000-page PDF, a large DOCX and CSV,
 * and write the budget in docs").
 *
 * Through the public interface against the local runtime as `npm start`
 * runs it (background workers on, every 200 ms; the parsing process with its
 * default limits, P69): each file is uploaded over HTTP (presigned POST) to
 * a file data source and its record is polled until `indexed` or `failed`.
 * Meanwhile the parsing process's peak resident set (Linux `VmHWM`, reset
 * before each file through `/proc/<pid>/clear_refs`) and the API process's
 * RSS are sampled, and a client asks `GET /api/v1/agents` every 250 ms.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { longPdf, minimalDocx } from '../support/hostile-files';
import { type ApiResponse, api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { table } from '../support/markdown-table';
import { sendUpload, type UploadTicket } from '../support/uploads';
import { benchCommand, writeSection } from './benchmarks-doc';
import { describeMachine, type Machine } from './machine';

const MiB = 1024 * 1024;

const WORDS =
  'orchard pruning grafting apple pear blossom harvest cider soil compost mulch root branch bud frost season ladder basket storage variety'.split(
    ' ',
  );

/** Deterministic prose: sentences of 8–20 words, paragraphs of 3–8 sentences. */
function prose(bytes: number): string {
  let seed = 42;
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed;
  };
  const parts: string[] = [];
  let length = 0;
  while (length < bytes) {
    const sentences: string[] = [];
    for (let s = 0, n = 3 + (next() % 6); s < n; s += 1) {
      const words = Array.from(
        { length: 8 + (next() % 13) },
        () => WORDS[next() % WORDS.length] ?? 'x',
      );
      const sentence = words.join(' ');
      sentences.push(`${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`);
    }
    const paragraph = `${sentences.join(' ')}\n\n`;
    parts.push(paragraph);
    length += paragraph.length;
  }
  return parts.join('').slice(0, bytes);
}

interface Sample {
  readonly name: string;
  readonly filename: string;
  make(): Buffer;
}

const FULL: readonly Sample[] = [
  {
    name: 'plain text, 50 MiB (the largest upload)',
    filename: 'large.txt',
    make: () => Buffer.from(prose(50 * MiB)),
  },
  { name: 'PDF, 1,000 pages of 40 lines', filename: 'long.pdf', make: () => longPdf(1_000, 40) },
  {
    name: 'DOCX, 22 MiB of text in one document part',
    filename: 'large.docx',
    make: () => minimalDocx(prose(22 * MiB).split('\n\n')),
  },
  {
    name: 'CSV, 49.9 MiB (6 columns)',
    filename: 'large.csv',
    make: () => {
      const lines = ['id,name,region,category,price,notes'];
      let length = 0;
      const text = prose(40 * MiB).split('. ');
      // Just under the 50 MiB upload limit (D17).
      for (let row = 0; length < 49.9 * MiB; row += 1) {
        const line = `${row},Item ${row},Region ${row % 17},Category ${row % 53},${(row % 997) + 0.99},"${text[row % text.length]}"`;
        lines.push(line);
        length += line.length + 1;
      }
      return Buffer.from(lines.join('\n'));
    },
  },
];

const QUICK: readonly Sample[] = [
  { name: 'plain text, 5 MiB', filename: 'large.txt', make: () => Buffer.from(prose(5 * MiB)) },
  { name: 'PDF, 100 pages of 40 lines', filename: 'long.pdf', make: () => longPdf(100, 40) },
];

interface Row {
  readonly name: string;
  readonly bytes: number;
  readonly status: string;
  readonly error: string | null;
  readonly chunks: number;
  readonly seconds: number;
  readonly parsingPeakMb: number;
  readonly apiPeakMb: number;
  readonly slowestApiMs: number;
  /** Answers of `GET /api/v1/agents` other than 200 while the file was ingested (reported, not thrown). */
  readonly apiFailures: readonly number[];
}

/** The parsing process (a child of this process running `process-entry`), if it is running. */
function parsingProcessPid(): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('process-entry')) {
        return Number(entry);
      }
    } catch {
      // The process ended while it was being read.
    }
  }
  return undefined;
}

function statusKb(pid: number | 'self', field: 'VmHWM' | 'VmRSS'): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Samples the parsing process's peak RSS and the API process's RSS every 50 ms until stopped. */
function sampleMemory(): { stop(): { parsingPeakMb: number; apiPeakMb: number } } {
  let parsingPeakKb = 0;
  let apiPeakKb = 0;
  const pid = parsingProcessPid();
  // Resets VmHWM to the current RSS (Linux 4.0+): the peak is this file's.
  if (pid !== undefined) writeFileSync(`/proc/${pid}/clear_refs`, '5');
  const sample = () => {
    const current = parsingProcessPid();
    if (current !== undefined) parsingPeakKb = Math.max(parsingPeakKb, statusKb(current, 'VmHWM'));
    apiPeakKb = Math.max(apiPeakKb, statusKb('self', 'VmRSS'));
  };
  const timer = setInterval(sample, 50);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { parsingPeakMb: parsingPeakKb / 1024, apiPeakMb: apiPeakKb / 1024 };
    },
  };
}

/**
 * One request, sent again once if the connection failed before an answer:
 * making a large sample takes seconds, long enough for the server to close
 * the idle keep-alive connection just as the next request reuses it.
 */
async function request(...args: Parameters<typeof api>): Promise<ApiResponse> {
  try {
    return await api(...args);
  } catch {
    return api(...args);
  }
}

function expectStatus(label: string, response: ApiResponse, status: number): Record<string, any> {
  if (response.status !== status) {
    throw new Error(`${label}: expected ${status}, got ${response.status} ${response.text}`);
  }
  return json(response);
}

async function ingest(service: TestService, dataSourceId: string, sample: Sample): Promise<Row> {
  const body = sample.make();
  const path = `/api/v1/data-sources/${dataSourceId}/files`;
  const ticket = expectStatus(
    path,
    await request(service.url, path, {
      method: 'POST',
      key: service.adminKey,
      body: { filename: sample.filename, size_bytes: body.length },
    }),
    201,
  ) as UploadTicket;
  const memory = sampleMemory();
  let slowestApiMs = 0;
  const apiFailures: number[] = [];
  let lastProbe = 0;
  const started = performance.now();
  const sent = await sendUpload(ticket, body, { filename: sample.filename });
  if (sent.status !== 204) throw new Error(`upload answered ${sent.status}`);
  let file: Record<string, any>;
  for (;;) {
    const probeStarted = performance.now();
    if (probeStarted - lastProbe >= 250) {
      lastProbe = probeStarted;
      const listed = await request(service.url, '/api/v1/agents', { key: service.adminKey });
      if (listed.status !== 200) apiFailures.push(listed.status);
      slowestApiMs = Math.max(slowestApiMs, performance.now() - probeStarted);
    }
    const filePath = `${path}/${ticket.document_id}`;
    file = expectStatus(
      filePath,
      await request(service.url, filePath, { key: service.adminKey }),
      200,
    );
    if (file.status === 'indexed' || file.status === 'failed') break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const seconds = (performance.now() - started) / 1000;
  const { parsingPeakMb, apiPeakMb } = memory.stop();
  return {
    name: sample.name,
    bytes: body.length,
    status: file.status,
    error: file.error ?? null,
    chunks: file.chunks_indexed,
    seconds,
    parsingPeakMb,
    apiPeakMb,
    slowestApiMs,
    apiFailures,
  };
}

export function renderParsingMemorySection(report: {
  readonly date: string;
  readonly machine: Machine;
  readonly command: string;
  readonly loadAverage: { readonly before: number; readonly after: number };
  readonly rows: readonly Row[];
}): string {
  const { machine } = report;
  const rows = report.rows.map((row) => [
    row.name,
    `${(row.bytes / MiB).toFixed(1)} MiB`,
    row.error ? `${row.status}: ${row.error}` : row.status,
    String(row.chunks),
    row.seconds.toFixed(1),
    row.parsingPeakMb.toFixed(0),
    row.apiPeakMb.toFixed(0),
    row.slowestApiMs.toFixed(0),
    row.apiFailures.length === 0 ? 'none' : row.apiFailures.join(', '),
  ]);
  return `## Parsing memory (issue 13)

Measured ${report.date} with \`${report.command}\` on ${machine.cpu} (${machine.cores} cores,
${machine.memoryGiB.toFixed(1)} GiB, ${machine.os}, Node ${machine.node}); load average
${report.loadAverage.before.toFixed(2)} before the run and ${report.loadAverage.after.toFixed(2)} after it.

${table(
  [
    'File',
    'Size',
    'Outcome',
    'Chunks',
    'Upload to final status s',
    'Parsing process peak RSS MB',
    'API process peak RSS MB',
    'Slowest GET /api/v1/agents ms',
    'GET /api/v1/agents not 200',
  ],
  rows,
)}

**What is measured.** The local runtime as \`npm start\` runs it (in memory,
background workers every 200 ms, the parsing process with its defaults:
1,024 MB of heap, 120 s per job, P69). Each file is uploaded over HTTP
(presigned POST) and its record polled until \`indexed\` or \`failed\`. The
parsing process's peak resident set is Linux's \`VmHWM\`, reset before each
file (\`/proc/<pid>/clear_refs\`); it covers parsing and chunking, which run
there. The API process (gateway, embedding, indexing) is sampled every 50 ms.
The memory budget these figures are held to is in docs/architecture.md
("Parsing bounds and memory budget").`;
}

export async function runParsingMemoryBench(options: {
  readonly quick: boolean;
  readonly only: boolean;
  readonly document: string;
}): Promise<void> {
  const { quick, only } = options;
  const log = (line: string) => console.log(`[bench] ${line}`);
  const loadBefore = loadavg()[0] ?? 0;
  const service = await startTestService({ env: { SVC_WORKER_INTERVAL_MS: '200' } });
  const rows: Row[] = [];
  try {
    const source = expectStatus(
      'POST /api/v1/data-sources',
      await api(service.url, '/api/v1/data-sources', {
        method: 'POST',
        key: service.adminKey,
        body: { type: 'file', name: 'Large files', sync_frequency: 'manual' },
      }),
      201,
    );
    for (const sample of quick ? QUICK : FULL) {
      const row = await ingest(service, source.id, sample);
      log(
        `${row.name}: ${row.status}${row.error ? ` (${row.error})` : ''}, ${row.chunks} chunks, ${row.seconds.toFixed(1)} s, parsing peak ${row.parsingPeakMb.toFixed(0)} MB, API peak ${row.apiPeakMb.toFixed(0)} MB, slowest API ${row.slowestApiMs.toFixed(0)} ms, API not 200: ${row.apiFailures.length}`,
      );
      rows.push(row);
    }
  } finally {
    await service.end();
  }
  const section = renderParsingMemorySection({
    date: new Date().toISOString().slice(0, 10),
    machine: describeMachine(),
    command: benchCommand('parsing-memory', { quick, only }),
    loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 },
    rows,
  });
  console.log(`\n${section}`);
  if (quick) {
    log('quick run: docs/benchmarks.md left as it was');
    return;
  }
  writeSection(options.document, 'parsing-memory', section);
  log(`wrote the parsing-memory section of ${options.document}`);
}
