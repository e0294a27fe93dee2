import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository's root (this file is lib/console/console-assets.ts). */
const REPOSITORY_ROOT = resolve(__dirname, '..', '..');

/** Where `node web/build.mjs` writes the console, relative to the repository's root. */
export const CONSOLE_BUILD_OUTPUT = join('web', 'dist');
/** The console's build script, relative to the repository's root. */
export const CONSOLE_BUILD_SCRIPT = join('web', 'build.mjs');

/** The console could not be found or built: the operator's to fix, said without a stack trace. */
export class ConsoleAssetsError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ConsoleAssetsError';
  }
}

/**
 * The built console's directory (web/dist), built first with
 * `node web/build.mjs` when its index.html is missing, so `npx cdk synth`
 * and `deploy` work from a fresh clone (issue 21). The build's output goes
 * to stderr: the CDK app's stdout is not ours to write to.
 */
export function consoleAssetsDirectory(root: string = REPOSITORY_ROOT): string {
  const output = join(root, CONSOLE_BUILD_OUTPUT);
  const index = join(output, 'index.html');
  if (existsSync(index)) return output;
  const script = join(root, CONSOLE_BUILD_SCRIPT);
  if (!existsSync(script)) {
    throw new ConsoleAssetsError(
      `The web console is not built (no ${join(CONSOLE_BUILD_OUTPUT, 'index.html')}) and ${CONSOLE_BUILD_SCRIPT}, which builds it, is missing from ${root}: the stack serves the console and cannot be synthesized without it.`,
    );
  }
  const build = spawnSync(process.execPath, [script], {
    cwd: root,
    stdio: ['ignore', process.stderr, process.stderr],
  });
  if (build.error || build.status !== 0) {
    throw new ConsoleAssetsError(
      `Building the web console (node ${CONSOLE_BUILD_SCRIPT}) failed${build.status === null ? '' : ` with exit code ${build.status}`}; its output is above.`,
      { cause: build.error },
    );
  }
  if (!existsSync(index)) {
    throw new ConsoleAssetsError(
      `node ${CONSOLE_BUILD_SCRIPT} finished without writing ${join(CONSOLE_BUILD_OUTPUT, 'index.html')}.`,
    );
  }
  return output;
}
