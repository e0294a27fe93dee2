import { DynamoDbAgentRepository } from '../../layers/core/adapters/dynamodb/agent-repository';
import { DynamoDbAnalyticsRollups } from '../../layers/core/adapters/dynamodb/analytics-rollups';
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
 * Query: agents, the index, the models, and the interaction it
 * records; and the organization's model keys, opened with the secrets
 * key (the Encryption SDK loads at the first key opened).
 */
export const dependencies = compositionRoot(() => {
  const { client, tableName } = cloudTable();
  const models = cloudModels();
  return {
    ...cloudHttpPlatform(),
    agents: new DynamoDbAgentRepository(client, tableName),
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

export type QueryDependencies = ReturnType<typeof dependencies>;
