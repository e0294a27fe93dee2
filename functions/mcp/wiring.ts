import { DynamoDbDataSourceRepository } from '../../layers/core/adapters/dynamodb/data-source-repository';
import { cloudAnswering } from '../../layers/core/wiring/cloud/cloud-answering';
import { cloudHttpPlatform } from '../../layers/core/wiring/cloud/cloud-http-platform';
import { cloudTable } from '../../layers/core/wiring/cloud/cloud-table';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/**
 * The MCP server: what its tools use, which is what answering needs and the
 * data sources a search may cover.
 */
export const dependencies = compositionRoot(() => {
  const { client, tableName } = cloudTable();
  return {
    ...cloudHttpPlatform(),
    ...cloudAnswering(),
    dataSources: new DynamoDbDataSourceRepository(client, tableName),
  };
});

export type McpDependencies = ReturnType<typeof dependencies>;
