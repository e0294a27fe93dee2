import { BedrockEmbedder } from '../../../layers/core/adapters/ai/bedrock-embedder';
import { ModelUnavailableError } from '../../../layers/core/ports/answerer.port';
import { ModelRequestError } from '../../../layers/core/ports/model-request-error';
import {
  type BedrockRuntimeStandIn,
  startBedrockRuntimeStandIn,
} from '../../support/bedrock-runtime-stand-in';

const norm = (vector: readonly number[]) => Math.sqrt(vector.reduce((sum, v) => sum + v * v, 0));

/** The Bedrock embedder against the loopback stand-in, through InvokeModel. */
describe('BedrockEmbedder', () => {
  let standIn: BedrockRuntimeStandIn;
  const saved = { ...process.env };
  const embedderFor = (options: ConstructorParameters<typeof BedrockEmbedder>[0] = {}) =>
    new BedrockEmbedder({ region: 'eu-west-1', endpoint: standIn.url, maxAttempts: 1, ...options });

  beforeAll(async () => {
    process.env.AWS_ACCESS_KEY_ID = 'AKIDSTANDIN';
    process.env.AWS_SECRET_ACCESS_KEY = 'stand-in-secret';
    standIn = await startBedrockRuntimeStandIn();
  });
  afterAll(async () => {
    process.env = saved;
    await standIn.close();
  });
  beforeEach(() => {
    standIn.behaviour = 'normal';
    standIn.calls.length = 0;
  });

  it('embeds with Titan Text Embeddings V2 at 1024 dimensions by default, one text per request', async () => {
    const embedder = embedderFor();

    const vectors = await embedder.embed(['refund policy', 'shipping times', 'refund window']);

    expect(embedder.id).toBe('bedrock/amazon.titan-embed-text-v2:0/1024');
    expect(vectors.map((vector) => vector.length)).toEqual([1024, 1024, 1024]);
    for (const vector of vectors) expect(norm(vector)).toBeCloseTo(1, 6);
    // Requests go out concurrently: they arrive in any order.
    const byText = (a: any[], b: any[]) => String(a[2].inputText).localeCompare(b[2].inputText);
    expect(
      standIn.calls.map((call) => [call.operation, call.modelId, call.body]).sort(byText),
    ).toEqual(
      ['refund policy', 'refund window', 'shipping times'].map((inputText) => [
        'invoke',
        'amazon.titan-embed-text-v2:0',
        { inputText, dimensions: 1024, normalize: true },
      ]),
    );
  });

  it('asks Titan V2 for the configured dimension, and keeps the texts in order', async () => {
    const embedder = embedderFor({ dimensions: 256, concurrency: 3 });
    const texts = Array.from({ length: 10 }, (_, index) => `text number ${index}`);

    const vectors = await embedder.embed(texts);
    const again = await Promise.all(texts.map(async (text) => (await embedder.embed([text]))[0]));

    expect(embedder.id).toBe('bedrock/amazon.titan-embed-text-v2:0/256');
    expect(vectors).toEqual(again);
    expect(new Set(standIn.calls.map((call) => call.body.dimensions))).toEqual(new Set([256]));
  });

  it('batches Cohere Embed by 96 texts per request', async () => {
    const embedder = embedderFor({ model: 'cohere.embed-english-v3' });
    const texts = Array.from({ length: 200 }, (_, index) => `passage ${index}`);

    const vectors = await embedder.embed(texts);

    expect(vectors).toHaveLength(200);
    expect(standIn.calls.map((call) => call.body.texts.length).sort()).toEqual([8, 96, 96]);
    expect(standIn.calls[0]?.body.input_type).toBe('search_document');
  });

  it('tells Cohere a question is a query, and does not retry a throttled question', async () => {
    const embedder = embedderFor({ model: 'cohere.embed-english-v3', maxAttempts: 3 });
    standIn.behaviour = 'throttle';

    const error = await embedder
      .embed(['How long do returns take?'], { purpose: 'query' })
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect(standIn.calls).toHaveLength(1);
    expect(standIn.calls[0]?.body.input_type).toBe('search_query');
  });

  it('refuses a dimension the model does not make before calling it', () => {
    expect(() => embedderFor({ dimensions: 768 })).toThrow(/1024, 512, 256/);
    expect(() => embedderFor({ model: 'cohere.embed-english-v3', dimensions: 512 })).toThrow(
      RangeError,
    );
  });

  it('fails a model without access as unavailable (503), naming the model', async () => {
    standIn.behaviour = 'access-denied';

    const error = await embedderFor()
      .embed(['a'])
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect((error as Error).message).toMatch(/amazon\.titan-embed-text-v2:0 in eu-west-1/);
  });

  it('refuses vectors of another length than configured rather than index them', async () => {
    // The stand-in answers Titan with the asked length; Titan G1 is asked for none and answers 1024.
    const embedder = embedderFor({ model: 'amazon.titan-embed-text-v1' });

    const error = await embedder.embed(['a']).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ModelRequestError);
    expect((error as ModelRequestError).failure).toBe('bad_response');
  });
});
