import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
/** What web/build.mjs writes, and the local runtime serves. */
export const CONSOLE_DIRECTORY = join(ROOT, 'web', 'dist');

export type ConsoleBuild =
  | { readonly built: true; readonly directory: string }
  | { readonly built: false; readonly reason: string };

/**
 * `npm start` serves the console, built first when it is missing or
 * any file it was built from changed (web/build.mjs --if-stale compares
 * their mtimes, as bin/cli-bundle.cjs does for the CLI), so the README's
 * two commands still do everything. A build that cannot run (esbuild left
 * out by `npm ci --omit=dev`) or fails leaves the API serving without it.
 */
export function ensureConsoleBuilt(): ConsoleBuild {
  const run = spawnSync(process.execPath, [join(ROOT, 'web', 'build.mjs'), '--if-stale'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (run.stdout) process.stdout.write(run.stdout);
  if (run.status === 0) return { built: true, directory: CONSOLE_DIRECTORY };
  const said = `${run.stderr ?? ''}${run.error?.message ?? ''}`.trim();
  return { built: false, reason: said || `web/build.mjs exited with ${run.status}` };
}
