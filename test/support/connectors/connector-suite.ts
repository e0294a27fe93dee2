import { CapturedOutput } from '../captured-output';
import { connectorSteps } from '../connector-sign-in';
import { createAgent, createDataSource } from '../fixtures';
import { json } from '../http-client';
import { startTestService, type TestService } from '../local-service';
import { syncNow } from '../sync';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../test-clock';
import type { Answer, ConnectorAdapter } from './connector-adapter';

/**
 * A connector suite's setting, registered in the calling `describe`: the
 * provider's stand-in and the service pointed at it, on one controllable
 * clock, with every log line and response body kept to look for tokens in
 * (they are never shown or logged). The stand-in listens on loopback, which
 * the service reaches only with `SVC_ALLOW_PRIVATE_URLS` (local runs and tests only).
 */
export function connectorSuite(adapter: ConnectorAdapter) {
  const clock = new TestClock();
  const output = new CapturedOutput();
  let service: TestService;

  beforeAll(async () => {
    const env = await adapter.start(clock);
    output.start();
    service = await startTestService({
      clock,
      env: { SVC_ALLOW_PRIVATE_URLS: 'true', ...env, LOG_LEVEL: 'INFO' },
    });
    await adapter.seed();
  });
  afterAll(async () => {
    output.stop();
    await service?.end();
    await adapter.close();
  });
  // Each test starts with full rate-limit buckets.
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const steps = connectorSteps(() => service, output.seen);

  /** A manually synced source of the provider (reading `adapter.config()` by default). */
  async function createSource(config = adapter.config(), key?: string) {
    return createDataSource(service, key ?? service.adminKey, {
      type: adapter.type,
      name: `${adapter.name} source`,
      config,
      sync_frequency: 'manual',
    });
  }

  /** Asks a new agent over the one source. */
  async function ask(sourceId: string, query: string): Promise<Answer> {
    const agent = await createAgent(service, service.adminKey, {
      name: `Asks ${query.slice(0, 20)}`,
      data_source_ids: [sourceId],
    });
    return json(
      await steps.call('/api/v1/query', { method: 'POST', body: { agent_id: agent.id, query } }),
    );
  }

  const sync = (sourceId: string) => syncNow(service, service.adminKey, sourceId);

  /** The number of chunks the index holds for the source. */
  const chunkCount = (sourceId: string) =>
    service.runtime.dependencies.retrieval.count({
      orgId: service.orgId,
      dataSourceIds: [sourceId],
    });

  return {
    clock,
    seen: output.seen,
    service: () => service,
    ...steps,
    createSource,
    ask,
    sync,
    chunkCount,
  };
}
