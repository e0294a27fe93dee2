import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Metafile } from 'esbuild';
import {
  bundleFunction,
  type FirstUsePackage,
  type FunctionBundle,
  LAMBDA_BUNDLING,
  LOADED_ON_FIRST_USE,
} from '../../lib/constructs/function-bundle';
import { functionNames } from '../bench/bundle-size';
import { lambdaEnvironment, measureInit } from '../bench/cold-start';
import {
  CRUD_FAMILIES,
  coldStartTarget,
  PROVIDER_SIGN_IN_FAMILIES,
} from '../bench/cold-start-targets';
import {
  type BedrockRuntimeStandIn,
  startBedrockRuntimeStandIn,
} from '../support/bedrock-runtime-stand-in';
import { longPdf, minimalDocx } from '../support/hostile-files';
import { type ModelProviders, startModelProviders } from '../support/model-providers';
import { IDP_CERT, IDP_KEY, idpMetadata } from '../support/saml-idp';

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
    /node_modules\/usearch\/|layers\/core\/adapters\/local\/(ann-graph|embedded-index|index-files|partition\/[a-z-]+)\.ts$/,
  // Issue 11 item 5: answering (retrieval, answerers) is query's and the eval worker's; the
  // evals function only queues runs.
  'query pipeline': /layers\/core\/use-cases\/query\//,
  // P265: SMTP is the one-machine runtime's; the cloud mails through SES.
  'SMTP client': /node_modules\/nodemailer\/|layers\/core\/adapters\/mail\/smtp-mailer\.ts$/,
} as const;
type Heavy = keyof typeof HEAVY_MODULES;

