import type { Clock } from '../../layers/core/ports/clock.port';
import type { AccessLogLine } from '../../lib/local/gateway';
import { parseLocalConfig } from '../../lib/local/local-config';
import { type LocalRuntime, startLocalRuntime } from '../../lib/local/runtime';

export interface TestService {
  readonly runtime: LocalRuntime;
  readonly url: string;
  /** The bootstrap organization's Admin key. */
  readonly adminKey: string;
  readonly orgId: string;
  end(): Promise<void>;
}

/**
 * Starts the real local runtime (dynalite, gateway, handlers) in memory on
 * free ports, as `npm start` would, for tests that talk HTTP to it.
 */
export async function startTestService(
  options: {
    readonly env?: Record<string, string>;
    readonly clock?: Clock;
    /** P227: serve a built console from this folder at `/`, as `npm start` serves web/dist. */
    readonly consoleDirectory?: string;
    /** Each request's access-log line, after its response ended (a stream's too). */
    readonly onRequest?: (line: AccessLogLine) => void;
  } = {},
): Promise<TestService> {
  const config = parseLocalConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    SVC_DYNAMODB_PORT: '0',
    SVC_IN_MEMORY: 'true',
    // Background workers off: tests step them (runtime.workers.step()) when they need them.
    SVC_WORKER_INTERVAL_MS: '0',
    ...options.env,
  });
  const runtime = await startLocalRuntime(config, {
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.consoleDirectory ? { consoleDirectory: options.consoleDirectory } : {}),
    ...(options.onRequest ? { onRequest: options.onRequest } : {}),
  });
  const adminKey = runtime.bootstrap.newKey;
  if (!adminKey) throw new Error('a fresh in-memory runtime must create its bootstrap key');
  return {
    runtime,
    url: runtime.url,
    adminKey,
    orgId: runtime.bootstrap.organization.id,
    end: () => runtime.end(),
  };
}
