/**
 * Issue 10 item 6: a website sync measured against the runtime as `npm start`
 * runs it, data persisted under SVC_DATA_DIR (dynalite on disk, the embedded
 * index's snapshot and log, the local queues), not the in-memory test
 * service. The service is its own process (tsx bin/local.ts, as `npm start`),
 * its background workers on their default interval; the bench only talks
 * HTTP to it: it creates a website data source, requests a sync and polls
 * the status endpoint until the job has finished.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENTRY_POINTS, REPO_ROOT, type Running, start } from '../support/child-process';
import { api, json } from '../support/http-client';
import type { UploadTicket } from '../support/uploads';
import type { GeneratedSite } from './ingestion-and-streaming';

export interface PersistedSyncResult {
  readonly documents: number;
  readonly chunks: number;
  /** The job's own time, `started_at` to `finished_at` as the status endpoint reports them. */
  readonly jobSeconds: number;
  /** From the sync request to the first status poll that saw the job finished. */
  readonly wallSeconds: number;
  /**
   * CPU seconds the service's processes (the runtime and its parsing
   * process) used from the sync request to its end: what a page costs,
   * whatever else the machine runs.
   */
  readonly cpuSeconds: number;
  readonly pagesServed: number;
  /** P108: files presigned by one batch request, uploaded and ingested (null when not measured). */
  readonly upload: BatchUploadResult | null;
}

export interface BatchUploadResult {
  readonly files: number;
  readonly chunks: number;
  /** The one request that presigned every file. */
  readonly presignMs: number;
  /** From the batch request to the last file seen `indexed`. */
  readonly seconds: number;
}

/** A loopback port free now. */
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

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) used so far by every process of the process group `group` (Linux /proc). */
function groupCpuSeconds(group: number): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    // Fields after the command (which may hold spaces) in parentheses: state, ppid, pgrp, …, utime (14th), stime (15th).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) !== group) continue;
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / TICKS_PER_SECOND;
}

const LOCAL_ENTRY = join(REPO_ROOT, 'bin', 'local.ts');

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The status endpoint is polled once a second: the job times itself (started_at, finished_at), and each poll costs the service a request. */
const POLL_MS = 1_000;

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

/**
 * Starts `npm start` on a fresh data directory, syncs `site` through it and
 * stops it.
 */
export async function measurePersistedSync(
  site: GeneratedSite,
  options: {
    readonly pages: number;
    readonly budgetMs: number;
    readonly log: (line: string) => void;
    /** Writes a V8 CPU profile of the service into this directory when it stops. */
    readonly cpuProfileDir?: string;
    /** More settings for the service (e.g. SVC_WORKER_INTERVAL_MS), as `npm start` reads them. */
    readonly env?: Record<string, string>;
    /** Then this many files presigned by one batch request, uploaded, and ingested (0: none). */
    readonly uploadFiles?: number;
  },
): Promise<PersistedSyncResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-persisted-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // `npm start` is tsx's CLI running bin/local.ts in a child; profiled, node runs it itself with tsx's loader.
  const entry = options.cpuProfileDir
    ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`, '--import', 'tsx', LOCAL_ENTRY]
    : ENTRY_POINTS.start;
  const server: Running = start(
    entry,
    [],
    {
      SVC_DATA_DIR: dataDir,
      PORT: String(port),
      SVC_DYNAMODB_PORT: '0',
      SVC_ALLOW_PRIVATE_URLS: 'true',
      LOG_LEVEL: 'ERROR',
      ...options.env,
    },
    { ownProcessGroup: true },
  );
  const group = server.child.pid ?? 0;
  try {
    const stdout = await server.waitFor(/Press Ctrl-C to stop/, 120_000);
    const key = /^ {2}(svcsk_test_\w+)$/m.exec(stdout)?.[1];
    if (!key) throw new Error(`npm start printed no bootstrap key: ${stdout}`);
    const source = await expectStatus(
      'create the data source',
      await api(url, '/api/v1/data-sources', {
        method: 'POST',
        key,
        body: {
          type: 'website',
          name: 'Generated guides',
          config: { url: `${site.origin}/`, max_pages: options.pages + 1 },
          sync_frequency: 'manual',
        },
      }),
      201,
    );
    const servedBefore = site.requests();
    const started = performance.now();
    const cpuBefore = groupCpuSeconds(group);
    await expectStatus(
      'request a sync',
      await api(url, `/api/v1/data-sources/${source.id}/sync`, { method: 'POST', key }),
      202,
    );
    let status: Record<string, any> = {};
    for (;;) {
      await pause(POLL_MS);
      status = await expectStatus(
        'sync status',
        await api(url, `/api/v1/data-sources/${source.id}/status`, { key }),
        200,
      );
      if (status.job_status === 'succeeded' || status.job_status === 'failed') break;
      if (performance.now() - started > options.budgetMs) {
        throw new Error(
          `the persisted sync did not finish within ${options.budgetMs} ms: ${JSON.stringify(status)}`,
        );
      }
    }
    const wallSeconds = (performance.now() - started) / 1000;
    const cpuSeconds = groupCpuSeconds(group) - cpuBefore;
    if (status.job_status !== 'succeeded') {
      throw new Error(`the persisted sync ended ${JSON.stringify(status)}`);
    }
    const upload =
      (options.uploadFiles ?? 0) > 0
        ? await batchUpload(url, key, options.uploadFiles ?? 0, options.budgetMs, options.log)
        : null;
    const result: PersistedSyncResult = {
      documents: Number(status.documents_processed),
      chunks: Number(status.chunks_indexed),
      jobSeconds: (Date.parse(status.finished_at) - Date.parse(status.started_at)) / 1000,
      wallSeconds,
      cpuSeconds,
      pagesServed: site.requests() - servedBefore,
      upload,
    };
    options.log(
      `persisted sync (npm start): ${result.documents} documents, ${result.chunks} chunks; job ${result.jobSeconds.toFixed(2)} s (${(result.documents / result.jobSeconds).toFixed(1)} pages/s), ${wallSeconds.toFixed(2)} s from request to seen done; ${cpuSeconds.toFixed(1)} CPU s (${((cpuSeconds * 1000) / result.documents).toFixed(2)} ms a page)`,
    );
    return result;
  } finally {
    const finished = await server.stop();
    if (finished.code !== 0) {
      options.log(`npm start ended with ${finished.code}: ${finished.stderr.slice(-2_000)}`);
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A small Markdown file, different for each `n`. */
function uploadedFile(n: number): Buffer {
  return Buffer.from(
    `# Part ${n}\n\nThe spare part numbered ${n} fits the models of ${2018 + (n % 8)}.\n\n## Care\n\nWipe part ${n} with a dry cloth; never soak it.\n`,
  );
}

