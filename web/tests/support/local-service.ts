import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..', '..');

export interface LocalService {
  /** `http://127.0.0.1:<port>`: the console and the API, on one origin. */
  readonly url: string;
  /** The bootstrap organization's Admin API key, printed on first start. */
  readonly adminKey: string;
  readonly orgId: string;
  /** Its data directory and DynamoDB port, for `npx svc` (the operator CLI) to reach it. */
  readonly dataDir: string;
  readonly dynamoDbPort: number;
  /** Everything the service printed, for a failing test to show. */
  output(): string;
  stop(): Promise<void>;
}

export interface LocalServiceOptions {
  /** Makes the first administrator at start (SVC_BOOTSTRAP_ADMIN_EMAIL and _PASSWORD). */
  readonly admin?: { readonly email: string; readonly password: string };
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * The real local runtime as `npm start` runs it (bin/local.ts through tsx),
 * on a free port with a data directory of its own that is removed when it
 * stops. Resolves once the start banner names the address and the key.
 */
export async function startLocalService(options: LocalServiceOptions = {}): Promise<LocalService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-console-'));
  const child: ChildProcess = spawn(
    process.execPath,
    [require.resolve('tsx/cli', { paths: [ROOT] }), 'bin/local.ts'],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: '0',
        SVC_DYNAMODB_PORT: '0',
        SVC_DATA_DIR: dataDir,
        ...(options.admin
          ? {
              SVC_BOOTSTRAP_ADMIN_EMAIL: options.admin.email,
              SVC_BOOTSTRAP_ADMIN_PASSWORD: options.admin.password,
            }
          : {}),
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const forced = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(forced);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const started = await new Promise<{
      url: string;
      adminKey: string;
      orgId: string;
      dynamoDbPort: number;
    }>((done, fail) => {
      const timeout = setTimeout(
        () => fail(new Error(`the service did not start:\n${output}`)),
        60_000,
      );
      const read = (chunk: Buffer) => {
        output += chunk.toString('utf8');
        const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
        const adminKey = /\b(svcsk_test_\w+)/.exec(output)?.[1];
        const orgId = /organization: (org_\w+)/.exec(output)?.[1];
        const dynamoDbPort = Number(/DynamoDB \(dynalite\): \S+:(\d+)/.exec(output)?.[1]);
        if (url && adminKey && orgId && output.includes('Press Ctrl-C to stop.')) {
          clearTimeout(timeout);
          done({ url, adminKey, orgId, dynamoDbPort });
        }
      };
      child.stdout?.on('data', read);
      child.stderr?.on('data', read);
      child.once('exit', (code) => {
        clearTimeout(timeout);
        fail(new Error(`the service exited with ${code}:\n${output}`));
      });
    });
    return { ...started, dataDir, output: () => output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
