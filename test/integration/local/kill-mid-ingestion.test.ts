import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENTRY_POINTS, killTree, type Running, start } from '../../support/child-process';
import { api, json } from '../../support/http-client';
import { sendUpload, type UploadTicket } from '../../support/uploads';

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

/**
 * Issue 14: `npm start` is killed (SIGKILL) every time it works on an
 * upload, and started again on the same data directory. Each start takes
 * the upload back at once (P69) with its receive count; after the fourth
 * working attempt the next delivery ends the file `failed` with the reason,
 * so nothing stays `processing`, and the API answers after every restart.
 */
describe('npm start killed mid-ingestion, again and again (issue 14)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-kill-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('ends the file failed with the reason, and loses nothing else', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = { SVC_DATA_DIR: dataDir, PORT: String(port), SVC_DYNAMODB_PORT: '0' };
    let server: Running = start(ENTRY_POINTS.start, [], env, { ownProcessGroup: true });
    const stdout = await server.waitFor(/Press Ctrl-C to stop/, 60_000);
    const key = /^ {2}(svcsk_test_\w+)$/m.exec(stdout)?.[1] ?? '';

    // Prepare: an agent to find again, and an upload that takes seconds to chunk
    const agent = json(
      await api(url, '/api/v1/agents', {
        method: 'POST',
        key,
        body: { name: 'Survivor', data_source_ids: [] },
      }),
    );
    const source = json(
      await api(url, '/api/v1/data-sources', {
        method: 'POST',
        key,
        body: { type: 'file', name: 'Poison', sync_frequency: 'manual' },
      }),
    );
    const bytes = Buffer.alloc(20e6, 'x');
    const ticket = json(
      await api(url, `/api/v1/data-sources/${source.id}/files`, {
        method: 'POST',
        key,
        body: { filename: 'run.txt', size_bytes: bytes.length },
      }),
    ) as UploadTicket;
    expect((await sendUpload(ticket, bytes, { filename: 'run.txt' })).status).toBe(204);
    const file = async () => {
      const response = await api(
        url,
        `/api/v1/data-sources/${source.id}/files/${ticket.document_id}`,
        { key },
      );
      if (response.status !== 200)
        throw new Error(`file record: ${response.status} ${response.text}`);
      return json(response);
    };

    // Act: kill the server whenever a new attempt is under way, until the file is no longer processing
    let kills = 0;
    let attemptSeen = '';
    for (let starts = 1; starts <= 7; starts += 1) {
      let record = await file();
      while (
        record.status === 'processing'
          ? record.updated_at === attemptSeen
          : record.status !== 'failed' && record.status !== 'indexed'
      ) {
        await pause(400); // the Read bucket allows 200 a minute
        record = await file();
      }
      if (record.status !== 'processing') break;
      attemptSeen = record.updated_at;
      await killTree(server);
      kills += 1;
      server = start(ENTRY_POINTS.start, [], env, { ownProcessGroup: true });
      await server.waitFor(/Press Ctrl-C to stop/, 60_000);
      expect((await api(url, '/api/v1/agents', { key })).status).toBe(200);
    }

    // Assess
    try {
      expect(kills).toBe(4);
      expect(await file()).toMatchObject({
        status: 'failed',
        error: expect.stringMatching(/did not finish in 4 attempts/),
      });
      const kept = await api(url, `/api/v1/agents/${agent.id}`, { key });
      expect(json(kept)).toMatchObject({ name: 'Survivor' });
    } finally {
      await server.stop();
    }
  }, 240_000);
});
