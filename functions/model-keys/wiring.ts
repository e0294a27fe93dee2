import { DynamoDbAgentRepository } from '../../layers/core/adapters/dynamodb/agent-repository';
import { DynamoDbModelKeyRepository } from '../../layers/core/adapters/dynamodb/model-key-repository';
import { cloudHttpPlatform } from '../../layers/core/wiring/cloud/cloud-http-platform';
import { cloudModelKeyVerifier } from '../../layers/core/wiring/cloud/cloud-model-key-verifier';
import { cloudSecretSealer } from '../../layers/core/wiring/cloud/cloud-secret-sealer';
import { cloudTable } from '../../layers/core/wiring/cloud/cloud-table';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/**
 * Model keys: the table, the secrets key (sealing: the Encryption
 * SDK loads at the first seal) and plain HTTPS to check a key with its
 * provider (no provider SDK here).
 */
export const dependencies = compositionRoot(() => {
  const { client, tableName } = cloudTable();
  return {
    ...cloudHttpPlatform(),
    modelKeys: new DynamoDbModelKeyRepository(client, tableName),
    agents: new DynamoDbAgentRepository(client, tableName),
    secretSealer: cloudSecretSealer(),
    modelKeyVerifier: cloudModelKeyVerifier(),
  };
});

export type ModelKeysDependencies = ReturnType<typeof dependencies>;
