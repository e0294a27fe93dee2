import { cloudDeploymentModels } from '../../../../layers/core/wiring/cloud/cloud-deployment-models';
import { deploymentModelsOf } from '../../../../layers/core/wiring/model-providers';

describe('cloudDeploymentModels', () => {
  it('is offline when the stack says nothing', () => {
    expect(cloudDeploymentModels({})).toEqual({ provider: 'offline' });
  });

  it('reads the provider and Bedrock’s answer model, Bedrock’s default when unset', () => {
    expect(
      cloudDeploymentModels({
        SVC_DEPLOYMENT_MODEL_PROVIDER: 'bedrock',
        SVC_DEPLOYMENT_ANSWER_MODEL: 'us.amazon.nova-pro-v1:0',
      }),
    ).toEqual({ provider: 'bedrock', answerModel: 'us.amazon.nova-pro-v1:0' });
    expect(cloudDeploymentModels({ SVC_DEPLOYMENT_MODEL_PROVIDER: 'bedrock' })).toEqual({
      provider: 'bedrock',
      answerModel: 'amazon.nova-lite-v1:0',
    });
    expect(cloudDeploymentModels({ SVC_DEPLOYMENT_MODEL_PROVIDER: 'openai_compatible' })).toEqual({
      provider: 'openai_compatible',
    });
  });

  it('fails the cold start naming a provider it does not know', () => {
    expect(() => cloudDeploymentModels({ SVC_DEPLOYMENT_MODEL_PROVIDER: 'gemini' })).toThrow(
      /deploymentModels.*SVC_DEPLOYMENT_MODEL_PROVIDER/,
    );
  });
});

describe('deploymentModelsOf', () => {
  it('picks as the answerers do: Bedrock first, then OpenAI or a compatible server, else offline', () => {
    const bedrock = { answerModel: 'amazon.nova-lite-v1:0' };

    expect(deploymentModelsOf({ baseURL: undefined }, bedrock)).toEqual({
      provider: 'bedrock',
      answerModel: 'amazon.nova-lite-v1:0',
    });
    expect(deploymentModelsOf({ baseURL: undefined }, null)).toEqual({ provider: 'openai' });
    expect(deploymentModelsOf({ baseURL: 'http://127.0.0.1:8000/v1' }, null)).toEqual({
      provider: 'openai_compatible',
    });
    expect(deploymentModelsOf(null, null)).toEqual({ provider: 'offline' });
  });
});
