import { WEBHOOKS_ROUTES } from '../../layers/core/http/routes/webhooks';
import { secretContext } from '../../layers/core/use-cases/webhooks/signed-request';
import type { EndpointFamily } from '../endpoint-family';

/**
 * Webhooks: seals new signing secrets and opens them to sign the test
 * event, re-queues a delivery retried by hand, and publishes the addresses
 * deliveries come from (GET /api/v1/webhooks/source-ips).
 */
export const family: EndpointFamily = {
  name: 'webhooks',
  routes: WEBHOOKS_ROUTES,
  needs: {
    // Creating a webhook resolves its host and checks its certificate (5 s
    // each at most); the test event waits up to 10 s for the receiver.
    // Under API Gateway's 29 s.
    timeoutSeconds: 25,
    // The URL check and the test event connect to the receiver, from the
    // addresses receivers allowlist.
    network: 'published-addresses',
    sendsTo: ['webhookDeliveries'],
    secretsKey: [{ purpose: secretContext('', '').purpose, use: 'seal-and-open' }],
    environment: ['webhookSourceAddresses'],
  },
  entry: () => require('./handler') as typeof import('./handler'),
};
