import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { build, type Metafile, type OutputFile } from 'esbuild';
import { functionNames, LAMBDA_BUNDLING, PROVIDED_BY_RUNTIME } from '../bench/bundle-size';
import { lambdaEnvironment, measureInit } from '../bench/cold-start';
import { CRUD_FAMILIES, coldStartTarget } from '../bench/cold-start-targets';

const ROOT = resolve(__dirname, '..', '..');

/** Issue 8: what a family must never carry, by the input paths esbuild reports. */
const HEAVY_MODULES = {
  'PDF or DOCX parser': /node_modules\/(unpdf|mammoth)\//,
  crawler: /layers\/core\/adapters\/crawler\//,
  'BPE tokenizer': /node_modules\/gpt-tokenizer\//,
  'OpenAI client': /node_modules\/openai\//,
  // D33, P136: answers with an organization's Anthropic key; the query function only.
  'Anthropic SDK': /node_modules\/@anthropic-ai\//,
  'OpenSearch client': /node_modules\/@opensearch-project\//,
  'local runtime or dynalite': /(^|\/)lib\/local\/|node_modules\/dynalite\//,
  CDK: /node_modules\/(aws-cdk-lib|constructs)\//,
  // D33: webhook secrets, OIDC client secrets and model keys are sealed with it; only the
  // webhook functions, sso, model-keys (seal) and query (open model keys) carry it.
  'AWS Encryption SDK': /node_modules\/@aws-crypto\//,
  // P72: zod/mini only; classic zod's methods (and its JSON Schema code) add about 60 KB.
  'classic zod': /node_modules\/zod\/v4\/classic\//,
  // D14: SAML and XML signature libraries belong to SAML sign-in only, never to auth or CRUD.
  'SAML or XML signature library': /node_modules\/(@node-saml|xml-crypto|@xmldom|xml2js|xpath)\//,
  // Issue 12: provider sign-in and clients belong to connections (OAuth) and the sync worker only.
  'connector code': /layers\/core\/adapters\/connectors\//,
  // Issue 12: the connectors' readers (and their parsers) are the sync worker's alone.
  'connector readers': /layers\/core\/adapters\/connectors\/(.*-reader|connectors)\.ts$/,
  // Issue 10, P100: the embedded index and its native HNSW addon run on one machine only (OpenSearch serves the cloud).
  'embedded index or usearch':
    /node_modules\/usearch\/|layers\/core\/adapters\/local\/(ann-graph|embedded-index|index-partition|index-files)\.ts$/,
  // Issue 11 item 5: answering (retrieval, answerers) is query's and the eval worker's; the
  // evals function only queues runs.
  'query pipeline': /layers\/core\/use-cases\/query\//,
} as const;
type Heavy = keyof typeof HEAVY_MODULES;

const EVERYTHING: Heavy[] = Object.keys(HEAVY_MODULES) as Heavy[];
/** What no function carries, whatever it does. */
const NEVER: Heavy[] = [
  'local runtime or dynalite',
  'CDK',
  'AWS Encryption SDK',
  'classic zod',
  'embedded index or usearch',
];

/** What each function may not contain. Functions not listed here carry only the `NEVER` rules. */
const FORBIDDEN: Record<string, Heavy[]> = {
  ...Object.fromEntries(CRUD_FAMILIES.map((family) => [family, EVERYTHING])),
  webhooks: EVERYTHING.filter((heavy) => heavy !== 'AWS Encryption SDK'),
  // P132: keys are checked with plain HTTP; neither provider SDK.
  'model-keys': EVERYTHING.filter((heavy) => heavy !== 'AWS Encryption SDK'),
  fallback: EVERYTHING,
  scheduler: EVERYTHING,
  'event-publisher': EVERYTHING,
  'webhook-dispatcher': EVERYTHING.filter((heavy) => heavy !== 'AWS Encryption SDK'),
  // D14: configuration seals the OIDC client secret (P85); SAML sign-in verifies XML signatures (P92).
  sso: EVERYTHING.filter(
    (heavy) => heavy !== 'AWS Encryption SDK' && heavy !== 'SAML or XML signature library',
  ),
  // Retrieval and answers need the index and the provider, never parsing or BPE.
  // D33: query opens model keys (the Encryption SDK) and answers with Anthropic keys (P136).
  query: [
    'PDF or DOCX parser',
    'crawler',
    'BPE tokenizer',
    'SAML or XML signature library',
    'connector code',
    ...NEVER.filter((heavy) => heavy !== 'AWS Encryption SDK'),
  ],
  search: [
    'PDF or DOCX parser',
    'crawler',
    'BPE tokenizer',
    'SAML or XML signature library',
    'connector code',
    'Anthropic SDK',
    ...NEVER,
  ],
  'ingestion-worker': ['crawler', 'connector code', ...NEVER],
  // Issue 12: seals grants and talks OAuth to providers, never reads their content.
  connections: EVERYTHING.filter(
    (heavy) => heavy !== 'AWS Encryption SDK' && heavy !== 'connector code',
  ),
  // Issue 12: connectors open and re-seal their grants (D33).
  'sync-worker': NEVER.filter((heavy) => heavy !== 'AWS Encryption SDK'),
  // Issue 11 item 5 (P139): asks questions as query answers them (model keys included).
  'eval-worker': [
    'PDF or DOCX parser',
    'crawler',
    'BPE tokenizer',
    'SAML or XML signature library',
    'connector code',
    ...NEVER.filter((heavy) => heavy !== 'AWS Encryption SDK'),
  ],
};

