import { DynamoDbAgentRepository } from '../../layers/core/adapters/dynamodb/agent-repository';
import { DynamoDbConnectionStore } from '../../layers/core/adapters/dynamodb/connection-store';
import { DynamoDbDataSourceRepository } from '../../layers/core/adapters/dynamodb/data-source-repository';
import { DynamoDbUploadedFileRepository } from '../../layers/core/adapters/dynamodb/uploaded-file-repository';
import { cloudFileStorage } from '../../layers/core/wiring/cloud/cloud-file-storage';
import { cloudHttpPlatform } from '../../layers/core/wiring/cloud/cloud-http-platform';
import { cloudSyncQueue } from '../../layers/core/wiring/cloud/cloud-queues';
import { cloudTable } from '../../layers/core/wiring/cloud/cloud-table';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/**
 * Data sources: the table, the sync queue (syncs, and the purge of deleted
 * chunks: P45, so no index client here) and the file bucket (D25 presigned
 * uploads).
 */
export const dependencies = compositionRoot(() => {
  const { client, tableName } = cloudTable();
  return {
    ...cloudHttpPlatform(),
    dataSources: new DynamoDbDataSourceRepository(client, tableName),
    agents: new DynamoDbAgentRepository(client, tableName),
    files: new DynamoDbUploadedFileRepository(client, tableName),
    syncQueue: cloudSyncQueue(),
    fileStorage: cloudFileStorage(),
    // Reads a deleted connector's sealed grant (never opens it) for the sync worker to revoke.
    connections: new DynamoDbConnectionStore(client, tableName),
  };
});

export type DataSourcesDependencies = ReturnType<typeof dependencies>;
