import { type ChildProcess, fork } from 'node:child_process';
import { extname, join } from 'node:path';
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
  /** The parser threw, or the process died for another reason: an error of ours, retried like one. */
  | { readonly crashed: string };

type Job = ParsingJob extends infer J ? (J extends ParsingJob ? Omit<J, 'id'> : never) : never;

const lastLine = (text: string) => text.trim().split('\n').at(-1) ?? '';

/** The tail of the process's stderr kept to tell why it died. */
const STDERR_TAIL = 4_096;

/**
 * The local runtime's parsing process (issue 14, P69): files are parsed and
 * documents chunked in a child process, one job at a time, so the API's
 * event loop is never held by them, and a parser that runs away is stopped
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
  #tail: Promise<unknown> = Promise.resolve();
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
    const outcome = this.#tail.then(() => this.#run(job));
    this.#tail = outcome.catch(() => undefined);
    return outcome;
  }

  async #run(job: Job): Promise<JobOutcome> {
    if (this.#closed) return { crashed: 'the parsing process is closed' };
    this.#child ??= this.#spawn();
    const child = this.#child;
    // Referenced only while a job waits or runs: an idle parsing process never keeps the runtime alive.
    child.ref();
    if (!(await this.#ready)) {
      this.#discard(child);
      return { crashed: `the parsing process did not start: ${lastLine(this.#stderr)}` };
    }
    const id = this.#nextId++;
    const { timeoutMs, memoryMb } = this.#limits;
    return new Promise((resolve) => {
      const finish = (outcome: JobOutcome) => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        child.unref();
        resolve(outcome);
      };
      const onMessage = (reply: ParsingReply | ParsingReady) => {
        if ('ready' in reply || reply.id !== id) return;
        finish(reply.ok ? { value: reply.value } : { crashed: reply.message });
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
        this.#discard(child);
        finish(
          this.#stderr.includes('heap out of memory')
            ? { overLimit: `needed more than ${memoryMb} MB of memory` }
            : {
                crashed: `the parsing process stopped (${signal ?? `exit code ${code}`}): ${lastLine(this.#stderr)}`,
              },
        );
      };
      const timer = setTimeout(() => {
        this.#discard(child);
        child.kill('SIGKILL');
        finish({ overLimit: `took longer than ${timeoutMs / 1000} s` });
      }, timeoutMs);
      child.on('message', onMessage);
      child.on('exit', onExit);
      child.send({ ...job, id });
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
