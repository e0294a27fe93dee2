import { cloudModels } from '../../../../layers/core/wiring/cloud/cloud-models';

/** Issue 32: what `MODEL_PROVIDER=bedrock` builds in a cloud function, from its environment alone. */
describe('cloudModels with MODEL_PROVIDER=bedrock', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });
  const withEnvironment = (variables: Record<string, string>) => {
    process.env = { ...saved, MODEL_PROVIDER: 'bedrock', ...variables };
  };

  it('embeds with Titan Text Embeddings V2 at 1024 dimensions and answers with Bedrock by default', async () => {
    withEnvironment({});

    const models = cloudModels();

    expect(models.embedder.id).toBe('bedrock/amazon.titan-embed-text-v2:0/1024');
    expect(models.answererFor('amazon.nova-lite-v1:0').constructor.name).toBe('BedrockAnswerer');
    // The offline answerer still answers offline agents, without a call to Bedrock.
    const events = [];
    for await (const event of models.answererFor('offline-extractive').answer({
      model: 'offline-extractive',
      systemPrompt: null,
      question: 'How long do refunds take?',
      history: [],
      sources: [
        {
          number: 1,
          chunk_id: 'c1',
          document_title: 'Refunds',
          document_url: null,
          text: 'Refunds are paid back within 14 days of the return.',
          score: 1,
        },
      ],
      temperature: 0,
      maxTokens: 200,
    })) {
      events.push(event);
    }
    expect(events.at(-1)).toMatchObject({ type: 'done', result: { model: 'offline-extractive' } });
  });

  it('takes the models and the dimension the stack names', () => {
    withEnvironment({
      BEDROCK_EMBEDDING_MODEL: 'cohere.embed-multilingual-v3',
      BEDROCK_ANSWER_MODEL: 'eu.amazon.nova-pro-v1:0',
    });

    expect(cloudModels().embedder.id).toBe('bedrock/cohere.embed-multilingual-v3/1024');
  });

  it('fails the cold start on an embedding model or length it cannot use, naming it', () => {
    withEnvironment({ BEDROCK_EMBEDDING_MODEL: 'amazon.titan-embed-image-v1' });
    expect(() => cloudModels()).toThrow(/BEDROCK_EMBEDDING_MODEL: must be one of/);

    withEnvironment({ BEDROCK_EMBEDDING_DIMENSIONS: '768' });
    expect(() => cloudModels()).toThrow(/1024, 512, 256 dimensions, not 768/);
  });
});
