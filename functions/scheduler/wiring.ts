import { DynamoDbDataSourceRepository } from '../../layers/core/adapters/dynamodb/data-source-repository';
import { systemClock } from '../../layers/core/ports/clock.port';
import { cloudSyncQueue } from '../../layers/core/wiring/cloud/cloud-queues';
import { cloudTable } from '../../layers/core/wiring/cloud/cloud-table';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/** D23's scheduler: the schedule index in the table, the sync queue. */
export const dependencies = compositionRoot(() => {
  const { client, tableName } = cloudTable();
  return {
    clock: systemClock,
    dataSources: new DynamoDbDataSourceRepository(client, tableName),
    syncQueue: cloudSyncQueue(),
  };
});
