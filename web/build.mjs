// The web console's build (P227): esbuild bundles web/src/app/main.tsx with
// its lazily loaded screens into web/dist, every file under assets/ named by
// its content's hash so it can be cached for a year, and writes index.html
// naming them (never cached). The page links only the shell's stylesheet: a
// lazily loaded screen's stylesheet is loaded by its chunk, which waits for it
// before the screen renders (see loadsItsStylesheet). web/public's files are
// copied beside index.html (favicon.svg, robots.txt). dist/meta.json is esbuild's metafile: what
// each output weighs and which inputs it holds (for bundle size checks).
//
//   node web/build.mjs             builds
//   node web/build.mjs --if-stale  builds only when an input changed since the last build
//                                  (what `npm start` does, as bin/cli-bundle.cjs does for the CLI)
//
// Exit status 3: esbuild is not installed (`npm ci --omit=dev`); the runtime then starts without
// the console and says so.
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const WEB = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(WEB, '..');
const DIST = join(WEB, 'dist');
const INPUTS = join(DIST, 'inputs.json');
/** Files the build reads besides what esbuild reports as its inputs. */
const ENTRY = 'web/src/app/main.tsx';
/** Files copied as they are, under their own names, from web/public. */
const PUBLIC_FILES = ['favicon.svg', 'robots.txt'];
/** Files the build reads besides what esbuild reports as its inputs. */
const ALSO_READ = [
  'web/index.html',
  'web/build.mjs',
  ...PUBLIC_FILES.map((file) => `web/public/${file}`),
];
/** A virtual module standing for "wait for this stylesheet" (the build's own, never on disk). */
const STYLESHEET_MODULE = 'screen-stylesheet:';
const LOAD_STYLESHEET = join(WEB, 'src', 'app', 'stylesheets.ts');

/** esbuild's settings for the console, writing into `outdir`. */
function options(outdir) {
  return {
    absWorkingDir: ROOT,
    entryPoints: { main: ENTRY },
    outdir,
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
  };
}

/** An output's address on the site: `/assets/…`. */
function hrefOf(outdir, output) {
  return `/${relative(outdir, resolve(ROOT, output)).split(sep).join('/')}`;
}

/** Each lazily loaded module (by its source path) → the address of the stylesheet esbuild made for it. */
function stylesheetsOfScreens(metafile, outdir) {
  const styles = new Map();
  for (const output of Object.values(metafile.outputs)) {
    if (output.entryPoint && output.entryPoint !== ENTRY && output.cssBundle) {
      styles.set(output.entryPoint, hrefOf(outdir, output.cssBundle));
    }
  }
  return styles;
}

/**
 * Puts `await loadStylesheet(href)` at the top of each screen that has a
 * stylesheet, so importing the screen resolves once its styles apply.
 */
function loadsItsStylesheet(screenStyles) {
  const bySource = new Map(
    [...screenStyles].map(([screen, href]) => [resolve(ROOT, screen), href]),
  );
  return {
    name: 'loads-its-stylesheet',
    setup(plugin) {
      plugin.onLoad({ filter: /\.tsx?$/ }, (args) => {
        const href = bySource.get(args.path);
        if (!href) return undefined;
        const source = readFileSync(args.path, 'utf8');
        return {
          contents: `import ${JSON.stringify(STYLESHEET_MODULE + href)};\n${source}`,
          loader: args.path.endsWith('.tsx') ? 'tsx' : 'ts',
        };
      });
      plugin.onResolve({ filter: new RegExp(`^${STYLESHEET_MODULE}`) }, (args) => ({
        path: args.path.slice(STYLESHEET_MODULE.length),
        namespace: 'screen-stylesheet',
      }));
      plugin.onLoad({ filter: /.*/, namespace: 'screen-stylesheet' }, (args) => ({
        contents: `import { loadStylesheet } from ${JSON.stringify(LOAD_STYLESHEET)};\nawait loadStylesheet(${JSON.stringify(args.path)});\n`,
        loader: 'js',
        resolveDir: ROOT,
      }));
    },
  };
}

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
  // First pass, in memory: which stylesheet each lazily loaded screen gets (esbuild writes one per
  // screen, with every CSS file its modules import, and does not load it with the screen's code).
  const planned = await esbuild.build({ ...options(staging), write: false });
  const screenStyles = stylesheetsOfScreens(planned.metafile, staging);
  // Second pass, written: each such screen waits for its stylesheet at the top of its chunk.
  const result = await esbuild.build({
    ...options(staging),
    plugins: [loadsItsStylesheet(screenStyles)],
  });
  const again = stylesheetsOfScreens(result.metafile, staging);
  for (const [screen, href] of screenStyles) {
    // Stylesheets are named by their CSS alone, so the second pass names them as the first did.
    if (again.get(screen) !== href)
      throw new Error(`${screen}'s stylesheet was named ${href}, then ${again.get(screen)}`);
  }
  const outputs = Object.entries(result.metafile.outputs);
  const entry = outputs.find(([, output]) => output.entryPoint === ENTRY);
  if (!entry) throw new Error(`esbuild wrote no output for ${ENTRY}`);
  const mainStyles = entry[1].cssBundle;
  if (!mainStyles) throw new Error('the console has no stylesheet: main.tsx imports none');
  // The chunks the entry imports are fetched with it rather than after it has arrived.
  const preloads = entry[1].imports
    .filter((imported) => imported.kind === 'import-statement')
    .map((imported) => `<link rel="modulepreload" href="${hrefOf(staging, imported.path)}" />`);
  // Only the shell's stylesheet blocks the first render; a screen's comes with the screen.
  const html = readFileSync(join(WEB, 'index.html'), 'utf8')
    .replace(
      '<link rel="stylesheet" href="/src/app/main.css" />',
      [`<link rel="stylesheet" href="${hrefOf(staging, mainStyles)}" />`, ...preloads].join(
        '\n    ',
      ),
    )
    .replace('/src/app/main.tsx', hrefOf(staging, entry[0]));
  if (html.includes('/src/'))
    throw new Error('web/index.html names a source file the build did not replace');
  writeFileSync(join(staging, 'index.html'), html);
  for (const file of PUBLIC_FILES) {
    writeFileSync(join(staging, file), readFileSync(join(WEB, 'public', file)));
  }
  writeFileSync(join(staging, 'meta.json'), JSON.stringify(result.metafile));
  const inputs = {};
  // The stylesheet modules are the build's own, not files.
  const files = Object.keys(result.metafile.inputs).filter((file) => !file.includes(':'));
  for (const file of [...files, ...ALSO_READ]) {
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
