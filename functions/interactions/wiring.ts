import { DynamoDbAnalyticsRollups } from '../../layers/core/adapters/dynamodb/analytics-rollups';
import { DynamoDbInteractionRepository } from '../../layers/core/adapters/dynamodb/interaction-repository';
import { cloudHttpPlatform } from '../../layers/core/wiring/cloud/cloud-http-platform';
import { cloudTable } from '../../layers/core/wiring/cloud/cloud-table';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/** Interactions and feedback: the table only (feedback updates the rollups). */
export const dependencies = compositionRoot(() => {
  const { client, tableName } = cloudTable();
  return {
    ...cloudHttpPlatform(),
    interactions: new DynamoDbInteractionRepository(client, tableName),
    rollups: new DynamoDbAnalyticsRollups(client, tableName),
  };
});

export type InteractionsDependencies = ReturnType<typeof dependencies>;
