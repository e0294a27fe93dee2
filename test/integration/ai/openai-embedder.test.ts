import {
  OPENAI_EMBEDDER_DEFAULTS,
  OpenAiEmbedder,
  type OpenAiEmbedderOptions,
} from '../../../layers/core/adapters/ai/openai-embedder';
import { estimateTokens } from '../../../layers/core/domain/retrieval/token-estimate';
import { ModelUnavailableError } from '../../../layers/core/ports/answerer.port';
import { ModelRequestError } from '../../../layers/core/ports/model-request-error';
import {
  type FakeOpenAi,
  jsonFixture,
  type RecordedRequest,
  type Reply,
  sendJson,
  startFakeOpenAi,
} from './fake-openai-server';

const TIMEOUT_MS = 300;

/**
 * An embeddings list shaped like the fixture, one float32 base64 vector per
 * input: `[1, i, 0, 0]` for input number `i` (its text is `text <i>`), so
 * tests can tell which vector belongs to which input.
 */
function numberedVectors(request: RecordedRequest): Record<string, unknown> {
  const template = jsonFixture('embeddings-base64.json');
  const inputs: string[] = request.body.input;
  return {
    ...template,
    data: inputs.map((text, index) => ({
      object: 'embedding',
      index,
      embedding: float32Base64([1, Number(text.replace('text ', '')), 0, 0]),
    })),
  };
}

function float32Base64(values: readonly number[]): string {
  const buffer = Buffer.alloc(values.length * 4);
  values.forEach((value, index) => {
    buffer.writeFloatLE(value, index * 4);
  });
  return buffer.toString('base64');
}

/** `[1, i, 0, 0]` at unit length. */
const unit = (i: number) => [1, i, 0, 0].map((value) => value / Math.hypot(1, i));

