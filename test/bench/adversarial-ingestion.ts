/**
 * The `adversarial-ingestion` section of `npm run bench` (issue 14: "a bench
 * row shows chunking time for 1 KB–20 MB adversarial inputs (no spaces, one
 * huge CSV cell, long lines) growing linearly").
 *
 * Through the public interface, as a user would: each file is uploaded to a
 * file data source of the real local runtime over HTTP (presigned POST), the
 * ingestion worker is stepped, and the time from the start of the step to
 * the file's final status is taken, with its `chunks_indexed`. Meanwhile a
 * client asks `GET /api/v1/agents` every 250 ms; its slowest answer shows
 * whether ingestion held up the API.
 */
import { loadavg } from 'node:os';
import { type ApiResponse, api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { table } from '../support/markdown-table';
import { sendUpload, type UploadTicket } from '../support/uploads';
import { benchCommand, writeSection } from './benchmarks-doc';
import { describeMachine, type Machine } from './machine';

const KiB = 1024;
const MiB = 1024 * KiB;

/** One adversarial shape of file, made at any size. */
interface Shape {
  readonly name: string;
  readonly filename: string;
  make(bytes: number): Buffer;
}

const SHAPES: readonly Shape[] = [
  { name: 'no spaces', filename: 'run.txt', make: (bytes) => Buffer.alloc(bytes, 'x') },
  {
    name: 'one huge CSV cell',
    filename: 'cell.csv',
    make: (bytes) => Buffer.from(`a,b,c\n"${'x'.repeat(Math.max(0, bytes - 8))}"`),
  },
  {
    name: 'long lines',
    filename: 'lines.txt',
    // Words without sentence ends, in lines of 64 KB: sentences far longer than a chunk.
    make: (bytes) => {
      const line = `${'lorem ipsum dolor sit amet '.repeat(Math.ceil((64 * KiB) / 27)).slice(0, 64 * KiB - 1)}\n`;
      return Buffer.from(line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes));
    },
  },
];

const FULL_SIZES = [1 * KiB, 100 * KiB, 1 * MiB, 5 * MiB, 20 * MiB];
const QUICK_SIZES = [1 * KiB, 100 * KiB, 1 * MiB];

interface Row {
  readonly shape: string;
  readonly bytes: number;
  readonly status: string;
  readonly chunks: number;
  readonly ingestMs: number;
  readonly slowestApiMs: number;
}

