import { DynamoDbAgentRepository } from '../../layers/core/adapters/dynamodb/agent-repository';
import { DynamoDbAnalyticsRollups } from '../../layers/core/adapters/dynamodb/analytics-rollups';
import { DynamoDbDailyUsage } from '../../layers/core/adapters/dynamodb/daily-usage';
import { DynamoDbEvaluationRepository } from '../../layers/core/adapters/dynamodb/evaluation-repository';
import {
  DynamoDbInteractionRepository,
  DynamoDbSessionHistory,
} from '../../layers/core/adapters/dynamodb/interaction-repository';
import { DynamoDbModelKeyRepository } from '../../layers/core/adapters/dynamodb/model-key-repository';
import { DynamoDbOrganizationRepository } from '../../layers/core/adapters/dynamodb/organization-repository';
import { parseCloudConfig } from '../../layers/core/config';
import { systemClock } from '../../layers/core/ports/clock.port';
import { cloudModelKeyAnswerers } from '../../layers/core/wiring/cloud/cloud-model-keys';
import { cloudModels } from '../../layers/core/wiring/cloud/cloud-models';
import { cloudEvaluationQueue } from '../../layers/core/wiring/cloud/cloud-queues';
import { cloudRetrievalIndex } from '../../layers/core/wiring/cloud/cloud-retrieval';
import { cloudSecretSealer } from '../../layers/core/wiring/cloud/cloud-secret-sealer';
import { cloudTable } from '../../layers/core/wiring/cloud/cloud-table';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/**
 * The eval worker: what the query function composes (agents, the index,
 * the models and model keys, the interaction it records, tokens/day), plus
 * the runs, the organizations (their plan's daily caps) and its own queue
 * (to continue after a pause).
 */
export const dependencies = compositionRoot(() => {
  const { client, tableName, environment } = cloudTable();
  const models = cloudModels();
  return {
    environment,
    clock: systemClock,
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
    dailyUsage: new DynamoDbDailyUsage(client, tableName),
    organizations: new DynamoDbOrganizationRepository(client, tableName),
    evaluations: new DynamoDbEvaluationRepository(client, tableName),
    evaluationQueue: cloudEvaluationQueue(),
    // Links to uploaded files in the answers' sources: absolute when the stack names the console's origin.
    consoleOrigin: parseCloudConfig('console').SVC_CONSOLE_ORIGIN,
  };
});
