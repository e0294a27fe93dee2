import { parseLocalConfig } from '../../../../lib/local/local-config';
import { localBedrockSettings, localOpenAiSettings } from '../../../../lib/local/local-retrieval';

/** Issue 32: SVC_MODEL_PROVIDER=bedrock on one machine. */
describe('Local model provider settings: Amazon Bedrock', () => {
  it('uses Bedrock with its default models, the region and endpoint given, and never OpenAI', () => {
    const config = parseLocalConfig({
      SVC_MODEL_PROVIDER: 'bedrock',
      OPENAI_API_KEY: 'sk-not-used',
      AWS_REGION: 'eu-west-1',
      AWS_ENDPOINT_URL_BEDROCK_RUNTIME: 'http://127.0.0.1:4010',
    });

    expect(localBedrockSettings(config)).toEqual({
      answerModel: 'amazon.nova-lite-v1:0',
      embeddingModel: 'amazon.titan-embed-text-v2:0',
      embeddingDimensions: undefined,
      region: 'eu-west-1',
      endpoint: 'http://127.0.0.1:4010',
    });
    expect(localOpenAiSettings(config)).toBeNull();
  });

  it('leaves region and credentials to the SDK’s default chain when unset', () => {
    const config = parseLocalConfig({
      SVC_MODEL_PROVIDER: 'bedrock',
      SVC_BEDROCK_ANSWER_MODEL: 'us.anthropic.claude-3-5-haiku-20241022-v1:0',
      SVC_BEDROCK_EMBEDDING_DIMENSIONS: '256',
    });

    expect(localBedrockSettings(config)).toMatchObject({
      answerModel: 'us.anthropic.claude-3-5-haiku-20241022-v1:0',
      embeddingDimensions: 256,
      region: undefined,
      endpoint: undefined,
    });
  });

  it('keeps OPENAI_API_KEY working as before when no provider is named', () => {
    const config = parseLocalConfig({ OPENAI_API_KEY: 'sk-test' });

    expect(localBedrockSettings(config)).toBeNull();
    expect(localOpenAiSettings(config)?.apiKey).toBe('sk-test');
  });

  it.each([
    [{ SVC_MODEL_PROVIDER: 'bedrock', SVC_BEDROCK_EMBEDDING_DIMENSIONS: '768' }, /vector length/],
    [{ SVC_MODEL_PROVIDER: 'bedrock', SVC_BEDROCK_EMBEDDING_MODEL: 'titan' }, /must be one of/],
    [{ SVC_MODEL_PROVIDER: 'sagemaker' }, /offline, openai or bedrock/],
    [{ SVC_MODEL_PROVIDER: 'openai' }, /needs OPENAI_API_KEY/],
    [{ SVC_BEDROCK_ANSWER_MODEL: 'Nova Lite' }, /Bedrock model id/],
  ])('refuses %j', (env, message) => {
    expect(() => parseLocalConfig(env)).toThrow(message);
  });
});
