import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type BuildOptions, build, type Metafile } from 'esbuild';
import { FAMILIES } from '../../layers/core/http/routes/route-table';
import {
  LAMBDA_BUNDLING as CONSTRUCT_BUNDLING,
  functionBuildOptions,
  LOADED_ON_FIRST_USE,
  PROVIDED_BY_RUNTIME,
} from '../../lib/constructs/function-bundle';

/**
 * The stack's bundling (lib/constructs/function-bundle.ts) as esbuild options,
 * with the source map a `functionSourceMaps` deployment ships (P54), so its
 * size and init cost can be reported too.
 */
export const LAMBDA_BUNDLING = {
  bundle: CONSTRUCT_BUNDLING.bundle,
  platform: CONSTRUCT_BUNDLING.platform,
  target: CONSTRUCT_BUNDLING.target,
  format: CONSTRUCT_BUNDLING.format,
  minify: CONSTRUCT_BUNDLING.minify,
  alias: CONSTRUCT_BUNDLING.alias,
  sourcemap: true,
  sourcesContent: false,
} as const satisfies BuildOptions;

/** The Lambda Node.js runtime ships the AWS SDK v3, so the stack leaves it out. */
export { PROVIDED_BY_RUNTIME };

export interface BundleVariantSize {
  /** `index.js`, minified. */
  readonly bytes: number;
  readonly gzipBytes: number;
  /** `index.js.map` (no sources content), deployed beside it only with `functionSourceMaps` (P54). */
  readonly mapBytes: number;
  /** `index.js` and its map, each gzipped: about what a `functionSourceMaps` deployment's zip holds. */
  readonly packageGzipBytes: number;
  /** The largest contributors to the minified output: npm packages, or `(project)`. */
  readonly largest: readonly { readonly name: string; readonly bytes: number }[];
}

export interface FunctionBundleSize {
  readonly name: string;
  readonly entry: string;
  /** `@aws-sdk/*` external, as deployed today. */
  readonly sdkExternal: BundleVariantSize;
  /** `@aws-sdk/*` bundled too. */
  readonly sdkBundled: BundleVariantSize;
}

/**
 * Every function: the HTTP families of the route table, the fallback, and
 * any other folder under functions/ with a handler (workers).
 */
export function functionNames(root: string): string[] {
  const folders = readdirSync(join(root, 'functions'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .filter((name) => existsSync(join(root, 'functions', name, 'handler.ts')))
    .sort();
  return [...new Set([...FAMILIES, 'fallback', ...folders])];
}

/** Bundles each function twice into a temporary directory and measures the output. */
export async function measureBundleSizes(root: string): Promise<FunctionBundleSize[]> {
  const outdir = mkdtempSync(join(tmpdir(), 'svc-bench-bundles-'));
  try {
    const sizes: FunctionBundleSize[] = [];
    for (const name of functionNames(root)) {
      const entry = join(root, 'functions', name, 'handler.ts');
      if (!existsSync(entry)) throw new Error(`functions/${name}/handler.ts does not exist`);
      sizes.push({
        name,
        entry: relative(root, entry),
        sdkExternal: await bundle(entry, join(outdir, 'sdk-external', name), PROVIDED_BY_RUNTIME),
        sdkBundled: await bundle(entry, join(outdir, 'sdk-bundled', name), []),
      });
    }
    return sizes;
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

async function bundle(
  entry: string,
  outdir: string,
  external: readonly string[],
): Promise<BundleVariantSize> {
  const outfile = join(outdir, 'index.js');
  // `index.js` as the stack writes it: the packages loaded on first use (P209) stay beside it.
  const result = await build({
    ...functionBuildOptions(entry, outfile, { sourceMaps: true }),
    external: [...external, ...LOADED_ON_FIRST_USE],
    logLevel: 'error',
  });
  const output = readFileSync(outfile);
  const map = readFileSync(`${outfile}.map`);
  const gzipBytes = gzipSync(output, { level: 9 }).length;
  return {
    bytes: output.length,
    gzipBytes,
    mapBytes: map.length,
    packageGzipBytes: gzipBytes + gzipSync(map, { level: 9 }).length,
    largest: largestContributors(result.metafile, 3),
  };
}

function largestContributors(metafile: Metafile, count: number): { name: string; bytes: number }[] {
  const byPackage = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [path, input] of Object.entries(output.inputs)) {
      const name = packageOf(path);
      byPackage.set(name, (byPackage.get(name) ?? 0) + input.bytesInOutput);
    }
  }
  return [...byPackage.entries()]
    .map(([name, bytes]) => ({ name, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, count);
}

/** `node_modules/@scope/name/…` → `@scope/name`; anything else is the project's own code. */
function packageOf(path: string): string {
  const parts = path.split('node_modules/');
  const inside = parts[parts.length - 1];
  if (parts.length < 2 || !inside) return '(project)';
  const segments = inside.split('/');
  return segments[0]?.startsWith('@') ? `${segments[0]}/${segments[1] ?? ''}` : (segments[0] ?? '');
}
