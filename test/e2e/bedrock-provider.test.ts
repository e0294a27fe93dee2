import {
  type BedrockRuntimeStandIn,
  STAND_IN_RETRY_AFTER_SECONDS,
  startBedrockRuntimeStandIn,
} from '../support/bedrock-runtime-stand-in';
import { expectNestedError } from '../support/error-shapes';
import { createAgent } from '../support/fixtures';
import { api } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { helpCenterPages, type LoopbackSite, startLoopbackSite } from '../support/loopback-site';
import { parseEventStream } from '../support/sse';
import { indexWebsite } from '../support/sync';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

const QUESTION = 'How many days do I have to return a widget for a full refund?';
const MODEL = 'amazon.nova-lite-v1:0';
const EMBEDDER = 'bedrock/amazon.titan-embed-text-v2:0/512';

/**
 * Issue 32 end to end: the local runtime with SVC_MODEL_PROVIDER=bedrock,
 * pointed at a loopback stand-in of the Bedrock Runtime API through
 * AWS_ENDPOINT_URL_BEDROCK_RUNTIME, signed with the default credential
 * chain (the environment's keys): a crawl embedded through InvokeModel, a
 * plain answer through Converse and a streamed one through ConverseStream,
 * with citations, tokens and cost; and the failures a caller sees.
 */
