/**
 * The HTTP load generator, run in a worker thread (see `http-load.ts`) so
 * the client has its own event loop and does not share one with the
 * gateway, the handlers and dynalite. Sends `GET /api/v1/agents/:id` over
 * keep-alive HTTP/1.1 on loopback and posts its `HttpLoadResult` back.
 */
import { Agent, type IncomingMessage, request } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import * as z from 'zod/mini';
import { type Credential, driveLoad, type LoadResult, type Outcome } from './load-driver';

const jobSchema = z.object({
  url: z.url(),
  plan: z.object({
    concurrency: z.int().check(z.minimum(1)),
    warmupRequests: z.int().check(z.minimum(0)),
    warmupMaxMs: z.number().check(z.minimum(0)),
    requests: z.int().check(z.minimum(1)),
    maxMs: z.number().check(z.minimum(1)),
    requestsPerKey: z.int().check(z.minimum(1)),
  }),
  credentials: z.array(z.object({ key: z.string(), agentId: z.string() })),
});

export type HttpLoadJob = z.infer<typeof jobSchema>;

export type HttpLoadMessage =
  | { readonly kind: 'result'; readonly result: LoadResult; readonly connections: number }
  | { readonly kind: 'error'; readonly message: string };

function post(message: HttpLoadMessage): void {
  parentPort?.postMessage(message);
}

async function run(job: HttpLoadJob): Promise<void> {
  const target = new URL(job.url);
  const agent = new Agent({ keepAlive: true, maxSockets: job.plan.concurrency });
  let connections = 0;

  const getAgent = (credential: Credential): Promise<Outcome> =>
    new Promise((resolve, reject) => {
      const outgoing = request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          method: 'GET',
          path: `/api/v1/agents/${encodeURIComponent(credential.agentId)}`,
          headers: { authorization: `Bearer ${credential.key}`, accept: 'application/json' },
        },
        (response: IncomingMessage) => {
          if (!outgoing.reusedSocket) connections += 1;
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              rateLimited: response.headers['x-ratelimit-remaining'] !== undefined,
              bodyMatches: Buffer.concat(chunks).toString('utf8').includes(credential.agentId),
            }),
          );
        },
      );
      outgoing.on('error', reject);
      outgoing.end();
    });

  const result = await driveLoad(job.plan, job.credentials, getAgent);
  agent.destroy();
  post({ kind: 'result', result, connections });
}

Promise.resolve()
  .then(() => run(jobSchema.parse(workerData)))
  .catch((error: unknown) => {
    post({ kind: 'error', message: error instanceof Error ? error.message : String(error) });
  });