/** Asks `GET /api/v1/agents` every 250 ms (within the Read scope's 200 a minute) until stopped; resolves to the slowest answer's time. */
function probeApi(service: TestService): { stop(): Promise<number> } {
  let running = true;
  let slowest = 0;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const response = await api(service.url, '/api/v1/agents', { key: service.adminKey });
      if (response.status !== 200)
        throw new Error(`GET /api/v1/agents answered ${response.status}`);
      slowest = Math.max(slowest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  // Stopping is how the caller learns of a failed probe: it never fails on its own.
  const settled = loop.then(
    () => null,
    (error: unknown) => error,
  );
  return {
    async stop() {
      running = false;
      const error = await settled;
      if (error) throw error;
      return slowest;
    },
  };
}

/** The response's JSON body when its status is `status`; throws with the body otherwise. */
function expectStatus(label: string, response: ApiResponse, status: number): Record<string, any> {
  if (response.status !== status) {
    throw new Error(`${label}: expected ${status}, got ${response.status} ${response.text}`);
  }
  return json(response);
}

async function fileStatus(service: TestService, dataSourceId: string, documentId: string) {
  const path = `/api/v1/data-sources/${dataSourceId}/files/${documentId}`;
  return expectStatus(path, await api(service.url, path, { key: service.adminKey }), 200);
}

async function ingestOne(
  service: TestService,
  dataSourceId: string,
  shape: Shape,
  bytes: number,
): Promise<Row> {
  const body = shape.make(bytes);
  const path = `/api/v1/data-sources/${dataSourceId}/files`;
  const presigned = await api(service.url, path, {
    method: 'POST',
    key: service.adminKey,
    body: { filename: shape.filename, size_bytes: body.length },
  });
  const ticket = expectStatus(path, presigned, 201) as UploadTicket;
  const sent = await sendUpload(ticket, body, { filename: shape.filename });
  if (sent.status !== 204) throw new Error(`upload answered ${sent.status}`);
  const probe = probeApi(service);
  const started = performance.now();
  let file: Record<string, any>;
  let probed: number | unknown;
  try {
    file = await fileStatus(service, dataSourceId, ticket.document_id);
    while (file.status !== 'indexed' && file.status !== 'failed') {
      await service.runtime.workers.stepIngestion();
      file = await fileStatus(service, dataSourceId, ticket.document_id);
    }
  } finally {
    // Stopped either way, so a failure above is the one reported.
    probed = await probe.stop().catch((error: unknown) => error);
  }
  const ingestMs = performance.now() - started;
  if (typeof probed !== 'number') throw probed;
  const slowestApiMs = probed;
  return {
    shape: shape.name,
    bytes: body.length,
    status: file.status,
    chunks: file.chunks_indexed,
    ingestMs,
    slowestApiMs,
  };
}

function size(bytes: number): string {
  return bytes >= MiB ? `${bytes / MiB} MiB` : `${bytes / KiB} KiB`;
}

export function renderAdversarialIngestionSection(report: {
  readonly date: string;
  readonly machine: Machine;
  readonly command: string;
  readonly durationSeconds: number;
  readonly loadAverage: { readonly before: number; readonly after: number };
  readonly rows: readonly Row[];
}): string {
  const { machine } = report;
  const rows = report.rows.map((row) => [
    row.shape,
    size(row.bytes),
    row.status,
    String(row.chunks),
    row.ingestMs.toFixed(0),
    ((row.ingestMs / row.bytes) * MiB).toFixed(0),
    row.slowestApiMs.toFixed(0),
  ]);
  return `## Adversarial ingestion (issue 14)

Measured ${report.date} with \`${report.command}\` in ${report.durationSeconds.toFixed(0)} s on ${machine.cpu}
(${machine.cores} cores, ${machine.memoryGiB.toFixed(1)} GiB, ${machine.os}, Node ${machine.node}); load average
${report.loadAverage.before.toFixed(2)} before the run and ${report.loadAverage.after.toFixed(2)} after it.

${table(['File', 'Size', 'Status', 'Chunks', 'Ingestion ms', 'ms per MiB', 'Slowest GET /api/v1/agents ms'], rows)}

**What is measured.** Each file is uploaded over HTTP to a file data source
of the real local runtime in memory (\`startTestService\`), then the
ingestion worker (\`runtime.workers.stepIngestion()\`) is stepped until the
file's record says \`indexed\` or \`failed\`: parsing, chunking with token
counting (runs without spaces counted in slices of 128 characters, P68),
offline embedding and indexing. "ms per MiB" staying flat as the size grows
is what linear means. Meanwhile a client asks \`GET /api/v1/agents\` every
250 ms over HTTP; the last column is its slowest answer during that file's
ingestion.`;
}

export async function runAdversarialIngestionBench(options: {
  readonly quick: boolean;
  readonly only: boolean;
  readonly document: string;
}): Promise<void> {
  const { quick, only } = options;
  const log = (line: string) => console.log(`[bench] ${line}`);
  const started = performance.now();
  const loadBefore = loadavg()[0] ?? 0;
  const service = await startTestService();
  const rows: Row[] = [];
  try {
    const created = await api(service.url, '/api/v1/data-sources', {
      method: 'POST',
      key: service.adminKey,
      body: { type: 'file', name: 'Adversarial files', sync_frequency: 'manual' },
    });
    const source = expectStatus('POST /api/v1/data-sources', created, 201);
    for (const shape of SHAPES) {
      for (const bytes of quick ? QUICK_SIZES : FULL_SIZES) {
        const row = await ingestOne(service, source.id, shape, bytes);
        log(
          `${row.shape} ${size(row.bytes)}: ${row.status}, ${row.chunks} chunks, ${row.ingestMs.toFixed(0)} ms (API slowest ${row.slowestApiMs.toFixed(0)} ms)`,
        );
        rows.push(row);
      }
    }
  } finally {
    await service.end();
  }
  const section = renderAdversarialIngestionSection({
    date: new Date().toISOString().slice(0, 10),
    machine: describeMachine(),
    command: benchCommand('adversarial-ingestion', { quick, only }),
    durationSeconds: (performance.now() - started) / 1000,
    loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 },
    rows,
  });
  console.log(`\n${section}`);
  if (quick) {
    log('quick run: docs/benchmarks.md left as it was');
    return;
  }
  writeSection(options.document, 'adversarial-ingestion', section);
  log(`wrote the adversarial-ingestion section of ${options.document}`);
}
