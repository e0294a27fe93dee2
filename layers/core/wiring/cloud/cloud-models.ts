import { type ModelProviders, modelProviders } from '../model-providers';
import { cloudModelSettings } from './cloud-model-settings';

/** The deployment's embedder and answerers (cloud-model-settings.ts says which provider serves them). */
export function cloudModels(): ModelProviders {
  const { openAi, bedrock } = cloudModelSettings();
  return modelProviders(openAi, bedrock);
}
