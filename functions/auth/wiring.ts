import { DynamoDbPasswordResetRepository } from '../../layers/core/adapters/dynamodb/password-reset-repository';
import { DynamoDbSsoRepository } from '../../layers/core/adapters/dynamodb/sso-repository';
import { cloudHttpPlatform } from '../../layers/core/wiring/cloud/cloud-http-platform';
import { cloudMailer } from '../../layers/core/wiring/cloud/cloud-mail';
import { cloudTable } from '../../layers/core/wiring/cloud/cloud-table';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/**
 * Sign-in: the table (users, revoked sessions, the sign-in throttle,
 * SSO's `enforce_sso` settings, password resets) and the session secret;
 * the mailer for password resets. No SSO library: the SSO sign-in
 * itself is the `sso` function's.
 */
export const dependencies = compositionRoot(() => {
  const { client, tableName } = cloudTable();
  return {
    ...cloudHttpPlatform(),
    ssoRepository: new DynamoDbSsoRepository(client, tableName),
    passwordResets: new DynamoDbPasswordResetRepository(client, tableName),
    ...cloudMailer(),
    // API Gateway's request context names the address the console is reached at (reset links).
    publicBaseUrl: () => undefined,
  };
});

export type AuthDependencies = ReturnType<typeof dependencies>;
