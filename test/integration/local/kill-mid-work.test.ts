import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OrgIndexFiles } from '../../../layers/core/adapters/local/index-files';
import type { StoredChunk } from '../../../layers/core/adapters/local/partition/index-partition';
import { chunksInMemory } from '../../../layers/core/adapters/local/partition/partition-image';
import { ENTRY_POINTS, killTree, type Running, start } from '../../support/child-process';
import { api, json } from '../../support/http-client';
import { htmlPage, type LoopbackSite, startLoopbackSite } from '../../support/loopback-site';
import {
  answers,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../../support/webhook-receiver';
import { expectSignedWith } from '../../support/webhook-signatures';
import { LOCAL_RECEIVERS_ENV } from '../../support/webhooks';

/** A loopback port free now, so every start of the service listens on the same address. */
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

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns something, or fails after `timeoutMs`. */
async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(300);
  }
}

/** Eight pages of a few paragraphs each, linked from the home page: a few chunks per page. */
const PAGES = Array.from({ length: 8 }, (_, index) => `/p${index + 1}`);
function manualSite(): Record<string, string> {
  return {
    '/robots.txt': 'User-agent: *\nAllow: /\n',
    '/': htmlPage(
      'Kiln manual',
      ['How to fire stoneware and porcelain in an electric kiln.'],
      PAGES,
    ),
    ...Object.fromEntries(
      PAGES.map((path, page) => [
        path,
        htmlPage(
          `Firing step ${page + 1}`,
          Array.from(
            { length: 3 },
            (_, paragraph) =>
              `Step ${page + 1}.${paragraph + 1}: ${'raise the kiln slowly through cone ramps and hold the glaze soak. '.repeat(12)}`,
          ),
        ),
      ]),
    ),
  };
}

/**
 * Issue 13 item 4: `npm start` killed once (SIGKILL to its whole process
 * group, as the OOM killer or a crash would) while every consumer but the
 * ingestion worker has work under way, then started again on the same data
 * directory:
 *
 * - the scheduler's sync (a source due at once, the timer at 300 ms) mid-crawl
 *   of a loopback website, a page held unanswered: the sync worker killed
 *   mid-job;
 * - a manual sync queued behind it (job `queued`, its message not received);
 * - the webhook dispatcher with deliveries in flight (the receiver holds the
 *   POSTs) and the outbox publisher with events not yet published (the
 *   deliveries loop waits on those POSTs, so it has not swept them).
 *
 * One kill for all of them: a start of `npm start` costs seconds. (The
 * ingestion worker's kills are in kill-mid-ingestion.test.ts.) After the
 * restart both syncs end `succeeded` (never stuck `processing`) with the
 * chunks of a clean sync of the same site, read back from the index files as
 * the next start would (none lost, none twice), and every event reaches the
 * receiver at least once, signed (P69, P105, P107).
 */
