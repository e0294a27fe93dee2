import { DynamoDbAgentRepository } from '../../layers/core/adapters/dynamodb/agent-repository';
import { DynamoDbEvaluationRepository } from '../../layers/core/adapters/dynamodb/evaluation-repository';
import { DynamoDbInteractionRepository } from '../../layers/core/adapters/dynamodb/interaction-repository';
import { cloudHttpPlatform } from '../../layers/core/wiring/cloud/cloud-http-platform';
import { cloudEvaluationQueue } from '../../layers/core/wiring/cloud/cloud-queues';
import { cloudTable } from '../../layers/core/wiring/cloud/cloud-table';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/**
 * Evaluations: the table (runs, agents, the rated interactions a set is
 * built from) and the queue the eval worker reads. No index, no model:
 * the questions are asked by the worker.
 */
export const dependencies = compositionRoot(() => {
  const { client, tableName } = cloudTable();
  return {
    ...cloudHttpPlatform(),
    agents: new DynamoDbAgentRepository(client, tableName),
    interactions: new DynamoDbInteractionRepository(client, tableName),
    evaluations: new DynamoDbEvaluationRepository(client, tableName),
    evaluationQueue: cloudEvaluationQueue(),
  };
});

export type EvalsDependencies = ReturnType<typeof dependencies>;
