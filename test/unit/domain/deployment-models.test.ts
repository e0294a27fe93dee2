import {
  deploymentModelMisfit,
  modelKeyChoice,
  serviceChoice,
} from '../../../layers/core/domain/deployment-models';

describe('deploymentModelMisfit', () => {
  it('accepts the offline model everywhere', () => {
    for (const provider of ['offline', 'openai', 'openai_compatible'] as const) {
      expect(deploymentModelMisfit({ provider }, 'offline-extractive')).toBeNull();
    }
  });

  it('refuses any other model on an offline deployment, saying what to choose', () => {
    expect(deploymentModelMisfit({ provider: 'offline' }, 'gpt-4o-mnii')).toMatch(
      /no model provider.*choose offline-extractive/,
    );
  });

  it('accepts only the deployment’s own model under Bedrock', () => {
    const bedrock = { provider: 'bedrock', answerModel: 'amazon.nova-lite-v1:0' } as const;

    expect(deploymentModelMisfit(bedrock, 'amazon.nova-lite-v1:0')).toBeNull();
    expect(deploymentModelMisfit(bedrock, 'gpt-4o')).toMatch(/amazon\.nova-lite-v1:0 only/);
  });

  it('leaves OpenAI’s names to OpenAI', () => {
    expect(deploymentModelMisfit({ provider: 'openai' }, 'gpt-9')).toBeNull();
  });
});

describe('model choices', () => {
  it('lists the offline model first for the service, then its provider’s', () => {
    expect(serviceChoice({ provider: 'bedrock', answerModel: 'amazon.nova-pro-v1:0' })).toEqual({
      model_key_id: null,
      label: 'This service (Amazon Bedrock)',
      provider: 'bedrock',
      models: ['offline-extractive', 'amazon.nova-pro-v1:0'],
      other_models: false,
    });
    expect(serviceChoice({ provider: 'openai' }).models).toEqual(
      expect.arrayContaining(['offline-extractive', 'gpt-4o-mini']),
    );
    expect(serviceChoice({ provider: 'openai' }).models).not.toContain('gpt-4o-2024-05-13');
  });

  it('offers a key’s provider models and never the offline one', () => {
    const key = {
      id: 'mk_1',
      name: null,
      provider: 'anthropic',
      endpoint: null,
      last4: 'abcd',
      created_at: '2026-01-01T00:00:00.000Z',
    } as const;

    const choice = modelKeyChoice(key);

    expect(choice).toMatchObject({ model_key_id: 'mk_1', label: 'mk_1', other_models: true });
    expect(choice.models.every((model) => model.startsWith('claude-'))).toBe(true);
  });
});
