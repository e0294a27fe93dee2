import { DynamoDbDataSourceRepository } from '../../layers/core/adapters/dynamodb/data-source-repository';
import { parseCloudConfig } from '../../layers/core/config';
import { cloudConnections } from '../../layers/core/wiring/cloud/cloud-connectors';
import { cloudHttpPlatform } from '../../layers/core/wiring/cloud/cloud-http-platform';
import { cloudTable } from '../../layers/core/wiring/cloud/cloud-table';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/**
 * Connector sign-in (issue 12): the table (data sources, their pending
 * sign-ins and sealed grants), the secrets key (tokens sealed under their
 * own purpose), the providers' apps (Secrets Manager), and outbound
 * HTTPS to the providers' OAuth endpoints. No connector readers.
 */
export const dependencies = compositionRoot(() => {
  const { client, tableName } = cloudTable();
  const config = parseCloudConfig('connectors');
  return {
    ...cloudHttpPlatform(),
    ...cloudConnections(),
    dataSources: new DynamoDbDataSourceRepository(client, tableName),
    publicBaseUrl: () => config.SVC_PUBLIC_URL,
  };
});

export type ConnectionsDependencies = ReturnType<typeof dependencies>;
