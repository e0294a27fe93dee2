import { type ChildProcess, fork } from 'node:child_process';
import { extname, join } from 'node:path';
import type { PageParser, ParsedPage } from '../../../layers/core/adapters/crawler/website-crawler';
import { DocumentTooComplexError } from '../../../layers/core/adapters/parsing/errors';
import type { DocumentChunk } from '../../../layers/core/domain/retrieval/chunker';
import {
  type DocumentChunker,
  DocumentRefusedError,
} from '../../../layers/core/ports/document-chunker.port';
import type { FileParseOutcome, FileParser } from '../../../layers/core/ports/file-parser.port';
import type { ParsingJob, ParsingReady, ParsingReply } from './protocol';

/** What one parse or chunking job may use (SVC_PARSE_TIMEOUT_SECONDS, SVC_PARSE_MEMORY_MB). */
export interface ParsingLimits {
  readonly timeoutMs: number;
  /** The process's V8 heap (old generation), where parsers keep their text and trees. */
  readonly memoryMb: number;
}

type JobOutcome =
  | { readonly value: unknown }
  /** Over a limit: the document is refused with this reason. */
  | { readonly overLimit: string }
  /** The parser threw (`name`: its class), or the process died for another reason: an error of ours, retried like one. */
  | { readonly crashed: string; readonly name?: string };

type Job = ParsingJob extends infer J ? (J extends ParsingJob ? Omit<J, 'id'> : never) : never;

/** A job not sent yet, and how to answer its caller. */
interface Waiting {
  readonly job: Job;
  readonly resolve: (outcome: JobOutcome) => void;
}

/**
 * At most this many jobs, and this many bytes of files and characters
 * of documents, go to the process in one message (one job whatever its size).
 */
export const PARSING_BATCH_LIMITS = { jobs: 16, size: 4 * 1024 * 1024 } as const;

function jobSize(job: Job): number {
  if (job.kind === 'parse') return job.bytes.length;
  if (job.kind === 'page') return job.html.length;
  let size = job.document.title.length;
  for (const section of job.document.sections) {
    for (const paragraph of section.paragraphs) size += paragraph.length;
  }
  return size;
}

/** Takes the next batch off the front of `waiting`. */
function takeBatch(waiting: Waiting[]): Waiting[] {
  let count = 0;
  let size = 0;
  for (const next of waiting) {
    const nextSize = jobSize(next.job);
    if (
      count > 0 &&
      (count >= PARSING_BATCH_LIMITS.jobs || size + nextSize > PARSING_BATCH_LIMITS.size)
    ) {
      break;
    }
    count += 1;
    size += nextSize;
  }
  return waiting.splice(0, count);
}

const lastLine = (text: string) => text.trim().split('\n').at(-1) ?? '';

/** The tail of the process's stderr kept to tell why it died. */
const STDERR_TAIL = 4_096;

/**
 * The local runtime's parsing process (issue 14): files are parsed and
 * documents chunked (and, P201, crawled pages parsed) in a child process,
 * one job at a time (sent in batches), so the API's event loop is
 * never held by them, and a parser that runs away is stopped
 * at its time or memory limit without taking the service down. A child
 * process rather than a worker thread: V8 can end the whole process when a
 * thread reaches its heap limit inside some allocations (Intl.Segmenter's,
 * measured here), where a child's death is only its own. A job over a limit
 * refuses its document with the reason (the file ends `failed`); the
 * process is then replaced for the next job. In the cloud the same work runs
 * in the worker Lambdas, bounded by their timeout and memory.
 */
export class ParsingProcess {
  readonly #limits: ParsingLimits;
  #child: ChildProcess | null = null;
  /** Resolves once the current process has loaded the parsers; false if it died first. */
  #ready: Promise<boolean> = Promise.resolve(false);
  #stderr = '';
  /** Jobs not sent yet, in order. */
  readonly #waiting: Waiting[] = [];
  #pumping = false;
  #nextId = 1;
  #closed = false;

  constructor(limits: ParsingLimits) {
    this.#limits = limits;
  }

