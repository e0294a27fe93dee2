import { costUsd, priceOf } from '../../../layers/core/domain/model-pricing';

describe('Model pricing: Amazon Bedrock', () => {
  it('prices the default answer and embedding models', () => {
    expect(priceOf('amazon.nova-lite-v1:0')).toEqual({
      inputUsdPerMillion: 0.06,
      outputUsdPerMillion: 0.24,
    });
    expect(priceOf('amazon.titan-embed-text-v2:0')?.inputUsdPerMillion).toBe(0.02);
  });

  it('prices a cross-region inference profile as its foundation model', () => {
    for (const profile of ['us', 'eu', 'apac', 'global']) {
      expect(priceOf(`${profile}.anthropic.claude-3-5-haiku-20241022-v1:0`)).toEqual(
        priceOf('anthropic.claude-3-5-haiku-20241022-v1:0'),
      );
    }
  });

  it('costs a typical question: 2,500 tokens in, 300 out with Nova Lite', () => {
    expect(costUsd('us.amazon.nova-lite-v1:0', 2500, 300)).toEqual({ usd: 0.000222, priced: true });
  });

  it('leaves a model it does not know unpriced rather than free', () => {
    expect(costUsd('meta.llama3-70b-instruct-v1:0', 1000, 100)).toEqual({ usd: 0, priced: false });
  });
});
