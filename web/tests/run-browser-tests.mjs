// `npm run test:browser` (the last step of `npm test`): the console's browser specs in Debian's
// Chromium. Playwright never downloads a browser here: the one installed by
// `apt-get install -y --no-install-recommends chromium` is found on the PATH (or CONSOLE_CHROMIUM).
// Without it the specs are skipped with one line saying how to install it — except where
// CONSOLE_BROWSER_REQUIRED=1 (.ci/run sets it), where a missing browser fails the run.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const INSTALL = 'apt-get install -y --no-install-recommends chromium';

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function findChromium() {
  if (process.env.CONSOLE_CHROMIUM) {
    return executable(process.env.CONSOLE_CHROMIUM) ? process.env.CONSOLE_CHROMIUM : null;
  }
  for (const directory of (process.env.PATH ?? '').split(delimiter)) {
    for (const name of ['chromium', 'chromium-browser']) {
      const candidate = join(directory, name);
      if (executable(candidate)) return candidate;
    }
  }
  return null;
}

const chromium = findChromium();
if (!chromium) {
  if (process.env.CONSOLE_BROWSER_REQUIRED === '1') {
    console.error(
      `Browser specs: no Chromium found, and CONSOLE_BROWSER_REQUIRED=1. Install it: ${INSTALL}`,
    );
    process.exit(1);
  }
  console.log(`Browser specs skipped: no Chromium on this machine (install it with: ${INSTALL}).`);
  process.exit(0);
}

const build = spawnSync(process.execPath, [join(ROOT, 'web', 'build.mjs')], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const run = spawnSync(
  process.execPath,
  [
    join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js'),
    'test',
    '--config',
    join(ROOT, 'web', 'playwright.config.ts'),
    ...process.argv.slice(2),
  ],
  {
    stdio: 'inherit',
    env: { ...process.env, CONSOLE_CHROMIUM: chromium, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
  },
);
process.exit(run.status ?? 1);
