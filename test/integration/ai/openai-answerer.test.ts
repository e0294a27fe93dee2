import { createServer } from 'node:net';
import {
  DEFAULT_SYSTEM_PROMPT,
  GROUNDING_RULES,
  OpenAiAnswerer,
} from '../../../layers/core/adapters/ai/openai-answerer';
import { NO_ANSWER_TEXT } from '../../../layers/core/domain/no-answer';
import { estimateTokens } from '../../../layers/core/domain/retrieval/token-estimate';
import {
  type AnswerEvent,
  type AnswerRequest,
  ModelUnavailableError,
} from '../../../layers/core/ports/answerer.port';
import { ModelRequestError } from '../../../layers/core/ports/model-request-error';
import {
  type FakeOpenAi,
  fixture,
  jsonFixture,
  type Reply,
  sendJson,
  sendSse,
  startFakeOpenAi,
} from './fake-openai-server';

const API_KEY = 'sk-test-0123456789';
const TIMEOUT_MS = 300;

const STREAM = fixture('chat-completion-stream.sse');

const request = (overrides: Partial<AnswerRequest> = {}): AnswerRequest => ({
  model: 'gpt-4o-mini',
  systemPrompt: 'You are the support agent of Example Ltd.',
  question: 'Can I get my money back?',
  history: [],
  sources: [
    {
      number: 1,
      chunk_id: 'chk_1',
      document_title: 'Refund policy',
      document_url: 'https://example.com/refunds',
      text: 'Customers can request a refund within 30 days of purchase.',
      score: 0.83,
    },
    {
      number: 2,
      chunk_id: 'chk_2',
      document_title: 'Enterprise terms',
      document_url: null,
      text: 'Enterprise contracts are refunded pro rata.',
      score: 0.61,
    },
  ],
  temperature: 0.2,
  maxTokens: 400,
  ...overrides,
});

