import { DynamoDbSsoRepository } from '../../layers/core/adapters/dynamodb/sso-repository';
import { cloudHttpPlatform } from '../../layers/core/wiring/cloud/cloud-http-platform';
import { cloudTable } from '../../layers/core/wiring/cloud/cloud-table';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/**
 * Sign-in (D12): the table (users, revoked sessions, the sign-in throttle,
 * D14's `enforce_sso` settings) and the session secret. No SSO library:
 * the SSO sign-in itself is the `sso` function's.
 */
export const dependencies = compositionRoot(() => {
  const { client, tableName } = cloudTable();
  return {
    ...cloudHttpPlatform(),
    ssoRepository: new DynamoDbSsoRepository(client, tableName),
  };
});

export type AuthDependencies = ReturnType<typeof dependencies>;
