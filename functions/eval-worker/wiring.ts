import { DynamoDbDailyUsage } from '../../layers/core/adapters/dynamodb/daily-usage';
import { DynamoDbEvaluationRepository } from '../../layers/core/adapters/dynamodb/evaluation-repository';
import { DynamoDbOrganizationRepository } from '../../layers/core/adapters/dynamodb/organization-repository';
import { parseCloudConfig } from '../../layers/core/config';
import { systemClock } from '../../layers/core/ports/clock.port';
import { cloudAnswering } from '../../layers/core/wiring/cloud/cloud-answering';
import { cloudEvaluationQueue } from '../../layers/core/wiring/cloud/cloud-queues';
import { cloudTable } from '../../layers/core/wiring/cloud/cloud-table';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/**
 * The eval worker: what answering needs (agents, the index, the models and
 * model keys, the interaction it records), tokens/day, plus
 * the runs, the organizations (their plan's daily caps) and its own queue
 * (to continue after a pause).
 */
export const dependencies = compositionRoot(() => {
  const { client, tableName, environment } = cloudTable();
  return {
    environment,
    clock: systemClock,
    ...cloudAnswering(),
    dailyUsage: new DynamoDbDailyUsage(client, tableName),
    organizations: new DynamoDbOrganizationRepository(client, tableName),
    evaluations: new DynamoDbEvaluationRepository(client, tableName),
    evaluationQueue: cloudEvaluationQueue(),
    // Links to uploaded files in the answers' sources: absolute when the stack names the console's origin.
    consoleOrigin: parseCloudConfig('console').SVC_CONSOLE_ORIGIN,
  };
});