async function collect(events: AsyncIterable<AnswerEvent>): Promise<AnswerEvent[]> {
  const seen: AnswerEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

/** Resolves with the error the answer stream fails with, and the deltas before it. */
async function failure(
  events: AsyncIterable<AnswerEvent>,
): Promise<{ error: unknown; deltas: string[]; elapsedMs: number }> {
  const started = Date.now();
  const deltas: string[] = [];
  try {
    for await (const event of events) if (event.type === 'delta') deltas.push(event.text);
  } catch (error) {
    return { error, deltas, elapsedMs: Date.now() - started };
  }
  throw new Error('the answer did not fail');
}

describe('Class: OpenAiAnswerer', () => {
  let server: FakeOpenAi | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function answererFor(reply: Reply, options: { maxRetries?: number } = {}) {
    server = await startFakeOpenAi(reply);
    return new OpenAiAnswerer({
      apiKey: API_KEY,
      baseURL: server.baseURL,
      timeoutMs: TIMEOUT_MS,
      retryAfterSeconds: 11,
      ...options,
    });
  }

  describe('a streamed answer', () => {
    it('yields the deltas as they arrive, then the text, usage and model', async () => {
      // Prepare
      const answerer = await answererFor((_request, res) => sendSse(res, STREAM));

      // Act
      const events = await collect(answerer.answer(request()));

      // Assess
      expect(events.filter((event) => event.type === 'delta')).toEqual([
        { type: 'delta', text: 'Refunds are available' },
        { type: 'delta', text: ' within 30 days of purchase [1].' },
        { type: 'delta', text: ' Enterprise contracts' },
        { type: 'delta', text: ' are refunded pro rata [2][7].' },
      ]);
      expect(events.at(-1)).toEqual({
        type: 'done',
        result: {
          text: 'Refunds are available within 30 days of purchase [1]. Enterprise contracts are refunded pro rata [2][7].',
          cited: [1, 2],
          tokensInput: 412,
          tokensOutput: 27,
          model: 'gpt-4o-mini-2024-07-18',
        },
      });
    });

    it('cites only the sources it was offered', async () => {
      const answerer = await answererFor((_request, res) => sendSse(res, STREAM));

      const events = await collect(
        answerer.answer(request({ sources: request().sources.slice(0, 1) })),
      );

      // [2] and [7] were not offered this time.
      expect(events.at(-1)).toMatchObject({ type: 'done', result: { cited: [1] } });
    });

    it('counts the tokens itself when the endpoint reports no usage', async () => {
      const answerer = await answererFor((_request, res) =>
        sendSse(res, fixture('chat-completion-stream-no-usage.sse')),
      );

      const events = await collect(answerer.answer(request()));

      const done = events.at(-1);
      expect(done?.type).toBe('done');
      if (done?.type !== 'done') return;
      expect(done.result.text).toBe('Thirty days [1].');
      expect(done.result.tokensOutput).toBe(estimateTokens('Thirty days [1].'));
      // System prompt, rules, both sources and the question, with message framing.
      expect(done.result.tokensInput).toBeGreaterThan(150);
      expect(done.result.tokensInput).toBeLessThan(400);
    });
  });

  describe('the request it sends', () => {
    it('posts the model, the numbered sources, the history, temperature and max_tokens', async () => {
      // Prepare
      const answerer = await answererFor((_request, res) => sendSse(res, STREAM));

      // Act
      await collect(
        answerer.answer(
          request({
            history: [
              { question: 'Do you ship to Canada?', answer: 'Yes, within a week [3].' },
              { question: 'And to Mexico?', answer: 'Not yet [1][2].' },
            ],
          }),
        ),
      );

      // Assess
      expect(server?.requests).toHaveLength(1);
      const [sent] = server?.requests ?? [];
      expect(sent?.method).toBe('POST');
      expect(sent?.path).toBe('/v1/chat/completions');
      expect(sent?.headers.authorization).toBe(`Bearer ${API_KEY}`);
      expect(sent?.body).toEqual({
        model: 'gpt-4o-mini',
        temperature: 0.2,
        max_tokens: 400,
        stream: true,
        stream_options: { include_usage: true },
        messages: [
          {
            role: 'system',
            content: `You are the support agent of Example Ltd.\n\n${GROUNDING_RULES}`,
          },
          { role: 'user', content: 'Do you ship to Canada?' },
          // Earlier citations numbered earlier sources: they are left out.
          { role: 'assistant', content: 'Yes, within a week.' },
          { role: 'user', content: 'And to Mexico?' },
          { role: 'assistant', content: 'Not yet.' },
          {
            role: 'user',
            content:
              'Sources:\n\n' +
              '[1] Refund policy (https://example.com/refunds)\nCustomers can request a refund within 30 days of purchase.\n\n' +
              '[2] Enterprise terms\nEnterprise contracts are refunded pro rata.\n\n' +
              'Question: Can I get my money back?',
          },
        ],
      });
    });

    it('uses a default system prompt when the agent has none', async () => {
      const answerer = await answererFor((_request, res) => sendSse(res, STREAM));

      await collect(answerer.answer(request({ systemPrompt: null })));

      expect(server?.requests[0]?.body.messages[0]).toEqual({
        role: 'system',
        content: `${DEFAULT_SYSTEM_PROMPT}\n\n${GROUNDING_RULES}`,
      });
    });

    it('sends at most the last 10 turns of the session (D18)', async () => {
      const answerer = await answererFor((_request, res) => sendSse(res, STREAM));
      const history = Array.from({ length: 12 }, (_, turn) => ({
        question: `Question ${turn}`,
        answer: `Answer ${turn}`,
      }));

      await collect(answerer.answer(request({ history })));

      const messages: { content: string }[] = server?.requests[0]?.body.messages ?? [];
      expect(messages).toHaveLength(1 + 20 + 1);
      expect(messages[1]?.content).toBe('Question 2');
    });

    it('answers that it found nothing, without calling the model, when there are no sources', async () => {
      const answerer = await answererFor((_request, res) => sendSse(res, STREAM));

      const events = await collect(answerer.answer(request({ sources: [] })));

      expect(events.at(-1)).toEqual({
        type: 'done',
        result: {
          text: NO_ANSWER_TEXT,
          cited: [],
          tokensInput: 0,
          tokensOutput: 0,
          model: 'gpt-4o-mini',
        },
      });
      expect(server?.requests).toHaveLength(0);
    });
  });

  describe('when the provider cannot answer now', () => {
    it('turns 429 into ModelUnavailableError with the Retry-After it named', async () => {
      const answerer = await answererFor((_request, res) =>
        sendJson(res, 429, jsonFixture('error-429-rate-limit.json'), { 'retry-after': '7' }),
      );

      const { error } = await failure(answerer.answer(request()));

      expect(error).toBeInstanceOf(ModelUnavailableError);
      expect(error).toMatchObject({ retryAfterSeconds: 7 });
      // maxRetries 0 by default: the caller retries, the request does not wait.
      expect(server?.requests).toHaveLength(1);
    });

    it('turns 500 into ModelUnavailableError with the default Retry-After', async () => {
      const answerer = await answererFor((_request, res) =>
        sendJson(res, 500, jsonFixture('error-500-server.json')),
      );

      const { error } = await failure(answerer.answer(request()));

      expect(error).toBeInstanceOf(ModelUnavailableError);
      expect(error).toMatchObject({ retryAfterSeconds: 11 });
    });

    it('gives up on a server that never answers within the timeout', async () => {
      const answerer = await answererFor(() => {
        // Never respond.
      });

      const { error, elapsedMs } = await failure(answerer.answer(request()));

      expect(error).toBeInstanceOf(ModelUnavailableError);
      expect((error as Error).message).toContain(`within ${TIMEOUT_MS} ms`);
      // The deadline that ended it is the configured one (a lower bound, which a busy machine cannot break).
      expect(elapsedMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    });

    it('gives up on a stream that goes silent after its first deltas', async () => {
      const answerer = await answererFor((_request, res) =>
        sendSse(res, STREAM, { events: 3, ending: 'stall' }),
      );

      const { error, deltas, elapsedMs } = await failure(answerer.answer(request()));

      expect(deltas).toEqual(['Refunds are available', ' within 30 days of purchase [1].']);
      expect(error).toBeInstanceOf(ModelUnavailableError);
      // The deadline that ended it is the configured one (a lower bound, which a busy machine cannot break).
      expect(elapsedMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
      // The stalled connection is closed, not left to the server.
      await waitFor(() => server?.closedByClient() === 1);
    });

    it('does not take a stream cut off before the model finished for an answer', async () => {
      const answerer = await answererFor((_request, res) =>
        sendSse(res, STREAM, { events: 3, ending: 'end' }),
      );

      const { error } = await failure(answerer.answer(request()));

      expect(error).toBeInstanceOf(ModelUnavailableError);
      expect((error as Error).message).toContain('before the answer was finished');
    });

    it('turns an error inside the stream into ModelUnavailableError', async () => {
      const answerer = await answererFor((_request, res) =>
        sendSse(res, fixture('chat-completion-stream-error.sse')),
      );

      const { error, deltas } = await failure(answerer.answer(request()));

      expect(deltas).toEqual(['Refunds']);
      expect(error).toBeInstanceOf(ModelUnavailableError);
    });

    it('turns a refused connection into ModelUnavailableError', async () => {
      const port = await closedPort();
      const answerer = new OpenAiAnswerer({
        apiKey: API_KEY,
        baseURL: `http://127.0.0.1:${port}/v1`,
        timeoutMs: TIMEOUT_MS,
      });

      const { error } = await failure(answerer.answer(request()));

      expect(error).toBeInstanceOf(ModelUnavailableError);
      expect(error).toMatchObject({ retryAfterSeconds: 30 });
    });
  });

  describe('when the provider refuses the configuration', () => {
    it('turns 401 into ModelRequestError without repeating the key', async () => {
      const answerer = await answererFor((_request, res) =>
        sendJson(res, 401, jsonFixture('error-401-invalid-api-key.json')),
      );

      const { error } = await failure(answerer.answer(request()));

      expect(error).toBeInstanceOf(ModelRequestError);
      expect(error).toMatchObject({ failure: 'authentication', providerStatus: 401 });
      expect((error as Error).message).toContain('Incorrect API key provided');
      expect((error as Error).message).not.toMatch(/sk-test/);
    });

    it('turns 404 for an unknown model into ModelRequestError', async () => {
      const answerer = await answererFor((_request, res) =>
        sendJson(res, 404, jsonFixture('error-404-model-not-found.json')),
      );

      const { error } = await failure(answerer.answer(request({ model: 'gpt-9-imaginary' })));

      expect(error).toBeInstanceOf(ModelRequestError);
      expect(error).toMatchObject({ failure: 'model_not_found', providerStatus: 404 });
      expect((error as Error).message).toContain('gpt-9-imaginary');
    });

    it('turns a used-up quota into ModelRequestError rather than a retry', async () => {
      const answerer = await answererFor((_request, res) =>
        sendJson(res, 429, jsonFixture('error-429-insufficient-quota.json')),
      );

      const { error } = await failure(answerer.answer(request()));

      expect(error).toBeInstanceOf(ModelRequestError);
      expect(error).toMatchObject({ failure: 'quota', providerStatus: 429 });
    });
  });

  describe('when the caller aborts', () => {
    it('stops reading mid-stream and rethrows the abort', async () => {
      // Prepare: the stream stalls after two deltas, as a slow model would.
      const answerer = await answererFor((_request, res) =>
        sendSse(res, STREAM, { events: 3, ending: 'stall' }),
      );
      const controller = new AbortController();
      const deltas: string[] = [];

      // Act
      const outcome = (async () => {
        for await (const event of answerer.answer(request({ signal: controller.signal }))) {
          if (event.type === 'delta') deltas.push(event.text);
          if (deltas.length === 2) setTimeout(() => controller.abort(), 10);
        }
      })();

      // Assess
      await expect(outcome).rejects.toMatchObject({ name: 'AbortError' });
      expect(deltas).toHaveLength(2);
      await waitFor(() => server?.closedByClient() === 1);
    });

    it('sends nothing when the signal is already aborted', async () => {
      const answerer = await answererFor((_request, res) => sendSse(res, STREAM));

      const { error } = await failure(answerer.answer(request({ signal: AbortSignal.abort() })));

      expect(error).toMatchObject({ name: 'AbortError' });
      expect(server?.requests).toHaveLength(0);
    });
  });
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

async function waitFor(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
