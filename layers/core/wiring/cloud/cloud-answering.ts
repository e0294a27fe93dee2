import { DynamoDbAgentRepository } from '../../adapters/dynamodb/agent-repository';
import { DynamoDbAnalyticsRollups } from '../../adapters/dynamodb/analytics-rollups';
import {
  DynamoDbInteractionRepository,
  DynamoDbSessionHistory,
} from '../../adapters/dynamodb/interaction-repository';
import { DynamoDbModelKeyRepository } from '../../adapters/dynamodb/model-key-repository';
import { cloudModelKeyAnswerers } from './cloud-model-keys';
import { cloudModels } from './cloud-models';
import { cloudRetrievalIndex } from './cloud-retrieval';
import { cloudSecretSealer } from './cloud-secret-sealer';
import { cloudTable } from './cloud-table';

/**
 * What answering an agent's question needs in the cloud, for every function
 * that answers (query, the MCP server, OpenAI-compatible chat, the eval
 * worker): the agents,
 * the index, the models, the organization's model keys opened with the
 * secrets key (the Encryption SDK loads at the first key opened), and the
 * interactions, session history and rollups an answer records.
 */
export function cloudAnswering() {
  const { client, tableName } = cloudTable();
  const models = cloudModels();
  return {
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
}
