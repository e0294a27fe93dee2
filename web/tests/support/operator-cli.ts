import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import type { LocalService } from './local-service';

const ROOT = resolve(__dirname, '..', '..', '..');

/**
 * `svc …` (D36, the operator CLI) against the running runtime, as an
 * operator types it: what only the operator may do (a second organization,
 * its first user) is made the way the README says, not behind the API's back.
 */
export function svc(
  service: LocalService,
  args: readonly string[],
  stdin?: string,
): Promise<Record<string, unknown>> {
  return new Promise((done, fail) => {
    const child = execFile(
      process.execPath,
      [require.resolve('tsx/cli', { paths: [ROOT] }), 'bin/cli.ts', ...args, '--json'],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          SVC_DATA_DIR: service.dataDir,
          SVC_DYNAMODB_PORT: String(service.dynamoDbPort),
        },
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        if (error) fail(new Error(`svc ${args.join(' ')}: ${stderr || error.message}`));
        else done(JSON.parse(stdout) as Record<string, unknown>);
      },
    );
    child.stdin?.end(stdin ?? '');
  });
}
