import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { parseLocalConfig } from '../../../lib/local/local-config';
import { startLocalRuntime } from '../../../lib/local/runtime';
import { ENTRY_POINTS, REPO_ROOT, run } from '../../support/child-process';

// The CommonJS module bin/svc.cjs loads to find its bundle.
const { BUNDLE, cliBundle } = require('../../../bin/cli-bundle.cjs') as {
  BUNDLE: string;
  cliBundle: () => string | null;
};

const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  version: string;
};

describe('npx svc (bin/svc.cjs): the bundled entry point, --version and --help', () => {
  it('prints the package version from its bundle, built once and then reused', async () => {
    await run(ENTRY_POINTS.svc, ['--version'], {}); // builds the bundle if stale
    const built = statSync(BUNDLE).mtimeMs;

    const result = await run(ENTRY_POINTS.svc, ['--version'], {});

    expect(result).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
    // The work that made it slow, not a time (docs/benchmarks.md has the times): the second
    // call neither rebuilds the bundle nor falls back to compiling TypeScript through tsx.
    expect(statSync(BUNDLE).mtimeMs).toBe(built);
    expect(cliBundle()).toBe(BUNDLE);
  });

  it('explains one group of commands', async () => {
    const result = await run(ENTRY_POINTS.svc, ['orgs', '--help'], {});

    expect(result.code).toBe(0);
    expect(result.stdout).toContain('orgs create --name NAME');
    expect(result.stdout).toContain('orgs list [--json]');
    expect(result.stdout).not.toContain('keys create');
  });

  it('explains one command, with where it works', async () => {
    const result = await run(ENTRY_POINTS.svc, ['keys', 'create', '--help'], {});

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: svc keys create --org ORG_ID --scopes/);
    expect(result.stdout).toContain('--stack NAME');
    expect(result.stdout).toContain('prints it once, to standard output only');
  });

  it('says in one line that SVC_DYNAMODB_PORT is wrong while the server holds the data', async () => {
    // Prepare: a server on its data directory, its DynamoDB on some free port
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-wrong-port-'));
    const runtime = await startLocalRuntime(
      parseLocalConfig({
        SVC_DATA_DIR: dataDir,
        PORT: '0',
        SVC_DYNAMODB_PORT: '0',
        SVC_WORKER_INTERVAL_MS: '0',
      }),
    );
    try {
      // Act: a port where nothing listens (the server's, plus one, is as good as any)
      const wrongPort = String(Number(new URL(runtime.dynamoDbEndpoint).port) + 1);
      const result = await run(ENTRY_POINTS.svc, ['orgs', 'list'], {
        SVC_DATA_DIR: dataDir,
        SVC_DYNAMODB_PORT: wrongPort,
      });

      // Assess
      expect(result.code).toBe(1);
      expect(result.stdout.trim()).toBe(
        `Error: The service is running on ${dataDir}, but its DynamoDB does not answer on port ${wrongPort} (SVC_DYNAMODB_PORT): use the port \`npm start\` printed`,
      );
      expect(result.stderr).toBe('');
    } finally {
      await runtime.end();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