describe('Amazon Bedrock as the model provider (SVC_MODEL_PROVIDER=bedrock)', () => {
  const clock = new TestClock();
  const saved = { ...process.env };
  let standIn: BedrockRuntimeStandIn;
  let service: TestService;
  let site: LoopbackSite;
  let agent: Record<string, any>;
  let embeddingsAtIngestion: number;

  beforeAll(async () => {
    process.env.AWS_ACCESS_KEY_ID = 'AKIDSTANDIN';
    process.env.AWS_SECRET_ACCESS_KEY = 'stand-in-secret';
    [standIn, site] = await Promise.all([
      startBedrockRuntimeStandIn(),
      startLoopbackSite(helpCenterPages),
    ]);
    service = await startTestService({
      clock,
      env: {
        SVC_ALLOW_PRIVATE_URLS: 'true',
        SVC_MODEL_PROVIDER: 'bedrock',
        SVC_BEDROCK_EMBEDDING_DIMENSIONS: '512',
        AWS_REGION: 'us-east-1',
        AWS_ENDPOINT_URL_BEDROCK_RUNTIME: standIn.url,
      },
    });
    const source = (await indexWebsite(service, service.adminKey, site.url('/'))).source;
    embeddingsAtIngestion = standIn.calls.filter((call) => call.operation === 'invoke').length;
    agent = await createAgent(service, service.adminKey, {
      name: 'Help desk on Bedrock',
      data_source_ids: [source.id],
      model: MODEL,
    });
  });
  afterAll(async () => {
    process.env = saved;
    await service.end();
    await Promise.all([standIn.close(), site.close()]);
  });
  beforeEach(() => {
    clock.advance(REFILL_ALL_BUCKETS_MS);
    standIn.behaviour = 'normal';
    standIn.deniedModels.clear();
    standIn.calls.length = 0;
  });

  const ask = (body: Record<string, unknown>) =>
    api(service.url, '/api/v1/query', { method: 'POST', key: service.adminKey, body });

  it('embeds the crawled pages through InvokeModel with Titan V2 at the configured dimension', () => {
    expect(embeddingsAtIngestion).toBeGreaterThan(0);
    expect(service.runtime.dependencies.embedder.id).toBe(EMBEDDER);
  });

  it('answers through Converse with citations, Bedrock’s tokens and a priced cost', async () => {
    const response = await ask({ agent_id: agent.id, query: QUESTION });

    expect(response.status).toBe(200);
    const result = JSON.parse(response.text);
    expect(result.response).toMatch(/30 days.*\[1\]/);
    expect(result.sources).toHaveLength(1);
    expect(result.sources[0].document_title).toMatch(/Returns/);
    expect(result.metadata.model).toBe(MODEL);
    expect(result.metadata.tokens_input).toBeGreaterThan(0);
    expect(result.metadata.tokens_output).toBeGreaterThan(0);
    expect(result.metadata.cost_usd).toBeGreaterThan(0);
    // The question was embedded, then answered.
    expect(standIn.calls.map((call) => call.operation)).toEqual(['invoke', 'converse']);
    expect(standIn.calls[0]?.body).toEqual({
      inputText: QUESTION,
      dimensions: 512,
      normalize: true,
    });
  });

  it('streams the answer through ConverseStream as the same SSE events', async () => {
    const response = await ask({ agent_id: agent.id, query: QUESTION, stream: true });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = parseEventStream(response.text);
    const names = events.map((event) => event.event);
    expect(names[0]).toBe('sources');
    expect(names.at(-1)).toBe('done');
    expect(new Set(names.slice(1, -1))).toEqual(new Set(['delta']));
    expect(names.length).toBeGreaterThan(4);
    const done = events.at(-1)?.data as Record<string, any>;
    expect(done.response).toMatch(/30 days.*\[1\]/);
    expect(done.metadata.model).toBe(MODEL);
    expect(standIn.calls.map((call) => call.operation)).toEqual(['invoke', 'converse-stream']);
  });

  it('answers 503 naming the model and the console’s Model access page when access is denied', async () => {
    standIn.deniedModels.add(MODEL);

    const plain = await ask({ agent_id: agent.id, query: QUESTION });
    const streamed = await ask({ agent_id: agent.id, query: QUESTION, stream: true });

    const error = expectNestedError(plain, 503, 'service_unavailable');
    expect(error.message).toMatch(/amazon\.nova-lite-v1:0 in us-east-1/);
    expect(error.message).toMatch(/Amazon Bedrock in us-east-1, then Model access/);
    expect(error.message).not.toMatch(/specified model ID/);
    expect(Number(plain.headers.get('retry-after'))).toBeGreaterThan(0);
    // Streamed, the sources are out before the model refuses: the stream's error event.
    const last = parseEventStream(streamed.text).at(-1);
    expect(last?.event).toBe('error');
    expect(last?.data.error.code).toBe('service_unavailable');
    expect(last?.data.error.message).toBe(error.message);
  });

  it('answers 503 naming the embedding model when the question cannot be embedded', async () => {
    standIn.deniedModels.add('amazon.titan-embed-text-v2:0');

    const response = await ask({ agent_id: agent.id, query: QUESTION });

    const error = expectNestedError(response, 503, 'service_unavailable');
    expect(error.message).toMatch(/amazon\.titan-embed-text-v2:0 in us-east-1/);
  });

  it('answers 503 with Bedrock’s Retry-After when throttled, plain or streamed', async () => {
    standIn.behaviour = 'throttle';

    const plain = await ask({ agent_id: agent.id, query: QUESTION });
    const streamed = await ask({ agent_id: agent.id, query: QUESTION, stream: true });

    const error = expectNestedError(plain, 503, 'service_unavailable');
    expect(error.message).not.toMatch(/Too many requests/);
    expect(plain.headers.get('retry-after')).toBe(String(STAND_IN_RETRY_AFTER_SECONDS));
    // Refused before anything streamed (the question's embedding): a plain 503 too.
    expect(streamed.status).toBe(503);
  });

  it('ends a stream Bedrock breaks off with a 503 error event, not a done', async () => {
    standIn.behaviour = 'break-stream';

    const response = await ask({ agent_id: agent.id, query: QUESTION, stream: true });

    const events = parseEventStream(response.text);
    expect(events.some((event) => event.event === 'delta')).toBe(true);
    expect(events.some((event) => event.event === 'done')).toBe(false);
    expect(events.at(-1)?.event).toBe('error');
    expect(events.at(-1)?.data.error.code).toBe('service_unavailable');
  });

  it('keeps offline-extractive agents offline: no Bedrock call', async () => {
    const offline = await createAgent(service, service.adminKey, {
      name: 'Offline',
      data_source_ids: agent.data_source_ids,
      model: 'offline-extractive',
    });

    const response = await ask({ agent_id: offline.id, query: QUESTION });

    expect(response.status).toBe(200);
    expect(JSON.parse(response.text).metadata.model).toBe('offline-extractive');
    // Retrieval still embeds the question with the deployment's embedder.
    expect(standIn.calls.map((call) => call.operation)).toEqual(['invoke']);
  });
});
