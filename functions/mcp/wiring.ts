import { DynamoDbAgentRepository } from '../../layers/core/adapters/dynamodb/agent-repository';
import { DynamoDbAnalyticsRollups } from '../../layers/core/adapters/dynamodb/analytics-rollups';
import { DynamoDbDataSourceRepository } from '../../layers/core/adapters/dynamodb/data-source-repository';
import {
  DynamoDbInteractionRepository,
  DynamoDbSessionHistory,
} from '../../layers/core/adapters/dynamodb/interaction-repository';
import { DynamoDbModelKeyRepository } from '../../layers/core/adapters/dynamodb/model-key-repository';
import { cloudHttpPlatform } from '../../layers/core/wiring/cloud/cloud-http-platform';
import { cloudModelKeyAnswerers } from '../../layers/core/wiring/cloud/cloud-model-keys';
import { cloudModels } from '../../layers/core/wiring/cloud/cloud-models';
import { cloudRetrievalIndex } from '../../layers/core/wiring/cloud/cloud-retrieval';
import { cloudSecretSealer } from '../../layers/core/wiring/cloud/cloud-secret-sealer';
import { cloudTable } from '../../layers/core/wiring/cloud/cloud-table';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/**
 * The MCP server: what its tools use, which is what the query and semantic
 * search families use (agents, the index, the models, the organization's
 * model keys, the interactions an answer records) and the data sources a
 * search may cover.
 */
export const dependencies = compositionRoot(() => {
  const { client, tableName } = cloudTable();
  const models = cloudModels();
  return {
    ...cloudHttpPlatform(),
    agents: new DynamoDbAgentRepository(client, tableName),
    dataSources: new DynamoDbDataSourceRepository(client, tableName),
    retrieval: cloudRetrievalIndex(),
    embedder: models.embedder,
    answererFor: models.answererFor,
    modelKeys: new DynamoDbModelKeyRepository(client, tableName),
    secretSealer: cloudSecretSealer(),
    answererForModelKey: cloudModelKeyAnswerers(),
    interactions: new DynamoDbInteractionRepository(client, tableName),
    sessions: new DynamoDbSessionHistory(client, tableName),
    rollups: new DynamoDbAnalyticsRollups(client, tableName),
  };
});

export type McpDependencies = ReturnType<typeof dependencies>;