const EVERYTHING: Heavy[] = Object.keys(HEAVY_MODULES) as Heavy[];
/** What no function carries, whatever it does. */
const NEVER: Heavy[] = [
  'SMTP client',
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
  // Answers as query does. Its classic zod is the MCP SDK's own (its protocol types are written in it).
  mcp: [
    'PDF or DOCX parser',
    'crawler',
    'BPE tokenizer',
    'SAML or XML signature library',
    'connector code',
    ...NEVER.filter((heavy) => heavy !== 'AWS Encryption SDK' && heavy !== 'classic zod'),
  ],
  // Answers as query does (OpenAI's request and response shapes are its own code, not OpenAI's SDK).
  openai: [
    'PDF or DOCX parser',
    'crawler',
    'BPE tokenizer',
    'SAML or XML signature library',
    'connector code',
    ...NEVER.filter((heavy) => heavy !== 'AWS Encryption SDK'),
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

/** P264, P265: the families that mail (invitations, password resets), the only ones with the SES client. */
const SES_SENDERS = ['auth', 'users'];

/** P53: the X-Ray SDK's patcher for the AWS SDK v2, the one module that requires semver. */
const SEMVER_IMPORTER = 'node_modules/aws-xray-sdk-core/dist/lib/patchers/aws_p.js';
/** What esbuild reports for the stand-in: its path from the repository root. */
const SEMVER_STAND_IN = relative(ROOT, LAMBDA_BUNDLING.alias.semver);

/**
 * P209: the packages loaded on first use, shipped beside `index.js` of the
 * functions that import them and nowhere else.
 */
const FIRST_USE: Record<FirstUsePackage, readonly string[]> = {
  // D33: webhook secrets, OIDC client secrets, model keys and connector grants are sealed with it (P70, P85, P130).
  '@aws-crypto/client-node': [
    'connections',
    'eval-worker',
    'mcp',
    'model-keys',
    'openai',
    'query',
    'sso',
    'sync-worker',
    'webhook-dispatcher',
    'webhooks',
  ],
  // P136: answers with an organization's Anthropic key, in queries and evaluation runs.
  '@anthropic-ai/sdk': ['eval-worker', 'mcp', 'openai', 'query'],
  // P93: SAML sign-in only.
  '@node-saml/node-saml': ['sso'],
  // P272: reading an IdP's SAML metadata, and checking its signature, when SSO is configured.
  '@xmldom/xmldom': ['sso'],
  'xml-crypto': ['sso'],
  // P272: DOCX files, in the workers that parse them.
  mammoth: ['ingestion-worker', 'sync-worker'],
  // Issue 33: every parser, and the tokenizer that sizes chunks, at the first document that needs it.
  unpdf: ['ingestion-worker', 'sync-worker'],
  'markdown-it': ['ingestion-worker', 'sync-worker'],
  'csv-parse': ['ingestion-worker', 'sync-worker'],
  htmlparser2: ['ingestion-worker', 'sync-worker'],
  'gpt-tokenizer/encoding/cl100k_base': ['ingestion-worker', 'sync-worker'],
  // Issue 33: only a deployment on OpenAI, or an organization's OpenAI key, calls it.
  openai: ['eval-worker', 'ingestion-worker', 'mcp', 'openai', 'query', 'search', 'sync-worker'],
  // Websites' sitemaps: the sync worker only.
  'fast-xml-parser': ['sync-worker'],
  // Issue 32: Bedrock's HTTP/1.1 handler, in the functions that call a model.
  '@smithy/node-http-handler': [
    'eval-worker',
    'ingestion-worker',
    'mcp',
    'openai',
    'query',
    'search',
    'sync-worker',
  ],
};

/** The packages loaded on first use (their scopes: the Encryption SDK is many @aws-crypto packages). */
const FIRST_USE_CODE =
  /node_modules\/(@aws-crypto|@anthropic-ai|@node-saml|@xmldom|xml-crypto|mammoth|@smithy\/node-http-handler|unpdf|markdown-it|csv-parse|htmlparser2|dom-serializer|entities|fast-xml-parser|gpt-tokenizer|openai)\//;

/**
 * Requires a bundle as Lambda's init does, then prints (as its last line)
 * the files it read from beside `index.js`: the packages loaded on first use.
 */
const FILES_READ_AT_INIT = `
const { dirname, join } = require('node:path');
const bundle = process.argv[1];
require(bundle);
const beside = join(dirname(bundle), 'node_modules');
const read = Object.keys(require.cache).filter((file) => file.startsWith(beside));
process.stdout.write('\\n' + JSON.stringify(read) + '\\n');
process.exit(0);
`;

/** A worker bundle with PDF.js takes a while on a busy 2-core machine. */
const BUNDLE_TIMEOUT_MS = 120_000;

const OUT = mkdtempSync(join(tmpdir(), 'svc-bundle-test-'));
afterAll(() => rmSync(OUT, { recursive: true, force: true }));

const bundles = new Map<string, Promise<FunctionBundle>>();

/** Each function bundled once per run, as the stack bundles it (lib/constructs/function-bundle.ts). */
function bundle(name: string): Promise<FunctionBundle> {
  let built = bundles.get(name);
  if (built === undefined) {
    built = bundleFunction(join(ROOT, 'functions', name, 'handler.ts'), join(OUT, name), {
      sourceMaps: false,
    });
    bundles.set(name, built);
  }
  return built;
}

function inputsOfIndex(metafile: Metafile): string[] {
  return Object.values(metafile.outputs).flatMap((output) => Object.keys(output.inputs));
}

/** The metafiles of `index.js` and of the packages shipped beside it. */
const metafilesOf = (built: FunctionBundle): Metafile[] => [
  built.metafile,
  ...built.firstUse.map((used) => used.metafile),
];

/** Every input of `index.js` and of the packages shipped beside it. */
const inputsOf = (built: FunctionBundle): string[] => metafilesOf(built).flatMap(inputsOfIndex);

/**
 * Reads each function's esbuild metafile, bundled as the stack bundles it.
 * Sizes are deterministic, so they are held to issue 8's ceilings here
 * (test/bench/cold-start-targets.ts); init times are measured by
 * `npm run bench` (cold-start section), not asserted.
 */
describe('Function bundles (issue 8: each Lambda carries only its family)', () => {
  const names = functionNames(ROOT);

  it.each(names)(
    'lets %s import the SES client only if its family mails (P265)',
    async (name) => {
      const built = await bundle(name);
      const importsSes = metafilesOf(built).some((metafile) =>
        Object.values(metafile.inputs).some((input) =>
          input.imports.some((imported) => imported.path === '@aws-sdk/client-sesv2'),
        ),
      );
      expect({ name, importsSes }).toEqual({ name, importsSes: SES_SENDERS.includes(name) });
    },
    BUNDLE_TIMEOUT_MS,
  );

  it.each(names)(
    'bundles %s without the modules its family never calls',
    async (name) => {
      const inputs = inputsOf(await bundle(name));
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
    'keeps index.js of %s within its issue 8 ceiling',
    async (name) => {
      const { file } = await bundle(name);

      expect(statSync(file).size).toBeLessThanOrEqual(coldStartTarget(name).maxMinifiedBytes ?? 0);
    },
    BUNDLE_TIMEOUT_MS,
  );

  it.each(names)(
    'ships beside index.js of %s exactly the packages it loads on first use (P209)',
    async (name) => {
      const { firstUse, metafile } = await bundle(name);
      const expected = Object.entries(FIRST_USE)
        .filter(([, functions]) => functions.includes(name))
        .map(([pkg]) => pkg)
        .sort();
      const inIndex = inputsOfIndex(metafile).filter((input) => FIRST_USE_CODE.test(input));

      expect(firstUse.map((used) => used.name)).toEqual(expected);
      expect(inIndex).toEqual([]);
    },
    BUNDLE_TIMEOUT_MS,
  );

  it.each(names)(
    'reads none of the packages shipped beside index.js of %s at init (issue 33)',
    async (name) => {
      const { file } = await bundle(name);
      const environment = lambdaEnvironment({
        functionName: name,
        bundle: { file },
        nodePath: join(ROOT, 'node_modules'),
      });

      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['-e', FILES_READ_AT_INIT, file],
        { cwd: dirname(file), env: environment, encoding: 'utf8', timeout: 60_000 },
      );

      expect(JSON.parse(stdout.trim().split('\n').at(-1) ?? '')).toEqual([]);
    },
    BUNDLE_TIMEOUT_MS,
  );

  it.each(names)(
    'bundles %s with the semver stand-in, required by the AWS SDK v2 patcher only (P53)',
    async (name) => {
      const built = await bundle(name);
      const semver = inputsOf(built).filter((input) => input.includes('node_modules/semver/'));
      const importers = metafilesOf(built)
        .flatMap((metafile) => Object.entries(metafile.inputs))
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
      const built = await bundle(name);
      const locales = Object.values(built.metafile.outputs).flatMap((output) =>
        Object.entries(output.inputs)
          .filter(
            ([path, input]) =>
              path.includes('node_modules/zod/v4/locales/') && input.bytesInOutput > 0,
          )
          .map(([path]) => path),
      );
      const validates = inputsOf(built).some((input) => input.includes('node_modules/zod/'));

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

  it('relies on the OpenSearch Serializer calling json11 only with long numeral support, which the client never enables', () => {
    const serializer = readFileSync(
      join(ROOT, 'node_modules/@opensearch-project/opensearch/lib/Serializer.js'),
      'utf8',
    );
    const client = readFileSync(
      join(ROOT, 'layers/core/adapters/opensearch/search-client.ts'),
      'utf8',
    );

    // Each call sits in a branch taken only with `enableLongNumeralSupport`, inside a try that keeps JSON's result.
    expect(serializer.match(/JSON11\.\w+\(/g)).toEqual(['JSON11.stringify(', 'JSON11.parse(']);
    expect(
      serializer.match(/if \(shouldHandleLongNumerals && !numeralsAreNumbers\) \{\n\s+try \{/g),
    ).toHaveLength(2);
    expect(client).toContain('new Serializer()');
    expect(client).not.toContain('enableLongNumeralSupport');
  });

  it.each([...CRUD_FAMILIES, ...PROVIDER_SIGN_IN_FAMILIES])(
    'loads %s as Lambda does at init (tracer, SDK clients and composition built)',
    async (name) => {
      const { file } = await bundle(name);
      const environment = lambdaEnvironment({
        functionName: name,
        bundle: { file },
        nodePath: join(ROOT, 'node_modules'),
      });

      const sample = await measureInit(file, environment);

      expect(sample).toEqual({ initMs: expect.any(Number) });
    },
    BUNDLE_TIMEOUT_MS,
  );

  it(
    'runs the MCP server from a bundle built as the mcp function is (without ajv and zod 3)',
    async () => {
      const directory = join(OUT, 'mcp-server-probe');
      const probe = await bundleFunction(join(__dirname, 'probes', 'mcp-server.ts'), directory, {
        sourceMaps: false,
      });
      const left = inputsOf(probe).filter((input) =>
        /node_modules\/(ajv|ajv-formats|zod-to-json-schema|zod\/v3)\//.test(input),
      );

      const { stdout: output } = await promisify(execFile)(process.execPath, [probe.file], {
        cwd: directory,
        env: { PATH: process.env.PATH ?? '', NODE_PATH: join(directory, 'nothing') },
        encoding: 'utf8',
        timeout: 60_000,
      });

      expect(left).toEqual([]);
      expect(JSON.parse(output)).toEqual({
        server: 'agent-query-service',
        tools: ['list_agents:object', 'ask_agent:object', 'search:object'],
        refused: true,
      });
    },
    BUNDLE_TIMEOUT_MS,
  );

  describe('packages loaded on first use (P209)', () => {
    let providers: ModelProviders;
    let bedrock: BedrockRuntimeStandIn;
    beforeAll(async () => {
      providers = await startModelProviders();
      bedrock = await startBedrockRuntimeStandIn();
    });
    afterAll(async () => {
      await providers.close();
      await bedrock.close();
    });

    it(
      'are found and read by the adapters that import them, from the bundle as deployed',
      async () => {
        const directory = join(OUT, 'first-use-probe');
        const probe = await bundleFunction(
          join(__dirname, 'probes', 'first-use-packages.ts'),
          directory,
          { sourceMaps: false },
        );
        // The runtime's SDK and nothing else on NODE_PATH: a package missing
        // beside index.js cannot be found in the repository's node_modules instead.
        const runtimeModules = join(directory, 'runtime-node-modules');
        mkdirSync(runtimeModules);
        symlinkSync(join(ROOT, 'node_modules', '@aws-sdk'), join(runtimeModules, '@aws-sdk'));

        // Asynchronously: the Bedrock stand-in answers from this process.
        const { stdout: output } = await promisify(execFile)(process.execPath, [probe.file], {
          cwd: directory,
          env: {
            PATH: process.env.PATH ?? '',
            NODE_PATH: runtimeModules,
            PROBE_ANTHROPIC_URL: providers.anthropicUrl,
            PROBE_OPENAI_URL: providers.openaiUrl,
            PROBE_BEDROCK_URL: bedrock.url,
            AWS_ACCESS_KEY_ID: 'AKIDPROBE',
            AWS_SECRET_ACCESS_KEY: 'probe-secret',
            PROBE_IDP_CERT: IDP_CERT,
            PROBE_DOCX: minimalDocx(['Read on first use']).toString('base64'),
            PROBE_PDF: longPdf(1).toString('base64'),
            PROBE_IDP_METADATA: idpMetadata({
              entityId: 'https://idp.example',
              sso: { redirect: 'https://idp.example/sso' },
              signedWith: { key: IDP_KEY, cert: IDP_CERT },
            }),
          },
          encoding: 'utf8',
          timeout: 60_000,
        });

        expect(probe.firstUse.map((used) => used.name)).toEqual([...LOADED_ON_FIRST_USE].sort());
        expect(JSON.parse(output)).toEqual({
          opened: 'sealed on first use',
          answered: expect.stringMatching(/^claude-/),
          answeredByOpenAi: expect.stringMatching(/^gpt-/),
          authorizationUrl: 'https://idp.example',
          metadataEntityId: 'https://idp.example',
          docxText: 'Read on first use',
          pdfText: 'Page 1, line 1: the quick brown fox jumps over the lazy dog.',
          markdown: ['Read', 'On first use.'],
          csvRow: 'name: parser; use: first',
          htmlText: 'On first use & once.',
          sitemap: { kind: 'urlset', urls: ['https://docs.example/a'] },
          tokens: 2,
          bedrockDimensions: 256,
        });
      },
      BUNDLE_TIMEOUT_MS,
    );
  });
});
