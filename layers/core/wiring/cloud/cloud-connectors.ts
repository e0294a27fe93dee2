import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { connectorOAuthClients } from '../../adapters/connectors/oauth-clients';
import { JoseOAuthStateSigner } from '../../adapters/crypto/jose-oauth-state';
import { DynamoDbConnectionStore } from '../../adapters/dynamodb/connection-store';
import { webhookPolicy } from '../../adapters/net/outbound-policy';
import { parseCloudConfig } from '../../config';
import type { ConnectorType } from '../../domain/connector';
import { ServiceUnavailableError } from '../../domain/errors';
import { traceAwsClient } from '../../observability/tracing';
import { systemClock } from '../../ports/clock.port';
import type { ConnectorApps, OAuthApp } from '../../ports/connector.port';
import type { Dependencies } from '../../ports/dependencies.port';
import { cloudSecretSealer } from './cloud-secret-sealer';
import { cloudSessionSigningKey } from './cloud-sessions';
import { cloudTable } from './cloud-table';

const SECRET_RETRY_AFTER_SECONDS = 5;

/**
 * P150 in the cloud: the providers' apps from one Secrets Manager secret
 * (JSON by connector type), read through Powertools Parameters when a
 * connection first needs it, never at init, and cached for
 * `CONNECTOR_APPS_MAX_AGE_SECONDS`.
 */
export function cloudConnectorApps(): ConnectorApps {
  const config = parseCloudConfig('connectors');
  const secrets = new SecretsProvider({
    awsSdkV3Client: traceAwsClient(new SecretsManagerClient({})),
  });
  return {
    async appFor(type: ConnectorType): Promise<OAuthApp | null> {
      if (!config.CONNECTOR_APPS_SECRET_ARN) return null;
      let value: unknown;
      try {
        value = await secrets.get(config.CONNECTOR_APPS_SECRET_ARN, {
          maxAge: config.CONNECTOR_APPS_MAX_AGE_SECONDS,
          transform: 'json',
        });
      } catch (error) {
        throw new ServiceUnavailableError(
          'Connector apps cannot be read for now',
          SECRET_RETRY_AFTER_SECONDS,
          { cause: error },
        );
      }
      const app = (value as Record<string, { client_id?: unknown; client_secret?: unknown }>)?.[
        type
      ];
      return typeof app?.client_id === 'string' && typeof app.client_secret === 'string'
        ? { clientId: app.client_id, clientSecret: app.client_secret }
        : null;
    },
  };
}

/**
 * Issue 12 in the cloud: the connection store (data source items), the
 * providers' apps, OAuth clients under the SSRF guard (https, public addresses only),
 * the state signer (derived from the session secret), the sealer.
 */
export function cloudConnections(): Pick<
  Dependencies,
  'connections' | 'connectorApps' | 'oauthClients' | 'oauthState' | 'secretSealer'
> {
  const { client, tableName } = cloudTable();
  return {
    connections: new DynamoDbConnectionStore(client, tableName),
    connectorApps: cloudConnectorApps(),
    oauthClients: connectorOAuthClients({
      policy: webhookPolicy({ allowPrivateAddresses: false }),
      clock: systemClock,
    }).oauth,
    oauthState: new JoseOAuthStateSigner(cloudSessionSigningKey()),
    secretSealer: cloudSecretSealer(),
  };
}
