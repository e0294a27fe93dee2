import { DynamoDbDeliveryRepository } from '../../layers/core/adapters/dynamodb/delivery-repository';
import { DynamoDbGroupGrants } from '../../layers/core/adapters/dynamodb/group-grants';
import { DynamoDbUserRepository } from '../../layers/core/adapters/dynamodb/user-repository';
import { DynamoDbWebhookRepository } from '../../layers/core/adapters/dynamodb/webhook-repository';
import { systemClock } from '../../layers/core/ports/clock.port';
import { cloudDeliveryVisibility } from '../../layers/core/wiring/cloud/cloud-queues';
import { cloudSecretSealer } from '../../layers/core/wiring/cloud/cloud-secret-sealer';
import { cloudTable } from '../../layers/core/wiring/cloud/cloud-table';
import { cloudWebhookTransport } from '../../layers/core/wiring/cloud/cloud-webhooks';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/** The dispatcher: webhooks and deliveries, their owners' access, the secrets key (opening only), HTTPS out, the queue's visibility. */
export const dependencies = compositionRoot(() => {
  const { client, tableName } = cloudTable();
  return {
    clock: systemClock,
    webhooks: new DynamoDbWebhookRepository(client, tableName),
    // The owners' access: users and their groups' grants, read as a session check reads them.
    users: new DynamoDbUserRepository(client, tableName),
    groupGrants: new DynamoDbGroupGrants(client, tableName),
    deliveries: new DynamoDbDeliveryRepository(client, tableName),
    secretSealer: cloudSecretSealer(),
    deliveryVisibility: cloudDeliveryVisibility(),
    ...cloudWebhookTransport(),
  };
});