/** P53: the X-Ray SDK's patcher for the AWS SDK v2, the one module that requires semver. */
const SEMVER_IMPORTER = 'node_modules/aws-xray-sdk-core/dist/lib/patchers/aws_p.js';
/** What esbuild reports for the stand-in: its path from the repository root. */
const SEMVER_STAND_IN = relative(ROOT, LAMBDA_BUNDLING.alias.semver);

/**
 * P70: D33 names the AWS Encryption SDK for webhook secrets, and its
 * bn.js, asn1.js and streams come whatever the algorithm suite (about 345 KB
 * minified); the webhooks family is held to 300 KB for the rest. It is
 * loaded at the first seal or open, not at init.
 */
const ENCRYPTION_SDK_ALLOWANCE_BYTES = 350_000;
/** The HTTP families that seal or open secrets (P70, P85, P130): webhook secrets, OIDC client secrets, model keys, connector tokens (issue 12). */
const SEALING_FAMILIES: readonly string[] = [
  'webhooks',
  'sso',
  'connections',
  'model-keys',
  'query',
];
/**
 * P136: the official Anthropic SDK, for agents answering with an
 * organization's Anthropic key (D33), imported at the first such answer;
 * only `query` may carry it.
 */
const ANTHROPIC_SDK_ALLOWANCE_BYTES = 300_000;
/**
 * P93: SAML 2.0 through @node-saml/node-saml brings its XML stack (xml-crypto,
 * xml-encryption, xpath, xml2js, @xmldom/xmldom: about 600 KB minified), loaded
 * at the first SAML request; only `sso` may carry it.
 */
const SAML_ALLOWANCE_BYTES = 650_000;

/** A worker bundle with PDF.js takes a while on a busy 2-core machine. */
const BUNDLE_TIMEOUT_MS = 120_000;

interface Bundle {
  /** `index.js` and `index.js.map`. */
  readonly files: readonly OutputFile[];
  /** `index.js`, minified. */
  readonly bytes: number;
  readonly metafile: Metafile;
}

const bundles = new Map<string, Promise<Bundle>>();

/** Each function bundled once per run, in memory, as the stack bundles it. */
function bundle(name: string): Promise<Bundle> {
  let built = bundles.get(name);
  if (built === undefined) {
    built = build({
      ...LAMBDA_BUNDLING,
      entryPoints: [join(ROOT, 'functions', name, 'handler.ts')],
      outfile: join('/tmp', `svc-bundle-test-${name}`, 'index.js'),
      external: [...PROVIDED_BY_RUNTIME],
      metafile: true,
      write: false,
      logLevel: 'silent',
    }).then((result) => {
      const output = result.outputFiles.find((file) => file.path.endsWith('.js'));
      if (!output) throw new Error(`esbuild wrote no JavaScript for ${name}`);
      return {
        files: result.outputFiles,
        bytes: output.contents.length,
        metafile: result.metafile,
      };
    });
    bundles.set(name, built);
  }
  return built;
}

function inputsOf(metafile: Metafile): string[] {
  return Object.values(metafile.outputs).flatMap((output) => Object.keys(output.inputs));
}

/**
 * Reads each function's esbuild metafile, bundled as the stack bundles it.
 * Sizes are deterministic, so they are held to issue 8's ceilings here
 * (test/bench/cold-start-targets.ts); init times are measured by
 * `npm run bench` (cold-start section), not asserted.
 */
