import {
  type DeploymentModels,
  type ModelChoice,
  modelKeyChoice,
  serviceChoice,
} from '../../domain/deployment-models';
import type { ModelKeyRepository } from '../../ports/model-key.port';

export interface AvailableModelsDependencies {
  readonly modelKeys: Pick<ModelKeyRepository, 'list'>;
  readonly deploymentModels: DeploymentModels;
}

/**
 * What an agent of this organization can answer with: the service's own
 * provider first, then each of the organization's model keys as their list orders them.
 * Every caller who may read agents sees the keys' names and providers (never
 * the key or its last characters): choosing a model for an agent that
 * names a key needs its provider.
 */
export async function availableModels(
  deps: AvailableModelsDependencies,
  orgId: string,
): Promise<ModelChoice[]> {
  // An organization has a handful of keys, and the repository reads them whole anyway.
  const keys = await deps.modelKeys.list(orgId, { limit: Number.MAX_SAFE_INTEGER, offset: 0 });
  return [serviceChoice(deps.deploymentModels), ...keys.items.map(modelKeyChoice)];
}
