import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { type BuildOptions, build, buildSync, type Metafile } from 'esbuild';

/** The repository root, where the lazily loaded packages resolve from. */
const PROJECT_ROOT = path.resolve(__dirname, '..', '..');

/**
 * P209: packages the code imports only with `import`, at their first use,
 * and too large to parse at every cold start: the AWS Encryption SDK (* P70, about 345 KB), the Anthropic SDK (about 430 KB) and node-saml
 * with its XML stack (about 600 KB), the XML parser and signature
 * library that read an IdP's SAML metadata, and mammoth, which reads
 * DOCX files with that same XML parser (loaded at the first DOCX, so
 * no bundle imports the parser statically), and the Smithy HTTP/1.1 handler
 * the Bedrock client is given (issue 32: with the protocol code it imports,
 * about 140 KB; the Bedrock client itself is the runtime's SDK). They are left out of `index.js`
 * and shipped beside it, each bundled alone into
 * `node_modules/<package>/index.js`, where Node.js finds the `require`
 * esbuild writes for the `import`. A function's `index.js`, what init
 * loads, then holds only what init and every request need.
 *
 * The parsing workers' libraries are shipped the same way (issue 33), each
 * loaded when the first document that needs it arrives: PDF.js (unpdf,
 * about 1.6 MB), Markdown, CSV, the HTML parser with its DOM and entity
 * tables, the sitemap's XML parser, and the BPE tokenizer that sizes chunks
 * (about 1 MB, whose merge table alone took a quarter of a worker's init).
 * The OpenAI SDK (about 150 KB) too: only a deployment configured for
 * OpenAI, or an organization's OpenAI key, calls it.
 */
export const LOADED_ON_FIRST_USE = [
  '@aws-crypto/client-node',
  '@anthropic-ai/sdk',
  '@node-saml/node-saml',
  '@xmldom/xmldom',
  'xml-crypto',
  'mammoth',
  '@smithy/node-http-handler',
  'unpdf',
  'markdown-it',
  'csv-parse',
  'htmlparser2',
  'fast-xml-parser',
  'gpt-tokenizer/encoding/cl100k_base',
  'openai',
] as const;
export type FirstUsePackage = (typeof LOADED_ON_FIRST_USE)[number];

/**
 * How every function is bundled, and what `npm run bench` and the bundle
 * tests measure: minified CommonJS for the Lambda runtime's Node.js, with
 * the AWS SDK v3 left out because the runtime ships it.
 */
export const LAMBDA_BUNDLING = {
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'cjs',
  minify: true,
  external: ['@aws-sdk/*'],
  alias: {
    // Only the X-Ray SDK's AWS SDK v2 patcher requires semver, for a call the service never makes.
    semver: path.resolve(__dirname, '..', 'bundling', 'semver-unused.cjs'),
    // The MCP SDK's default JSON Schema validator, which the MCP server replaces with its own.
    ajv: path.resolve(__dirname, '..', 'bundling', 'ajv-unused.cjs'),
    'ajv-formats': path.resolve(__dirname, '..', 'bundling', 'ajv-unused.cjs'),
    // The MCP SDK's support for zod 3 tool schemas; the MCP server's are zod 4.
    'zod/v3': path.resolve(__dirname, '..', 'bundling', 'zod-v3-unused.cjs'),
    'zod-to-json-schema': path.resolve(__dirname, '..', 'bundling', 'zod-v3-unused.cjs'),
    // The OpenSearch Serializer's parser for numbers beyond 2^53, which the service's client never asks for.
    json11: path.resolve(__dirname, '..', 'bundling', 'json11-unused.cjs'),
    // Silent loggers unless DEBUG is set, without loading the package (OpenSearch, node-saml).
    debug: path.resolve(__dirname, '..', 'bundling', 'debug-when-asked.cjs'),
  },
} as const satisfies BuildOptions;

/** Modules the Lambda Node.js runtime provides, so no bundle carries them. */
export const PROVIDED_BY_RUNTIME: readonly string[] = LAMBDA_BUNDLING.external;

export interface FunctionBundleOptions {
  /**
   * Ship `index.js.map` (no sources content) beside the bundle. Only useful
   * with `NODE_OPTIONS=--enable-source-maps`, which costs every cold start,
   * so it is off unless a deployment asks for it.
   */
  readonly sourceMaps: boolean;
}

/**
 * The code of one function: `entry` bundled by esbuild in this process when
 * the stack synthesizes. CDK's NodejsFunction started `npm exec
 * esbuild` once per function, about 1.5 s each here (most of a 32 s synth)
 * and printed every bundle's report into `cdk synth` and `npm test`. The
 * asset hash is the bundle's, so an unchanged function is not redeployed.
 * There is no Docker fallback: esbuild always runs here.
 */
export function bundledFunctionCode(entry: string, options: FunctionBundleOptions): lambda.Code {
  return lambda.Code.fromAsset(path.dirname(entry), {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Required by the type, never pulled: local bundling always succeeds or throws.
      image: DockerImage.fromRegistry('esbuild-runs-locally'),
      // CDK reuses a bundle within one process by the asset's options, which
      // do not see inside `tryBundle`: the flag must be among them.
      environment: { SOURCE_MAPS: String(options.sourceMaps) },
      local: {
        tryBundle(outputDir: string): boolean {
          buildFunction(entry, path.join(outputDir, 'index.js'), options);
          return true;
        },
      },
    },
  });
}