describe('Function bundles (issue 8: each Lambda carries only its family)', () => {
  const names = functionNames(ROOT);

  it.each(names)(
    'bundles %s without the modules its family never calls',
    async (name) => {
      const { metafile } = await bundle(name);
      const inputs = inputsOf(metafile);
      const found = (FORBIDDEN[name] ?? NEVER).flatMap((heavy) =>
        inputs
          .filter((input) => HEAVY_MODULES[heavy].test(input))
          .map((input) => `${heavy}: ${input}`),
      );
      expect(found.slice(0, 5)).toEqual([]);
    },
    BUNDLE_TIMEOUT_MS,
  );

  const sized = names.filter((name) => coldStartTarget(name).maxMinifiedBytes !== undefined);
  it.each(sized)(
    'keeps index.js of %s within its issue 8 ceiling (plus the Encryption SDK, P70, SAML, P93, and Anthropic, P136)',
    async (name) => {
      const { bytes } = await bundle(name);
      const allowance =
        (SEALING_FAMILIES.includes(name) ? ENCRYPTION_SDK_ALLOWANCE_BYTES : 0) +
        (name === 'sso' ? SAML_ALLOWANCE_BYTES : 0) +
        (name === 'query' ? ANTHROPIC_SDK_ALLOWANCE_BYTES : 0);
      expect(bytes).toBeLessThanOrEqual((coldStartTarget(name).maxMinifiedBytes ?? 0) + allowance);
    },
    BUNDLE_TIMEOUT_MS,
  );

  it.each(names)(
    'bundles %s with the semver stand-in, required by the AWS SDK v2 patcher only (P53)',
    async (name) => {
      const { metafile } = await bundle(name);
      const semver = inputsOf(metafile).filter((input) => input.includes('node_modules/semver/'));
      const importers = Object.entries(metafile.inputs)
        .filter(([, input]) =>
          input.imports.some(
            (imported) => imported.path === SEMVER_STAND_IN || imported.original === 'semver',
          ),
        )
        .map(([path]) => path);

      expect(semver).toEqual([]);
      expect(importers.filter((path) => path !== SEMVER_IMPORTER)).toEqual([]);
    },
    BUNDLE_TIMEOUT_MS,
  );

  it.each(names)(
    "bundles %s with zod's English locale and no other (P72)",
    async (name) => {
      const { metafile } = await bundle(name);
      const locales = Object.values(metafile.outputs).flatMap((output) =>
        Object.entries(output.inputs)
          .filter(
            ([path, input]) =>
              path.includes('node_modules/zod/v4/locales/') && input.bytesInOutput > 0,
          )
          .map(([path]) => path),
      );
      const validates = inputsOf(metafile).some((input) => input.includes('node_modules/zod/'));

      expect(locales).toEqual(validates ? ['node_modules/zod/v4/locales/en.js'] : []);
    },
    BUNDLE_TIMEOUT_MS,
  );

  it('relies on the AWS SDK v2 patcher calling semver only to check the v2 SDK it is given (P53)', () => {
    const source = readFileSync(join(ROOT, SEMVER_IMPORTER), 'utf8');

    expect(source.match(/\bsemver\b[^\n]*/g)).toEqual([
      "semver = require('semver');",
      'semver.gte(awssdk.VERSION, minVersion)) {',
    ]);
    expect(source).toMatch(
      /var captureAWS = function captureAWS\(awssdk\) \{\n\s+if \(!semver\.gte\(awssdk\.VERSION, minVersion\)\)/,
    );
  });

  it.each(CRUD_FAMILIES)(
    'loads %s as Lambda does at init (tracer, SDK clients and composition built)',
    async (name) => {
      const { files } = await bundle(name);
      const directory = mkdtempSync(join(tmpdir(), `svc-bundle-load-${name}-`));
      try {
        for (const file of files)
          writeFileSync(join(directory, basename(file.path)), file.contents);
        const bundleFile = join(directory, 'index.js');
        const environment = lambdaEnvironment({
          functionName: name,
          bundle: { file: bundleFile },
          nodePath: join(ROOT, 'node_modules'),
        });

        const sample = await measureInit(bundleFile, environment);

        expect(sample).toEqual({ initMs: expect.any(Number) });
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    },
    BUNDLE_TIMEOUT_MS,
  );
});
