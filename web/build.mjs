// The web console's build (P227): esbuild bundles web/src/app/main.tsx with
// its lazily loaded screens into web/dist, every file under assets/ named by
// its content's hash so it can be cached for a year, and writes index.html
// naming them (never cached). dist/meta.json is esbuild's metafile: what
// each output weighs and which inputs it holds (for bundle size checks).
//
//   node web/build.mjs             builds
//   node web/build.mjs --if-stale  builds only when an input changed since the last build
//                                  (what `npm start` does, as bin/cli-bundle.cjs does for the CLI)
//
// Exit status 3: esbuild is not installed (`npm ci --omit=dev`); the runtime then starts without
// the console and says so.
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const WEB = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(WEB, '..');
const DIST = join(WEB, 'dist');
const INPUTS = join(DIST, 'inputs.json');
/** Files the build reads besides what esbuild reports as its inputs. */
const ALSO_READ = ['web/index.html', 'web/build.mjs', 'web/public/favicon.svg'];

/** @returns {boolean} true when every recorded input still has its recorded mtime */
export function isFresh() {
  let recorded;
  try {
    recorded = JSON.parse(readFileSync(INPUTS, 'utf8'));
    statSync(join(DIST, 'index.html'));
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

/** Builds into a folder of its own, then puts it in place of web/dist in one rename. */
export async function build() {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    return false;
  }
  const staging = join(WEB, `.dist-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: { main: 'web/src/app/main.tsx' },
    outdir: staging,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome120', 'firefox120', 'safari17'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: 'assets/[name]-[hash]',
    chunkNames: 'assets/[name]-[hash]',
    assetNames: 'assets/[name]-[hash]',
    minify: true,
    sourcemap: 'linked',
    metafile: true,
    legalComments: 'linked',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'error',
  });
  const outputs = Object.entries(result.metafile.outputs);
  const entry = outputs.find(([, output]) => output.entryPoint === 'web/src/app/main.tsx');
  if (!entry) throw new Error('esbuild wrote no output for web/src/app/main.tsx');
  const href = (output) => `/${relative(staging, resolve(ROOT, output))}`;
  const mainStyles = entry[1].cssBundle;
  if (!mainStyles) throw new Error('the console has no stylesheet: main.tsx imports none');
  // A screen's own stylesheet comes out beside its chunk, and loading the chunk does not load
  // it: every stylesheet is linked from the page (they are small; the scripts stay lazy).
  const screenStyles = outputs
    .map(([output]) => output)
    .filter((output) => output.endsWith('.css') && output !== mainStyles)
    .sort();
  const links = [mainStyles, ...screenStyles]
    .map((output) => `<link rel="stylesheet" href="${href(output)}" />`)
    .join('\n    ');
  const html = readFileSync(join(WEB, 'index.html'), 'utf8')
    .replace('<link rel="stylesheet" href="/src/app/main.css" />', links)
    .replace('/src/app/main.tsx', href(entry[0]));
  if (html.includes('/src/'))
    throw new Error('web/index.html names a source file the build did not replace');
  writeFileSync(join(staging, 'index.html'), html);
  writeFileSync(join(staging, 'favicon.svg'), readFileSync(join(WEB, 'public', 'favicon.svg')));
  writeFileSync(join(staging, 'meta.json'), JSON.stringify(result.metafile));
  const inputs = {};
  for (const file of [...Object.keys(result.metafile.inputs), ...ALSO_READ]) {
    inputs[file] = statSync(join(ROOT, file)).mtimeMs;
  }
  writeFileSync(join(staging, 'inputs.json'), JSON.stringify(inputs));
  rmSync(DIST, { recursive: true, force: true });
  try {
    renameSync(staging, DIST);
  } catch (error) {
    // Another process built it at the same moment (two `npm start`s, parallel tests): theirs stands.
    rmSync(staging, { recursive: true, force: true });
    if (!isFresh()) throw error;
  }
  return true;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ifStale = process.argv.includes('--if-stale');
  if (ifStale && isFresh()) process.exit(0);
  const started = Date.now();
  const built = await build();
  if (!built) {
    console.error('The console cannot be built: esbuild is not installed (npm install).');
    process.exit(3);
  }
  console.log(`Built the console into web/dist in ${Date.now() - started} ms`);
}