describe('Class: OpenAiEmbedder', () => {
  let server: FakeOpenAi | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function embedderFor(reply: Reply, options: Partial<OpenAiEmbedderOptions> = {}) {
    server = await startFakeOpenAi(reply);
    return new OpenAiEmbedder({
      apiKey: 'sk-test-embed',
      baseURL: server.baseURL,
      dimensions: 4,
      timeoutMs: TIMEOUT_MS,
      maxRetries: 0,
      ...options,
    });
  }

  it('creates an embedder for text-embedding-3-small at 1536 dimensions by default', () => {
    const embedder = new OpenAiEmbedder({ apiKey: 'sk-test-embed' });

    expect(embedder.id).toBe('openai/text-embedding-3-small/1536');
    expect(embedder.dimensions).toBe(1536);
    expect(OPENAI_EMBEDDER_DEFAULTS.maxBatchInputs).toBe(2048);
  });

  it('names a shortened model in its id', () => {
    const embedder = new OpenAiEmbedder({
      apiKey: 'sk-test-embed',
      model: 'text-embedding-3-large',
      dimensions: 256,
    });

    expect(embedder.id).toBe('openai/text-embedding-3-large/256');
  });

  it('refuses a model of unknown length without `dimensions`', () => {
    expect(
      () => new OpenAiEmbedder({ apiKey: 'sk-test-embed', model: 'nomic-embed-text' }),
    ).toThrow(RangeError);
  });

  it('decodes base64 vectors and sends model, input, dimensions and encoding_format', async () => {
    // Prepare
    const embedder = await embedderFor((_request, res) =>
      sendJson(res, 200, jsonFixture('embeddings-base64.json')),
    );

    // Act
    const vectors = await embedder.embed(['What is the refund policy?', 'Refunds take 30 days.']);

    // Assess
    expect(vectors).toHaveLength(2);
    expect(vectors[0]?.map((value) => Number(value.toFixed(6)))).toEqual([0.5, 0.5, 0.5, 0.5]);
    expect(vectors[1]?.map((value) => Number(value.toFixed(6)))).toEqual([0.8, 0, 0.6, 0]);
    expect(server?.requests).toHaveLength(1);
    const [sent] = server?.requests ?? [];
    expect(sent?.path).toBe('/v1/embeddings');
    expect(sent?.headers.authorization).toBe('Bearer sk-test-embed');
    expect(sent?.body).toEqual({
      model: 'text-embedding-3-small',
      input: ['What is the refund policy?', 'Refunds take 30 days.'],
      encoding_format: 'base64',
      dimensions: 4,
    });
  });

  it('accepts plain number vectors and scales them to unit length', async () => {
    const embedder = await embedderFor((_request, res) =>
      sendJson(res, 200, jsonFixture('embeddings-float.json')),
    );

    const vectors = await embedder.embed(['a', 'b']);

    expect(vectors).toEqual([
      [0.6, 0, 0.8, 0],
      [0, 1, 0, 0],
    ]);
  });

  it('leaves `dimensions` out of the request unless it was configured', async () => {
    const embedder = await embedderFor(
      (request, res) =>
        sendJson(res, 200, {
          ...jsonFixture('embeddings-base64.json'),
          data: [
            { object: 'embedding', index: 0, embedding: float32Base64(new Array(1536).fill(1)) },
          ],
          model: request.body.model,
        }),
      { dimensions: undefined },
    );

    const [vector] = await embedder.embed(['hello']);

    expect(vector).toHaveLength(1536);
    expect(server?.requests[0]?.body).not.toHaveProperty('dimensions');
  });

  it('returns nothing for no texts, without a request', async () => {
    const embedder = await embedderFor((request, res) =>
      sendJson(res, 200, numberedVectors(request)),
    );

    await expect(embedder.embed([])).resolves.toEqual([]);
    expect(server?.requests).toHaveLength(0);
  });

  describe('batches', () => {
    it('splits the inputs by count and keeps their order', async () => {
      const embedder = await embedderFor(
        (request, res) => sendJson(res, 200, numberedVectors(request)),
        { maxBatchInputs: 3 },
      );
      const texts = Array.from({ length: 7 }, (_, i) => `text ${i}`);

      const vectors = await embedder.embed(texts);

      expect(server?.requests.map((request) => request.body.input.length)).toEqual([3, 3, 1]);
      vectors.forEach((vector, i) => {
        expect(vector.map((value) => Number(value.toFixed(6)))).toEqual(
          unit(i).map((value) => Number(value.toFixed(6))),
        );
      });
    });

    it('splits the inputs by their total tokens', async () => {
      const embedder = await embedderFor(
        (request, res) => sendJson(res, 200, numberedVectors(request)),
        // `text 1` is three tokens: at most two inputs fit in seven.
        { maxBatchTokens: 7 },
      );

      await embedder.embed(['text 1', 'text 2', 'text 3', 'text 4', 'text 5']);

      expect(estimateTokens('text 1')).toBe(3);
      expect(server?.requests.map((request) => request.body.input)).toEqual([
        ['text 1', 'text 2'],
        ['text 3', 'text 4'],
        ['text 5'],
      ]);
    });

    it('puts the vectors back in input order when the answer lists them out of order', async () => {
      const embedder = await embedderFor((request, res) => {
        const body = numberedVectors(request);
        sendJson(res, 200, { ...body, data: [...(body.data as unknown[])].reverse() });
      });

      const vectors = await embedder.embed(['text 0', 'text 1', 'text 2']);

      expect(vectors.map((vector) => Number(vector[1]?.toFixed(6)))).toEqual(
        [0, 1, 2].map((i) => Number(unit(i)[1]?.toFixed(6))),
      );
    });
  });

  describe('failures', () => {
    it('refuses vectors of the wrong length as a bad response', async () => {
      const embedder = await embedderFor(
        (_request, res) => sendJson(res, 200, jsonFixture('embeddings-base64.json')),
        { dimensions: 8 },
      );

      await expect(embedder.embed(['a', 'b'])).rejects.toMatchObject({
        name: 'ModelRequestError',
        failure: 'bad_response',
      });
    });

    it('refuses an answer with fewer vectors than inputs', async () => {
      const embedder = await embedderFor((_request, res) =>
        sendJson(res, 200, jsonFixture('embeddings-base64.json')),
      );

      await expect(embedder.embed(['a', 'b', 'c'])).rejects.toThrow('no embedding for input 2');
    });

    it('turns 429 into ModelUnavailableError with the Retry-After it named', async () => {
      const embedder = await embedderFor((_request, res) =>
        sendJson(res, 429, jsonFixture('error-429-rate-limit.json'), { 'retry-after': '20' }),
      );

      const error = await embedder.embed(['a']).catch((caught: unknown) => caught);

      expect(error).toBeInstanceOf(ModelUnavailableError);
      expect(error).toMatchObject({ retryAfterSeconds: 20 });
    });

    it('turns 500 into ModelUnavailableError', async () => {
      const embedder = await embedderFor((_request, res) =>
        sendJson(res, 500, jsonFixture('error-500-server.json')),
      );

      await expect(embedder.embed(['a'])).rejects.toBeInstanceOf(ModelUnavailableError);
    });

    it('turns 401 into ModelRequestError', async () => {
      const embedder = await embedderFor((_request, res) =>
        sendJson(res, 401, jsonFixture('error-401-invalid-api-key.json')),
      );

      const error = await embedder.embed(['a']).catch((caught: unknown) => caught);

      expect(error).toBeInstanceOf(ModelRequestError);
      expect(error).toMatchObject({ failure: 'authentication', providerStatus: 401 });
    });

    it('gives up on a server that never answers within the timeout', async () => {
      const embedder = await embedderFor(() => {
        // Never respond.
      });
      const started = Date.now();

      const error = await embedder.embed(['a']).catch((caught: unknown) => caught);

      expect(error).toBeInstanceOf(ModelUnavailableError);
      // The deadline that ended it is the configured one (a lower bound, which a busy machine cannot break).
      expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    });

    it('lets the SDK retry when asked to, honouring the provider’s short Retry-After-Ms', async () => {
      let calls = 0;
      const embedder = await embedderFor(
        (request, res) => {
          calls += 1;
          if (calls === 1) {
            sendJson(res, 500, jsonFixture('error-500-server.json'), { 'retry-after-ms': '10' });
          } else {
            sendJson(res, 200, numberedVectors(request));
          }
        },
        { maxRetries: 1 },
      );

      const vectors = await embedder.embed(['text 3']);

      expect(vectors).toHaveLength(1);
      expect(server?.requests).toHaveLength(2);
    });
  });
});
