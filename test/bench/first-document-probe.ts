/**
 * Bundled as a parsing worker is (lib/constructs/function-bundle.ts, its
 * parsers shipped beside `index.js`) and run by plain `node` in a fresh
 * process per measurement: parses and chunks one small document of the type
 * named on the command line twice, as the ingestion and sync workers do with
 * a file, and writes both durations to file descriptor 3. The first pays the
 * load of the type's parser (and of the tokenizer, at the first document of
 * any type); the second is the document's own cost.
 */
import { writeSync } from 'node:fs';
import { parseFile } from '../../layers/core/adapters/parsing/file-parsers';
import { chunkDocument } from '../../layers/core/domain/retrieval/chunker';
import { longPdf, minimalDocx } from '../support/hostile-files';

const PARAGRAPH =
  'Refunds are issued within 30 days of purchase. Enterprise contracts are refunded pro rata.';

/** One small document of each type the workers parse. */
const DOCUMENTS = {
  pdf: () => ({ bytes: longPdf(2, 3), filename: 'refunds.pdf' }),
  docx: () => ({ bytes: minimalDocx([PARAGRAPH, PARAGRAPH]), filename: 'refunds.docx' }),
  html: () => ({
    bytes: Buffer.from(
      `<html><head><title>Refunds</title></head><body><main><h1>Refunds</h1><p>${PARAGRAPH}</p><p>${PARAGRAPH}</p></main></body></html>`,
    ),
    filename: 'refunds.html',
  }),
  markdown: () => ({
    bytes: Buffer.from(`# Refunds\n\n${PARAGRAPH}\n\n## Contracts\n\n${PARAGRAPH}\n`),
    filename: 'refunds.md',
  }),
  csv: () => ({
    bytes: Buffer.from(`plan,refund\nmonthly,${PARAGRAPH}\nyearly,pro rata\n`),
    filename: 'refunds.csv',
  }),
  text: () => ({ bytes: Buffer.from(`${PARAGRAPH}\n\n${PARAGRAPH}\n`), filename: 'refunds.txt' }),
} as const;

export type FirstDocumentType = keyof typeof DOCUMENTS;
export const FIRST_DOCUMENT_TYPES = Object.keys(DOCUMENTS) as FirstDocumentType[];

async function parseAndChunk(type: FirstDocumentType): Promise<number> {
  const { bytes, filename } = DOCUMENTS[type]();
  const started = process.hrtime.bigint();
  const chunks = chunkDocument(await parseFile(bytes, filename));
  if (chunks.length === 0) throw new Error(`the ${type} document gave no chunk`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

async function main(): Promise<void> {
  const type = process.argv[2] as FirstDocumentType;
  if (!(type in DOCUMENTS)) throw new Error(`no document of type ${type}`);
  const firstMs = await parseAndChunk(type);
  const secondMs = await parseAndChunk(type);
  writeSync(3, JSON.stringify({ firstMs, secondMs }));
}

if (require.main === module) {
  main()
    .catch((error: unknown) => {
      writeSync(
        3,
        JSON.stringify({ error: error instanceof Error ? error.message : String(error) }),
      );
    })
    .finally(() => process.exit(0));
}
