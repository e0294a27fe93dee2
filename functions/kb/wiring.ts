import { DynamoDbDataSourceRepository } from '../../layers/core/adapters/dynamodb/data-source-repository';
import { DynamoDbKbArticleRepository } from '../../layers/core/adapters/dynamodb/kb-article-repository';
import { cloudHttpPlatform } from '../../layers/core/wiring/cloud/cloud-http-platform';
import { cloudSyncQueue } from '../../layers/core/wiring/cloud/cloud-queues';
import { cloudTable } from '../../layers/core/wiring/cloud/cloud-table';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/**
 * Knowledge-base articles: the table (articles, their versions, the
 * built-in `kb` data source) and the sync queue, which takes published
 * changes to the sync worker: no parser, chunker, embedder or index
 * client here.
 */
export const dependencies = compositionRoot(() => {
  const { client, tableName } = cloudTable();
  return {
    ...cloudHttpPlatform(),
    kbArticles: new DynamoDbKbArticleRepository(client, tableName),
    dataSources: new DynamoDbDataSourceRepository(client, tableName),
    syncQueue: cloudSyncQueue(),
  };
});

export type KbDependencies = ReturnType<typeof dependencies>;