/**
 * P108: a file data source, `count` files presigned by one batch request,
 * each sent to its ticket (the presigned form upload), then the file list
 * polled once a second until every file is `indexed`.
 */
async function batchUpload(
  url: string,
  key: string,
  count: number,
  budgetMs: number,
  log: (line: string) => void,
): Promise<BatchUploadResult> {
  const source = await expectStatus(
    'create the file data source',
    await api(url, '/api/v1/data-sources', {
      method: 'POST',
      key,
      body: { type: 'file', name: 'Spare parts', sync_frequency: 'manual' },
    }),
    201,
  );
  const started = performance.now();
  const presigned = await expectStatus(
    'presign a batch',
    await api(url, `/api/v1/data-sources/${source.id}/files`, {
      method: 'POST',
      key,
      body: {
        files: Array.from({ length: count }, (_, n) => ({
          filename: `part-${n}.md`,
          size_bytes: uploadedFile(n).length,
        })),
      },
    }),
    201,
  );
  const presignMs = performance.now() - started;
  const tickets = presigned.tickets as UploadTicket[];
  for (const [n, ticket] of tickets.entries()) {
    const form = new FormData();
    for (const [name, value] of Object.entries(ticket.upload_fields)) form.append(name, value);
    form.append('file', new Blob([new Uint8Array(uploadedFile(n))]), `part-${n}.md`);
    const sent = await fetch(ticket.upload_url, { method: 'POST', body: form });
    if (sent.status !== 204) throw new Error(`upload ${n}: ${sent.status} ${await sent.text()}`);
  }
  for (;;) {
    await pause(POLL_MS);
    const listed = await expectStatus(
      'list files',
      await api(url, `/api/v1/data-sources/${source.id}/files`, { key }),
      200,
    );
    const files = listed.files as { status: string; chunks_indexed: number }[];
    const failed = files.filter((file) => file.status === 'failed');
    if (failed.length > 0) throw new Error(`${failed.length} uploaded files failed`);
    if (files.length === count && files.every((file) => file.status === 'indexed')) {
      const result = {
        files: count,
        chunks: files.reduce((sum, file) => sum + file.chunks_indexed, 0),
        presignMs,
        seconds: (performance.now() - started) / 1000,
      };
      log(
        `batch upload: ${count} files presigned in one request (${presignMs.toFixed(0)} ms), uploaded and indexed in ${result.seconds.toFixed(2)} s`,
      );
      return result;
    }
    if (performance.now() - started > budgetMs) {
      throw new Error(`the uploaded files were not all indexed within ${budgetMs} ms`);
    }
  }
}
