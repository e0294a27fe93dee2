import { DynamoDbAgentRepository } from '../../layers/core/adapters/dynamodb/agent-repository';
import { DynamoDbDataSourceRepository } from '../../layers/core/adapters/dynamodb/data-source-repository';
import { DynamoDbModelKeyRepository } from '../../layers/core/adapters/dynamodb/model-key-repository';
import { cloudDeploymentModels } from '../../layers/core/wiring/cloud/cloud-deployment-models';
import { cloudHttpPlatform } from '../../layers/core/wiring/cloud/cloud-http-platform';
import { cloudTable } from '../../layers/core/wiring/cloud/cloud-table';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/**
 * Agents: the table only (model keys are only looked up, never opened),
 * and what the deployment answers with, told, never called.
 */
export const dependencies = compositionRoot(() => {
  const { client, tableName } = cloudTable();
  return {
    ...cloudHttpPlatform(),
    agents: new DynamoDbAgentRepository(client, tableName),
    dataSources: new DynamoDbDataSourceRepository(client, tableName),
    modelKeys: new DynamoDbModelKeyRepository(client, tableName),
    deploymentModels: cloudDeploymentModels(),
  };
});

export type AgentsDependencies = ReturnType<typeof dependencies>;
