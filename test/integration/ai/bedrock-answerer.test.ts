import { BedrockAnswerer } from '../../../layers/core/adapters/ai/bedrock-answerer';
import { ACCESS_DENIED_RETRY_AFTER_SECONDS } from '../../../layers/core/adapters/ai/bedrock-errors';
import {
  type AnswerEvent,
  type AnswerRequest,
  ModelRateLimitedError,
  ModelUnavailableError,
} from '../../../layers/core/ports/answerer.port';
import {
  type BedrockRuntimeStandIn,
  STAND_IN_RETRY_AFTER_SECONDS,
  startBedrockRuntimeStandIn,
} from '../../support/bedrock-runtime-stand-in';

const MODEL = 'amazon.nova-lite-v1:0';

const request: AnswerRequest = {
  model: 'gpt-4o-mini',
  systemPrompt: 'You answer for Acme.',
  question: 'How many days do I have to return a widget?',
  history: [{ question: 'Do you sell widgets?', answer: 'Yes, in three colours [1].' }],
  sources: [
    {
      number: 1,
      chunk_id: 'chk_1',
      document_title: 'Shipping',
      document_url: 'https://example.com/shipping',
      text: 'Widgets ship within two days. Shipping is free over $50.',
      score: 0.4,
    },
    {
      number: 2,
      chunk_id: 'chk_2',
      document_title: 'Returns',
      document_url: 'https://example.com/returns',
      text: 'You may return a widget within 30 days for a full refund. Opened boxes are fine.',
      score: 0.8,
    },
  ],
  temperature: 1.5,
  maxTokens: 300,
};

async function collect(events: AsyncIterable<AnswerEvent>): Promise<AnswerEvent[]> {
  const collected: AnswerEvent[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

/**
 * The Bedrock answerer against a loopback stand-in of the Bedrock Runtime
 * API, through the real SDK client and its HTTP/1.1 handler: Converse for a
 * whole answer, ConverseStream (AWS event-stream framing) for a stream.
 */
describe('BedrockAnswerer', () => {
  let standIn: BedrockRuntimeStandIn;
  const saved = { ...process.env };
  let answerer: BedrockAnswerer;

  beforeAll(async () => {
    // The default credential chain, as on one machine: the environment's keys.
    process.env.AWS_ACCESS_KEY_ID = 'AKIDSTANDIN';
    process.env.AWS_SECRET_ACCESS_KEY = 'stand-in-secret';
    standIn = await startBedrockRuntimeStandIn();
    answerer = new BedrockAnswerer({
      modelId: MODEL,
      region: 'us-east-1',
      endpoint: standIn.url,
      timeoutMs: 2_000,
    });
  });
  afterAll(async () => {
    process.env = saved;
    await standIn.close();
  });
  beforeEach(() => {
    standIn.behaviour = 'normal';
    standIn.calls.length = 0;
  });

  it('answers a whole question through Converse with the prompt, history and inferenceConfig', async () => {
    const events = await collect(answerer.answer(request));

    const done = events.at(-1);
    expect(done?.type).toBe('done');
    if (done?.type !== 'done') return;
    expect(done.result.text).toBe('You may return a widget within 30 days for a full refund [2].');
    expect(done.result.cited).toEqual([2]);
    expect(done.result.model).toBe(MODEL);
    expect(done.result.tokensInput).toBeGreaterThan(0);
    expect(done.result.tokensOutput).toBeGreaterThan(0);
    const [call] = standIn.calls;
    expect(call?.operation).toBe('converse');
    expect(call?.modelId).toBe(MODEL);
    expect(call?.signedFor).toBe('bedrock');
    // The handler is chosen: HTTP/1.1, not the SDK's default HTTP/2 (bedrock-connection.ts).
    expect(call?.httpVersion).toBe('1.1');
    expect(call?.body.system[0].text).toMatch(/^You answer for Acme\.\n\nAnswer only from/);
    expect(call?.body.messages.map((message: { role: string }) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
    ]);
    // The earlier answer's citations numbered other sources: removed.
    expect(call?.body.messages[1].content[0].text).toBe('Yes, in three colours.');
    expect(call?.body.messages[2].content[0].text).toMatch(/^Sources:\n\n\[1\] Shipping/);
    // Bedrock's models take a temperature of at most 1.
    expect(call?.body.inferenceConfig).toEqual({ temperature: 1, maxTokens: 300 });
  });

  it('streams deltas through ConverseStream and ends with the usage Bedrock reports', async () => {
    const events = await collect(answerer.answer({ ...request, stream: true }));

    const deltas = events.filter((event) => event.type === 'delta');
    expect(deltas.length).toBeGreaterThan(3);
    const done = events.at(-1);
    if (done?.type !== 'done') throw new Error('no done event');
    expect(deltas.map((event) => (event.type === 'delta' ? event.text : '')).join('')).toBe(
      done.result.text,
    );
    expect(done.result.cited).toEqual([2]);
    expect(standIn.calls.map((call) => call.operation)).toEqual(['converse-stream']);
  });

  it('says which model was refused and where access is requested, without AWS wording (503)', async () => {
    standIn.behaviour = 'access-denied';

    const failure = collect(answerer.answer(request));

    await expect(failure).rejects.toThrow(ModelUnavailableError);
    const error = (await failure.catch((caught: unknown) => caught)) as ModelUnavailableError;
    expect(error.message).toMatch(/amazon\.nova-lite-v1:0/);
    expect(error.message).toMatch(/us-east-1/);
    expect(error.message).toMatch(/Model access/);
    expect(error.message).not.toMatch(/specified model ID/);
    expect(error.retryAfterSeconds).toBe(ACCESS_DENIED_RETRY_AFTER_SECONDS);
  });

  it('maps throttling to a rate-limited 503 with Bedrock’s Retry-After', async () => {
    standIn.behaviour = 'throttle';

    const error = await collect(answerer.answer({ ...request, stream: true })).catch(
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(ModelRateLimitedError);
    expect((error as ModelRateLimitedError).retryAfterSeconds).toBe(STAND_IN_RETRY_AFTER_SECONDS);
    expect((error as Error).message).not.toMatch(/Too many requests/);
  });

  it('fails a stream that breaks off after its first deltas as unavailable, not as an answer', async () => {
    standIn.behaviour = 'break-stream';
    const seen: AnswerEvent[] = [];

    const failure = (async () => {
      for await (const event of answerer.answer({ ...request, stream: true })) seen.push(event);
    })();

    await expect(failure).rejects.toThrow(ModelUnavailableError);
    expect(seen.some((event) => event.type === 'done')).toBe(false);
  });

  it('fails a stream that carries a throttling exception event as rate limited', async () => {
    standIn.behaviour = 'throttle-mid-stream';

    const error = await collect(answerer.answer({ ...request, stream: true })).catch(
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(ModelRateLimitedError);
    expect((error as Error).message).not.toMatch(/Too many tokens/);
  });

  it('answers without calling Bedrock when nothing was retrieved', async () => {
    const events = await collect(answerer.answer({ ...request, sources: [] }));

    expect(events.at(-1)).toMatchObject({ type: 'done', result: { cited: [], tokensInput: 0 } });
    expect(standIn.calls).toEqual([]);
  });
});
