import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENTRY_POINTS, run, start } from '../../support/child-process';
import { api } from '../../support/http-client';

/** Holds a loopback port, as another program would. */
function occupyPort(): Promise<{ port: number; server: Server }> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ port: typeof address === 'object' && address ? address.port : 0, server });
    });
  });
}

const printedKey = (stdout: string) => /^ {2}(svcsk_test_\w+)$/m.exec(stdout)?.[1];

describe('npm start (bin/local.ts): first start and bad settings (D36)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-first-start-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('shows a working bootstrap key on the start after one that failed on a busy port', async () => {
    // Prepare
    const busy = await occupyPort();
    const env = { SVC_DATA_DIR: dataDir, PORT: String(busy.port), SVC_DYNAMODB_PORT: '0' };

    // Act: the first start creates the organization, then cannot listen
    const failed = await run(ENTRY_POINTS.start, [], env);
    await new Promise<void>((resolve) => busy.server.close(() => resolve()));
    const second = start(ENTRY_POINTS.start, [], env);
    try {
      const stdout = await second.waitFor(/Press Ctrl-C to stop/);
      const key = printedKey(stdout);

      // Assess
      expect(failed.code).toBe(1);
      expect(failed.stderr.trim()).toBe(`Port ${busy.port} (PORT) is in use`);
      expect(failed.stdout).not.toMatch(/svcsk_/);
      expect(stdout).toContain('stopped before showing it; that key is revoked');
      expect(key).toBeDefined();
      const agents = await api(`http://127.0.0.1:${busy.port}`, '/api/v1/agents', { key });
      expect(agents.status).toBe(200);
    } finally {
      await second.stop();
    }

    // A third start has nothing left to show: the key above was shown.
    const third = start(ENTRY_POINTS.start, [], env);
    try {
      const stdout = await third.waitFor(/Press Ctrl-C to stop/);
      expect(stdout).toContain('the bootstrap key was shown on first start');
      expect(stdout).not.toMatch(/svcsk_/);
    } finally {
      await third.stop();
    }
  }, 60_000);

  it('exits with one clear line when SVC_DATA_DIR cannot be created', async () => {
    const result = await run(
      ENTRY_POINTS.start,
      [],
      { SVC_DATA_DIR: '/proc/nope', PORT: '0', SVC_DYNAMODB_PORT: '0' },
      15_000,
    );

    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      'SVC_DATA_DIR: cannot keep data in /proc/nope (ENOENT); point it at a writable directory',
    );
  });
});
