import { join, resolve } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { functionNames, LAMBDA_BUNDLING, PROVIDED_BY_RUNTIME } from '../bench/bundle-size';

const ROOT = resolve(__dirname, '..', '..');

/** Issue 8: what a family must never carry, by the input paths esbuild reports. */
const HEAVY_MODULES = {
  'PDF or DOCX parser': /node_modules\/(unpdf|mammoth)\//,
  crawler: /layers\/core\/adapters\/crawler\//,
  'BPE tokenizer': /node_modules\/gpt-tokenizer\//,
  'OpenAI client': /node_modules\/openai\//,
  'OpenSearch client': /node_modules\/@opensearch-project\//,
  'local runtime or dynalite': /(^|\/)lib\/local\/|node_modules\/dynalite\//,
  CDK: /node_modules\/(aws-cdk-lib|constructs)\//,
} as const;
type Heavy = keyof typeof HEAVY_MODULES;

const CRUD_FAMILIES = [
  'agents',
  'data-sources',
  'interactions',
  'analytics',
  'webhooks',
  'users',
  'auth',
];
const EVERYTHING: Heavy[] = Object.keys(HEAVY_MODULES) as Heavy[];
const INFRASTRUCTURE: Heavy[] = ['local runtime or dynalite', 'CDK'];

/** What each function may not contain. Families not listed here carry only infrastructure rules. */
const FORBIDDEN: Record<string, Heavy[]> = {
  ...Object.fromEntries(CRUD_FAMILIES.map((family) => [family, EVERYTHING])),
  fallback: EVERYTHING,
  scheduler: EVERYTHING,
  'event-publisher': EVERYTHING,
  'webhook-dispatcher': EVERYTHING,
  // Retrieval and answers need the index and the provider, never parsing or BPE.
  query: ['PDF or DOCX parser', 'crawler', 'BPE tokenizer', ...INFRASTRUCTURE],
  search: ['PDF or DOCX parser', 'crawler', 'BPE tokenizer', ...INFRASTRUCTURE],
  'ingestion-worker': ['crawler', ...INFRASTRUCTURE],
};

/** A worker bundle with PDF.js takes a while on a busy 2-core machine. */
const BUNDLE_TIMEOUT_MS = 120_000;

async function bundle(name: string): Promise<{ bytes: number; metafile: Metafile }> {
  const result = await build({
    ...LAMBDA_BUNDLING,
    entryPoints: [join(ROOT, 'functions', name, 'handler.ts')],
    outfile: join('/tmp', `svc-bundle-test-${name}.js`),
    external: [...PROVIDED_BY_RUNTIME],
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  const output = result.outputFiles.find((file) => file.path.endsWith('.js'));
  if (!output) throw new Error(`esbuild wrote no JavaScript for ${name}`);
  return { bytes: output.contents.length, metafile: result.metafile };
}

function inputsOf(metafile: Metafile): string[] {
  return Object.values(metafile.outputs).flatMap((output) => Object.keys(output.inputs));
}

/**
 * Reads each function's esbuild metafile, bundled as the stack bundles it.
 * Sizes and init times against issue 8's targets are measured by
 * `npm run bench` (cold-start section), not asserted here.
 */
describe('Function bundles (issue 8: each Lambda carries only its family)', () => {
  const names = functionNames(ROOT);

  it.each(names)(
    'bundles %s without the modules its family never calls',
    async (name) => {
      const { metafile } = await bundle(name);
      const inputs = inputsOf(metafile);
      const found = (FORBIDDEN[name] ?? INFRASTRUCTURE).flatMap((heavy) =>
        inputs
          .filter((input) => HEAVY_MODULES[heavy].test(input))
          .map((input) => `${heavy}: ${input}`),
      );
      expect(found.slice(0, 5)).toEqual([]);
    },
    BUNDLE_TIMEOUT_MS,
  );
});