/**
 * Writes `outfile` and the packages it loads on first use (and maps, with
 * `sourceMaps`); throws with esbuild's errors when the entry does not build.
 * Synchronous, as CDK's `tryBundle` is; `bundleFunction` does the same
 * asynchronously for the tests and the benchmarks.
 */
function buildFunction(entry: string, outfile: string, options: FunctionBundleOptions): void {
  const { metafile } = buildSync(functionBuildOptions(entry, outfile, options));
  for (const name of firstUsePackagesOf(metafile)) {
    buildSync(firstUsePackageBuildOptions(name, path.dirname(outfile), options));
    writePackageManifest(name, path.dirname(outfile));
  }
}

export interface FunctionBundle {
  /** `index.js`, what Lambda's init loads. */
  readonly file: string;
  readonly metafile: Metafile;
  /** What is shipped beside it and loaded at its first `import` (P209). */
  readonly firstUse: readonly { readonly name: FirstUsePackage; readonly metafile: Metafile }[];
}

/** Bundles `entry` into `directory` exactly as the stack deploys it. */
export async function bundleFunction(
  entry: string,
  directory: string,
  options: FunctionBundleOptions,
): Promise<FunctionBundle> {
  const file = path.join(directory, 'index.js');
  const { metafile } = await build(functionBuildOptions(entry, file, options));
  const firstUse = [];
  for (const name of firstUsePackagesOf(metafile)) {
    const built = await build(firstUsePackageBuildOptions(name, directory, options));
    writePackageManifest(name, directory);
    firstUse.push({ name, metafile: built.metafile });
  }
  return { file, metafile, firstUse };
}

/** A function's `index.js`: everything but the runtime's SDK and the packages loaded on first use. */
export function functionBuildOptions(
  entry: string,
  outfile: string,
  options: FunctionBundleOptions,
): BuildOptions & { metafile: true } {
  return {
    ...LAMBDA_BUNDLING,
    external: [...LAMBDA_BUNDLING.external, ...LOADED_ON_FIRST_USE],
    // Node.js would run an `import()` through its ES module loader, which sees
    // none of an esbuild CommonJS bundle's named exports; as `require()`, a
    // package loaded on first use is resolved and read as it was bundled in.
    supported: { 'dynamic-import': false },
    entryPoints: [entry],
    outfile,
    metafile: true,
    sourcemap: options.sourceMaps,
    sourcesContent: false,
    // Errors still throw, with esbuild's messages; success prints nothing.
    logLevel: 'silent',
  };
}

/**
 * The packages loaded on first use that a function's bundle imports. A
 * static import of one would load it at init anyway, so it fails the build.
 * A `require()` is accepted: a loader that must stay synchronous (the HTML
 * parser under `htmlToDocument`, the tokenizer under `countTokens`) calls it
 * inside a function, at its first use; the bench's cold-start section and
 * the bundle tests check that init loads none of them.
 */
export function firstUsePackagesOf(metafile: Metafile): FirstUsePackage[] {
  const found = new Set<FirstUsePackage>();
  for (const [file, input] of Object.entries(metafile.inputs)) {
    for (const imported of input.imports) {
      const name = LOADED_ON_FIRST_USE.find((candidate) => candidate === imported.path);
      if (!name || !imported.external) continue;
      if (imported.kind !== 'dynamic-import' && imported.kind !== 'require-call') {
        throw new Error(
          `${file} imports ${name} statically; it is loaded on first use: use import() or require() where it is first needed`,
        );
      }
      found.add(name);
    }
  }
  return [...found].sort();
}

/** One package loaded on first use, bundled alone where `require()` from `index.js` finds it. */
export function firstUsePackageBuildOptions(
  name: FirstUsePackage,
  functionDirectory: string,
  options: FunctionBundleOptions,
): BuildOptions & { metafile: true } {
  return {
    ...LAMBDA_BUNDLING,
    external: [...LAMBDA_BUNDLING.external],
    entryPoints: [require.resolve(name, { paths: [PROJECT_ROOT] })],
    outfile: path.join(functionDirectory, 'node_modules', name, 'index.js'),
    metafile: true,
    sourcemap: options.sourceMaps,
    sourcesContent: false,
    logLevel: 'silent',
  };
}

/**
 * `gpt-tokenizer/encoding/cl100k_base` is one entry of `gpt-tokenizer`: the
 * package whose version is recorded. Shipped as a directory of its own, it
 * is found by Node.js as it was in the repository, since no `package.json`
 * of `gpt-tokenizer` is shipped to restrict its subpaths.
 */
function packageNameOf(specifier: FirstUsePackage): string {
  const segments = specifier.split('/');
  return segments.slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
}

/** Names the bundled package and its version, for whoever opens the deployed code. */
function writePackageManifest(name: FirstUsePackage, functionDirectory: string): void {
  const installed = path.join(PROJECT_ROOT, 'node_modules', packageNameOf(name), 'package.json');
  const { version } = JSON.parse(readFileSync(installed, 'utf8')) as { version: string };
  writeFileSync(
    path.join(functionDirectory, 'node_modules', name, 'package.json'),
    `${JSON.stringify({ name, version, main: 'index.js', private: true }, null, 2)}\n`,
  );
}
