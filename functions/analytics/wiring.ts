import { DynamoDbAnalyticsRollups } from '../../layers/core/adapters/dynamodb/analytics-rollups';
import { cloudHttpPlatform } from '../../layers/core/wiring/cloud/cloud-http-platform';
import { cloudTable } from '../../layers/core/wiring/cloud/cloud-table';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/** Analytics: the rollups in the table (never a scan of interactions). */
export const dependencies = compositionRoot(() => {
  const { client, tableName } = cloudTable();
  return { ...cloudHttpPlatform(), rollups: new DynamoDbAnalyticsRollups(client, tableName) };
});

export type AnalyticsDependencies = ReturnType<typeof dependencies>;
