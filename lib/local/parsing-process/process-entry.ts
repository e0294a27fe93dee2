/**
 * What runs in the local runtime's parsing process (parsing-process.ts):
 * the cloud's own file parser and chunker, one job at a time. Unexpected
 * errors go back as errors; the parent decides what they mean. The process
 * ends with its parent.
 */
import { uploadedFileParser } from '../../../layers/core/adapters/parsing/file-parser';
import { chunkDocument } from '../../../layers/core/domain/retrieval/chunker';
import type { ParsingJob, ParsingReply } from './protocol';

async function run(job: ParsingJob): Promise<unknown> {
  if (job.kind === 'parse') {
    return uploadedFileParser.parse(Buffer.from(job.bytes), job.filename, job.contentType);
  }
  return chunkDocument(job.document);
}

process.on('message', async (job: ParsingJob) => {
  let reply: ParsingReply;
  try {
    reply = { id: job.id, ok: true, value: await run(job) };
  } catch (error) {
    reply = {
      id: job.id,
      ok: false,
      message: error instanceof Error ? error.message : String(error),
    };
  }
  process.send?.(reply);
});
process.on('disconnect', () => process.exit(0));
// Loaded: the parent starts a job's clock only now, so starting up never counts against a file.
process.send?.({ ready: true });