describe('npm start killed mid-sync, mid-delivery and mid-scheduled-sync (issue 13)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-kill-work-'));
  let site: LoopbackSite;
  let receiver: WebhookReceiver;
  let server: Running | undefined;
  beforeAll(async () => {
    site = await startLoopbackSite(manualSite);
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    if (server) await killTree(server);
    await site.close();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('ends every job, keeps the index exact and delivers every event at least once', async () => {
    // Prepare: the service, a webhook for everything, and a clean sync to compare with
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = {
      ...LOCAL_RECEIVERS_ENV,
      SVC_DATA_DIR: dataDir,
      PORT: String(port),
      SVC_DYNAMODB_PORT: '0',
      SVC_WORKER_INTERVAL_MS: '100',
      SVC_SCHEDULER_INTERVAL_MS: '300',
    };
    const startServer = async () => {
      server = start(ENTRY_POINTS.start, [], env, { ownProcessGroup: true });
      return server.waitFor(/Press Ctrl-C to stop/, 60_000);
    };
    const restart = async () => {
      if (server) await killTree(server);
      await startServer();
    };
    const key = /^ {2}(svcsk_test_\w+)$/m.exec(await startServer())?.[1] ?? '';
    const post = async (path: string, body: Record<string, unknown>) => {
      const response = await api(url, path, { method: 'POST', key, body });
      if (response.status >= 300) throw new Error(`${path}: ${response.status} ${response.text}`);
      return json(response);
    };
    const statusOf = async (id: string) =>
      json(await api(url, `/api/v1/data-sources/${id}/status`, { key }));
    const finished = (id: string) =>
      eventually(`data source ${id} to finish`, async () => {
        const status = await statusOf(id);
        return status.status === 'active' || status.status === 'failed' ? status : undefined;
      });
    const website = (name: string, frequency: string) =>
      post('/api/v1/data-sources', {
        type: 'website',
        name,
        config: { url: site.url('/'), max_pages: 50 },
        sync_frequency: frequency,
      });
    const hook = await post('/api/v1/webhooks', {
      url: receiver.url(),
      events: ['agent.created', 'datasource.processed', 'datasource.failed'],
    });
    const clean = await website('Clean', 'manual');
    await post(`/api/v1/data-sources/${clean.id}/sync`, {});
    expect(await finished(clean.id)).toMatchObject({ status: 'active', job_status: 'succeeded' });

    // Act: kill the scheduler's sync mid-crawl, with a manual sync queued behind it,
    // deliveries in flight and events not yet published
    const releaseHeld = site.hold('/p8');
    const scheduled = await website('Scheduled', 'hourly');
    await eventually('the scheduled crawl to reach the held page', async () =>
      site.hits('/p8') > 1 ? true : undefined,
    );
    const queued = await website('Queued behind', 'manual');
    await post(`/api/v1/data-sources/${queued.id}/sync`, {});
    receiver.answerWith(answers.hang);
    const receiptsBefore = receiver.receipts.length;
    // At once, so one round of the deliveries loop most likely publishes and sends them all.
    const agentIds: string[] = await Promise.all(
      ['In flight 1', 'In flight 2', 'In flight 3'].map(
        async (name) => (await post('/api/v1/agents', { name, data_source_ids: [] })).id,
      ),
    );
    await eventually('deliveries in flight', async () =>
      receiver.receipts.length > receiptsBefore ? true : undefined,
    );
    // The deliveries loop now waits on the held POSTs (up to SVC_WEBHOOK_TIMEOUT_MS): these stay in the outbox.
    for (const name of ['Unpublished 1', 'Unpublished 2', 'Unpublished 3'])
      agentIds.push((await post('/api/v1/agents', { name, data_source_ids: [] })).id);
    expect((await statusOf(scheduled.id)).status).toBe('processing');
    expect((await statusOf(queued.id)).job_status).toBe('queued');
    const inFlight = receiver.receipts.length - receiptsBefore;
    receiver.answerWith(answers.ok);
    releaseHeld();
    await restart();

    // Assess: every job ended, once; the index exact; every event delivered at least once, signed
    const cleanChunks = (await statusOf(clean.id)).chunks_indexed;
    for (const source of [scheduled, queued]) {
      expect(await finished(source.id)).toMatchObject({
        status: 'active',
        job_status: 'succeeded',
        chunks_indexed: cleanChunks,
      });
    }
    const deliveries = await eventually('every delivery to be delivered', async () => {
      const listed = json(
        await api(url, `/api/v1/webhooks/${hook.id}/deliveries?limit=200`, { key }),
      ).deliveries as Record<string, any>[];
      // The last sync's event may reach the outbox a round after its job ends: wait for all nine.
      return listed.length >= 9 && listed.every((delivery) => delivery.status === 'delivered')
        ? listed
        : undefined;
    });
    // 6 agents, and one datasource.processed per sync: clean, scheduled, queued (a rerun of a job sends no second event).
    expect(deliveries).toHaveLength(9);
    const answeredOk = receiver.receipts.filter((receipt) => receipt.answer === answers.ok);
    const createdAgents = new Set(
      answeredOk
        .filter((receipt) => receipt.envelope.type === 'agent.created')
        .map((receipt) => receipt.envelope.data.id),
    );
    expect([...createdAgents].sort()).toEqual([...agentIds].sort());
    const processed = answeredOk
      .filter((receipt) => receipt.envelope.type === 'datasource.processed')
      .map((receipt) => receipt.envelope.data.dataSource.id);
    expect(new Set(processed)).toEqual(new Set([clean.id, scheduled.id, queued.id]));
    for (const delivery of deliveries)
      expect(answeredOk.some((receipt) => receipt.envelope.id === delivery.event_id)).toBe(true);
    for (const receipt of receiver.receipts) expectSignedWith(receipt, hook.secret);
    expect(inFlight).toBeGreaterThanOrEqual(1);

    await server?.stop();
    server = undefined;
    const chunks = await indexedChunks(join(dataDir, 'index'));
    const layout = (dataSourceId: string) =>
      chunks
        .filter((chunk) => chunk.data_source_id === dataSourceId)
        .map((chunk) => `${chunk.document_url}#${chunk.position}`)
        .sort();
    const cleanLayout = layout(clean.id);
    expect(cleanLayout.length).toBeGreaterThan(PAGES.length);
    expect(new Set(cleanLayout).size).toBe(cleanLayout.length); // no chunk twice
    expect(layout(queued.id)).toEqual(cleanLayout);
    expect(layout(scheduled.id)).toEqual(cleanLayout);
  }, 240_000);
});

/** Every chunk the embedded index holds on disk, read back as a restart would (snapshot, then log). */
async function indexedChunks(directory: string) {
  const chunks = new Map<string, StoredChunk>();
  for (const file of readdirSync(directory).filter((name) => name.endsWith('.log'))) {
    const orgId = decodeURIComponent(file.slice(0, -'.log'.length));
    const loaded = await new OrgIndexFiles(directory, orgId).load();
    const operations = loaded.operations;
    const snapshot =
      loaded.format === 1
        ? loaded.chunks.map(({ chunk }) => chunk)
        : chunksInMemory(loaded.image?.chunks ?? []).flatMap((chunk) => (chunk ? [chunk] : []));
    for (const chunk of snapshot) chunks.set(chunk.chunk_id, chunk);
    for (const operation of operations) {
      if (operation.op === 'upsert') {
        for (const { chunk } of operation.chunks) chunks.set(chunk.chunk_id, chunk);
      } else {
        for (const [id, chunk] of chunks) {
          if (
            chunk.data_source_id === operation.data_source_id &&
            (operation.op === 'deleteDataSource' || chunk.document_id === operation.document_id)
          )
            chunks.delete(id);
        }
      }
    }
  }
  return [...chunks.values()];
}
