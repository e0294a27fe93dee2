import { BEDROCK_DEFAULTS } from '../../adapters/ai/bedrock-models';
import { parseCloudConfig } from '../../config';
import type { DeploymentModels } from '../../domain/deployment-models';

/**
 * What the deployment answers with, as the stack tells a function that
 * calls no model (`SVC_DEPLOYMENT_MODEL_PROVIDER`, and for Bedrock
 * `SVC_DEPLOYMENT_ANSWER_MODEL`): the agents family checks and lists models
 * with it, without the provider's secret or any model access.
 */
export function cloudDeploymentModels(env: NodeJS.ProcessEnv = process.env): DeploymentModels {
  const config = parseCloudConfig('deploymentModels', env);
  if (config.SVC_DEPLOYMENT_MODEL_PROVIDER === 'bedrock') {
    return {
      provider: 'bedrock',
      answerModel: config.SVC_DEPLOYMENT_ANSWER_MODEL ?? BEDROCK_DEFAULTS.answerModel,
    };
  }
  return { provider: config.SVC_DEPLOYMENT_MODEL_PROVIDER };
}
