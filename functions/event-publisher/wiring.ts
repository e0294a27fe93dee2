import { DynamoDbDeliveryRepository } from '../../layers/core/adapters/dynamodb/delivery-repository';
import { DynamoDbGroupGrants } from '../../layers/core/adapters/dynamodb/group-grants';
import { DynamoDbOutbox } from '../../layers/core/adapters/dynamodb/outbox';
import { DynamoDbUserRepository } from '../../layers/core/adapters/dynamodb/user-repository';
import { DynamoDbWebhookRepository } from '../../layers/core/adapters/dynamodb/webhook-repository';
import { systemClock } from '../../layers/core/ports/clock.port';
import { cloudDeliveryQueue } from '../../layers/core/wiring/cloud/cloud-queues';
import { cloudTable } from '../../layers/core/wiring/cloud/cloud-table';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/** The event publisher: the outbox, webhooks and deliveries in the table, their owners' access, the deliveries queue. */
export const dependencies = compositionRoot(() => {
  const { client, tableName } = cloudTable();
  return {
    clock: systemClock,
    outbox: new DynamoDbOutbox(client, tableName),
    webhooks: new DynamoDbWebhookRepository(client, tableName),
    // The owners' access: users and their groups' grants, read as a session check reads them.
    users: new DynamoDbUserRepository(client, tableName),
    groupGrants: new DynamoDbGroupGrants(client, tableName),
    deliveries: new DynamoDbDeliveryRepository(client, tableName),
    deliveryQueue: cloudDeliveryQueue(),
  };
});
