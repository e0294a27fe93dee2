import { DynamoDbDataSourceRepository } from '../../layers/core/adapters/dynamodb/data-source-repository';
import { DynamoDbSsoRepository } from '../../layers/core/adapters/dynamodb/sso-repository';
import { DnsTxtResolver } from '../../layers/core/adapters/net/dns-txt-resolver';
import { parseCloudConfig } from '../../layers/core/config';
import { systemClock } from '../../layers/core/ports/clock.port';
import { cloudSyncQueue } from '../../layers/core/wiring/cloud/cloud-queues';
import { cloudTable } from '../../layers/core/wiring/cloud/cloud-table';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/**
 * D23's scheduler: the schedule index in the table, the sync queue; and
 * The daily re-check of verified SSO domains (the claims in the same
 * index, DNS TXT look-ups as the sso function makes them).
 */
export const dependencies = compositionRoot(() => {
  const { client, tableName } = cloudTable();
  return {
    clock: systemClock,
    dataSources: new DynamoDbDataSourceRepository(client, tableName),
    syncQueue: cloudSyncQueue(),
    ssoRepository: new DynamoDbSsoRepository(client, tableName),
    txtResolver: new DnsTxtResolver({ servers: parseCloudConfig('sso').SVC_DNS_SERVERS }),
  };
});
