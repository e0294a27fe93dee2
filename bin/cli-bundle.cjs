// The admin CLI's bundle: bin/cli.ts and the project sources it imports, built
// by esbuild into one CommonJS file. Running TypeScript through tsx compiled
// about 150 files on every `npx svc` call (seconds each time); the bundle
// loads in a fraction of that. npm packages stay outside it (`packages:
// 'external'`) and load from node_modules as usual.
//
// The bundle lives in node_modules/.cache (ignored by git, and gone after
// `npm ci`, so a dependency change never meets an old bundle). It is rebuilt
// whenever one of the files it was built from changed: their mtimes are kept
// beside it and compared on every call, a few hundred microseconds.
const { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } = require('node:fs');
const { join, resolve } = require('node:path');

const ROOT = resolve(__dirname, '..');
const CACHE = join(ROOT, 'node_modules', '.cache', 'agent-query-service');
const BUNDLE = join(CACHE, 'svc-cli.cjs');
const INPUTS = join(CACHE, 'svc-cli.inputs.json');

/** @returns {boolean} true when every recorded input still has its recorded mtime */
function isFresh() {
  let recorded;
  try {
    recorded = JSON.parse(readFileSync(INPUTS, 'utf8'));
    statSync(BUNDLE);
  } catch {
    return false;
  }
  const entries = Object.entries(recorded);
  if (entries.length === 0) return false;
  try {
    return entries.every(([file, mtimeMs]) => statSync(join(ROOT, file)).mtimeMs === mtimeMs);
  } catch {
    return false; // an input was deleted or moved
  }
}

/**
 * Builds the bundle. Writes go to per-process files renamed into place, so
 * two calls building at once never leave a half-written bundle.
 * @returns {boolean} false when esbuild is not installed (`npm ci --omit=dev`)
 */
function build() {
  let esbuild;
  try {
    esbuild = require('esbuild');
  } catch {
    return false;
  }
  mkdirSync(CACHE, { recursive: true });
  const temporary = `${BUNDLE}.${process.pid}.tmp`;
  const result = esbuild.buildSync({
    absWorkingDir: ROOT,
    entryPoints: ['bin/cli.ts'],
    outfile: temporary,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    sourcemap: 'inline',
    metafile: true,
    logLevel: 'error',
  });
  const inputs = {};
  for (const file of Object.keys(result.metafile.inputs)) {
    inputs[file] = statSync(join(ROOT, file)).mtimeMs;
  }
  const inputsTemporary = `${INPUTS}.${process.pid}.tmp`;
  writeFileSync(inputsTemporary, JSON.stringify(inputs));
  renameSync(temporary, BUNDLE);
  renameSync(inputsTemporary, INPUTS);
  return true;
}

/**
 * The path of an up-to-date bundle, built first if needed; null when it
 * cannot be built, and the caller runs the TypeScript through tsx instead.
 * @returns {string | null}
 */
function cliBundle() {
  if (isFresh() || build()) return BUNDLE;
  return null;
}

module.exports = { cliBundle, BUNDLE };