  readonly fileParser: FileParser = {
    parse: async (bytes, filename, contentType): Promise<FileParseOutcome> => {
      const outcome = await this.#enqueue({
        kind: 'parse',
        bytes: new Uint8Array(bytes),
        filename,
        contentType,
      });
      if ('overLimit' in outcome) {
        return { ok: false, reason: `could not read "${filename}": ${outcome.overLimit}` };
      }
      if ('crashed' in outcome) throw new Error(`parsing "${filename}" failed: ${outcome.crashed}`);
      return outcome.value as FileParseOutcome;
    },
  };

  readonly chunker: DocumentChunker = {
    chunk: async (document): Promise<readonly DocumentChunk[]> => {
      const outcome = await this.#enqueue({ kind: 'chunk', document });
      if ('overLimit' in outcome) throw new DocumentRefusedError(`chunking ${outcome.overLimit}`);
      if ('crashed' in outcome) throw new Error(`chunking failed: ${outcome.crashed}`);
      return outcome.value as DocumentChunk[];
    },
  };

  /**
   * Crawled pages are parsed here too, so the runtime's event loop
   * only fetches and indexes; a page past the process's limits is refused
   * like one past the parser's own (`DocumentTooComplexError`: the crawl
   * skips it as unparseable, with the reason).
   */
  readonly pageParser: PageParser = async (html, url): Promise<ParsedPage> => {
    const outcome = await this.#enqueue({ kind: 'page', html, url });
    if ('overLimit' in outcome) {
      throw new DocumentTooComplexError(`parsing the page ${outcome.overLimit}`);
    }
    if ('crashed' in outcome) {
      if (outcome.name === 'DocumentTooComplexError') {
        throw new DocumentTooComplexError(outcome.crashed);
      }
      const error = new Error(`parsing the page failed: ${outcome.crashed}`);
      // The crawl reports a parser's failure by its class (`could not be parsed (TypeError)`), as in process.
      error.name = outcome.name ?? 'Error';
      throw error;
    }
    return outcome.value as ParsedPage;
  };

  /** Stops the process; jobs after this fail. */
  async close(): Promise<void> {
    this.#closed = true;
    const child = this.#child;
    this.#child = null;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
  }

  #enqueue(job: Job): Promise<JobOutcome> {
    return new Promise((resolve) => {
      this.#waiting.push({ job, resolve });
      // After the current task: jobs asked for together go in one message.
      setImmediate(() => void this.#pump());
    });
  }

  /** Sends the waiting jobs, a batch at a time, until none is left (one batch in the process at once). */
  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (this.#waiting.length > 0) {
        const batch = takeBatch(this.#waiting);
        const unanswered = await this.#run(batch);
        // Jobs after the one that ended the process were not at fault: first in line for the next one.
        this.#waiting.unshift(...unanswered);
      }
    } finally {
      this.#pumping = false;
    }
  }

  /**
   * Sends `batch` in one message; the process runs its jobs in order
   * and answers each as it finishes. Each job has its own time limit, from
   * the moment the job before it was answered (when the process starts it).
   * A job over a limit, or whose process died, gets that outcome; the jobs
   * after it in the batch are returned to be sent again, to a new process.
   */
  async #run(batch: readonly Waiting[]): Promise<Waiting[]> {
    if (this.#closed) {
      for (const waiting of batch) waiting.resolve({ crashed: 'the parsing process is closed' });
      return [];
    }
    this.#child ??= this.#spawn();
    const child = this.#child;
    // Referenced only while a job waits or runs: an idle parsing process never keeps the runtime alive.
    child.ref();
    if (!(await this.#ready)) {
      this.#discard(child);
      child.unref();
      const crashed = `the parsing process did not start: ${lastLine(this.#stderr)}`;
      for (const waiting of batch) waiting.resolve({ crashed });
      return [];
    }
    const { timeoutMs, memoryMb } = this.#limits;
    const jobs = batch.map((waiting) => ({ ...waiting.job, id: this.#nextId++ }) as ParsingJob);
    return new Promise((resolve) => {
      let next = 0;
      let timer: NodeJS.Timeout | undefined;
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          this.#discard(child);
          child.kill('SIGKILL');
          end({ overLimit: `took longer than ${timeoutMs / 1000} s` });
        }, timeoutMs);
      };
      const stop = () => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        child.unref();
      };
      /** The job under way ends with `outcome`; those after it go back. */
      const end = (outcome: JobOutcome) => {
        stop();
        batch[next]?.resolve(outcome);
        resolve(batch.slice(next + 1));
      };
      const onMessage = (reply: ParsingReply | ParsingReady) => {
        if ('ready' in reply || reply.id !== jobs[next]?.id) return;
        batch[next]?.resolve(
          reply.ok ? { value: reply.value } : { crashed: reply.message, name: reply.name },
        );
        next += 1;
        if (next < batch.length) {
          arm();
          return;
        }
        stop();
        resolve([]);
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
        this.#discard(child);
        end(
          this.#stderr.includes('heap out of memory')
            ? { overLimit: `needed more than ${memoryMb} MB of memory` }
            : {
                crashed: `the parsing process stopped (${signal ?? `exit code ${code}`}): ${lastLine(this.#stderr)}`,
              },
        );
      };
      arm();
      child.on('message', onMessage);
      child.on('exit', onExit);
      child.send(jobs);
    });
  }

  #discard(child: ChildProcess): void {
    if (this.#child === child) this.#child = null;
  }

  /**
   * From TypeScript sources (`npm start` runs them through tsx, the tests
   * through SWC) the process loads tsx itself; from compiled JavaScript it
   * needs nothing.
   */
  #spawn(): ChildProcess {
    const fromSource = extname(__filename) === '.ts';
    const entry = join(__dirname, `process-entry${extname(__filename)}`);
    const child = fork(entry, [], {
      execArgv: [
        ...(fromSource ? ['--require', require.resolve('tsx/cjs')] : []),
        `--max-old-space-size=${this.#limits.memoryMb}`,
      ],
      serialization: 'advanced',
      // Piped, not inherited: if the runtime is killed, its output closes with it rather than
      // staying open in a process still finishing its job (which then exits on the lost channel).
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    child.stdout?.pipe(process.stdout, { end: false });
    this.#stderr = '';
    this.#ready = new Promise((resolve) => {
      child.once('message', (message: ParsingReady) => resolve(message.ready === true));
      child.once('exit', () => resolve(false));
    });
    child.stderr?.setEncoding('utf8');
    // Kept, not shown: V8's report of a heap limit is long, and the reason reaches the file's record.
    child.stderr?.on('data', (text: string) => {
      this.#stderr = (this.#stderr + text).slice(-STDERR_TAIL);
    });
    // A failure to start shows as its exit; without a listener it would be thrown.
    child.on('error', () => this.#discard(child));
    child.unref();
    return child;
  }
}
