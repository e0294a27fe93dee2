import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseLocalConfig } from '../../lib/local/local-config';
import { startLocalRuntime } from '../../lib/local/runtime';
import {
  type BedrockRuntimeStandIn,
  startBedrockRuntimeStandIn,
} from '../support/bedrock-runtime-stand-in';
import { expectNestedError } from '../support/error-shapes';
import { createAgent } from '../support/fixtures';
import { api, json } from '../support/http-client';
import type { TestService } from '../support/local-service';
import { helpCenterPages, type LoopbackSite, startLoopbackSite } from '../support/loopback-site';
import { indexWebsite, syncNow } from '../support/sync';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

const QUESTION = 'How many days do I have to return a widget for a full refund?';
const OFFLINE_EMBEDDER = 'offline-hash-v1/384';
const BEDROCK_EMBEDDER = 'bedrock/amazon.titan-embed-text-v2:0/1024';

/**
 * Issue 32: a deployment that already holds vectors switches its embedder
 * (the offline one, then Bedrock's). The runtime is restarted on the same
 * data directory, as an operator would restart `npm start` (or redeploy
 * with `modelProvider=bedrock`): the old vectors are never searched with
 * the new model's question vectors (409 until re-indexed), and a re-sync
 * embeds every document again, unchanged pages included, with its progress
 * in the status.
 */
describe('Changing the embedder of a deployment that holds vectors (issue 32)', () => {
  const clock = new TestClock();
  const saved = { ...process.env };
  let directory: string;
  let standIn: BedrockRuntimeStandIn;
  let site: LoopbackSite;
  let service: TestService | undefined;

  /** The local runtime on `directory`, with `env`; the admin key of its first start. */
  async function start(env: Record<string, string>, adminKey?: string): Promise<TestService> {
    const config = parseLocalConfig({
      HOST: '127.0.0.1',
      PORT: '0',
      SVC_DYNAMODB_PORT: '0',
      SVC_DATA_DIR: directory,
      SVC_WORKER_INTERVAL_MS: '0',
      SVC_ALLOW_PRIVATE_URLS: 'true',
      ...env,
    });
    const runtime = await startLocalRuntime(config, { clock });
    const key = adminKey ?? runtime.bootstrap.newKey;
    if (!key) throw new Error('the first start must create the bootstrap key');
    return {
      runtime,
      url: runtime.url,
      adminKey: key,
      orgId: runtime.bootstrap.organization.id,
      end: () => runtime.end(),
    };
  }

  beforeAll(async () => {
    process.env.AWS_ACCESS_KEY_ID = 'AKIDSTANDIN';
    process.env.AWS_SECRET_ACCESS_KEY = 'stand-in-secret';
    directory = await mkdtemp(join(tmpdir(), 'svc-embedder-change-'));
    [standIn, site] = await Promise.all([
      startBedrockRuntimeStandIn(),
      startLoopbackSite(helpCenterPages),
    ]);
  });
  afterAll(async () => {
    process.env = saved;
    await service?.end();
    await Promise.all([standIn.close(), site.close()]);
    await rm(directory, { recursive: true, force: true });
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  it('refuses to mix the two models’ vectors, then re-indexes every document on a re-sync', async () => {
    // Prepare: indexed and answering offline.
    const offline = await start({});
    const { source } = await indexWebsite(offline, offline.adminKey, site.url('/'));
    const agent = await createAgent(offline, offline.adminKey, {
      name: 'Help desk',
      data_source_ids: [source.id],
    });
    const ask = (on: TestService) =>
      api(on.url, '/api/v1/query', {
        method: 'POST',
        key: on.adminKey,
        body: { agent_id: agent.id, query: QUESTION },
      });
    expect((await ask(offline)).status).toBe(200);
    const pages = (
      await offline.runtime.dependencies.retrieval.documentHashes(offline.orgId, source.id)
    ).size;
    await offline.end();

    // Act 1: the same data, now with Bedrock's embedder.
    service = await start(
      {
        SVC_MODEL_PROVIDER: 'bedrock',
        AWS_REGION: 'us-east-1',
        AWS_ENDPOINT_URL_BEDROCK_RUNTIME: standIn.url,
      },
      offline.adminKey,
    );
    const refused = await ask(service);

    // Assess 1: never a search of offline vectors with a Bedrock question vector.
    const conflict = expectNestedError(refused, 409, 'invalid_request');
    expect(conflict.details).toMatchObject({
      indexed_with: OFFLINE_EMBEDDER,
      searching_with: BEDROCK_EMBEDDER,
    });
    expect(conflict.message).toMatch(/sync the agent's data sources again/);

    // Act 2: the re-sync the message asks for (every source: one POST …/sync each).
    standIn.calls.length = 0;
    const status = await syncNow(service, service.adminKey, source.id);

    // Assess 2: every page embedded again, though none changed; progress reported.
    expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
    expect(status.documents_processed).toBe(pages);
    expect(status.chunks_indexed).toBeGreaterThanOrEqual(pages);
    expect(standIn.calls.filter((call) => call.operation === 'invoke').length).toBe(
      status.chunks_indexed,
    );
    const hashes = await service.runtime.dependencies.retrieval.documentHashes(
      service.orgId,
      source.id,
      BEDROCK_EMBEDDER,
    );
    expect([...hashes.values()].filter((hash) => hash === '')).toEqual([]);
    const answered = await ask(service);
    expect(answered.status).toBe(200);
    expect(json(answered).sources.length).toBeGreaterThan(0);
  });
});
