import { DynamoDbDeliveryRecords } from '../../layers/core/adapters/dynamodb/delivery-repository';
import { DynamoDbWebhookRepository } from '../../layers/core/adapters/dynamodb/webhook-repository';
import { cloudHttpPlatform } from '../../layers/core/wiring/cloud/cloud-http-platform';
import { cloudDeliveryQueue } from '../../layers/core/wiring/cloud/cloud-queues';
import { cloudSecretSealer } from '../../layers/core/wiring/cloud/cloud-secret-sealer';
import { cloudTable } from '../../layers/core/wiring/cloud/cloud-table';
import {
  cloudWebhookSourceAddresses,
  cloudWebhookTransport,
  cloudWebhookUrlVerifier,
} from '../../layers/core/wiring/cloud/cloud-webhooks';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/**
 * Webhook management: the table, the secrets key (sealing new secrets,
 * opening them for the test event), the deliveries queue (manual retries)
 * and outbound HTTPS (URL checks, the test event), and the addresses
 * deliveries come from.
 */
export const dependencies = compositionRoot(() => {
  const { client, tableName } = cloudTable();
  return {
    ...cloudHttpPlatform(),
    webhooks: new DynamoDbWebhookRepository(client, tableName),
    deliveryRecords: new DynamoDbDeliveryRecords(client, tableName),
    deliveryQueue: cloudDeliveryQueue(),
    secretSealer: cloudSecretSealer(),
    webhookUrlVerifier: cloudWebhookUrlVerifier(),
    ...cloudWebhookTransport(),
    // Published at GET /api/v1/webhooks/source-ips.
    webhookSourceAddresses: cloudWebhookSourceAddresses(),
  };
});

export type WebhooksDependencies = ReturnType<typeof dependencies>;
