import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { HttpLoadJob, HttpLoadMessage } from './http-load-worker';
import type { LoadResult } from './load-driver';

export interface HttpLoadResult extends LoadResult {
  /** TCP connections the client opened: one per virtual user when keep-alive works. */
  readonly connections: number;
}

/**
 * Runs one HTTP load level in a fresh worker thread. tsx hooks `require`
 * in the main thread only, so the worker registers it before loading the
 * TypeScript module.
 */
export function runHttpLoad(job: HttpLoadJob): Promise<HttpLoadResult> {
  const workerFile = join(__dirname, 'http-load-worker.ts');
  const worker = new Worker(`require('tsx/cjs'); require(${JSON.stringify(workerFile)});`, {
    eval: true,
    workerData: job,
  });
  return new Promise<HttpLoadResult>((resolve, reject) => {
    worker.once('message', (message: HttpLoadMessage) => {
      if (message.kind === 'result')
        resolve({ ...message.result, connections: message.connections });
      else reject(new Error(`The HTTP load worker failed: ${message.message}`));
    });
    worker.once('error', reject);
    // Settling twice is a no-op, so this only reports a worker that ended silently.
    worker.once('exit', (code) => reject(new Error(`The HTTP load worker exited (${code})`)));
  });
}
