/**
 * What runs in the local runtime's parsing process (parsing-process.ts):
 * the cloud's own file parser and chunker, one job at a time. Unexpected
 * errors go back as errors; the parent decides what they mean. The process
 * ends with its parent.
 */
import { uploadedFileParser } from '../../../layers/core/adapters/parsing/file-parser';
import { parseHtmlPage } from '../../../layers/core/adapters/parsing/html-to-document';
import { loadEveryParser } from '../../../layers/core/adapters/parsing/parser-libraries';
import { chunkDocument } from '../../../layers/core/domain/retrieval/chunker';
import type { ParsingJob, ParsingReply } from './protocol';

async function run(job: ParsingJob): Promise<unknown> {
  if (job.kind === 'parse') {
    return uploadedFileParser.parse(Buffer.from(job.bytes), job.filename, job.contentType);
  }
  if (job.kind === 'page') return parseHtmlPage(job.html, job.url);
  return chunkDocument(job.document);
}

/** A message is a batch of jobs, run in order, each answered as soon as it is done. */
process.on('message', async (jobs: ParsingJob[]) => {
  for (const job of jobs) {
    let reply: ParsingReply;
    try {
      reply = { id: job.id, ok: true, value: await run(job) };
    } catch (error) {
      reply = {
        id: job.id,
        ok: false,
        message: error instanceof Error ? error.message : String(error),
        name: error instanceof Error ? error.name : 'Error',
      };
    }
    process.send?.(reply);
  }
});
process.on('disconnect', () => process.exit(0));
// Loaded, parsers included (the cloud's workers load each at its first file):
// the parent starts a job's clock only now, so starting up never counts against a file.
loadEveryParser().then(
  () => process.send?.({ ready: true }),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
