import {
  HttpWebhookTransport,
  TlsWebhookUrlVerifier,
} from '../../adapters/net/http-webhook-transport';
import { webhookPolicy } from '../../adapters/net/outbound-policy';
import { WEBHOOK_TIMEOUT_MS } from '../../domain/webhook';
import type { WebhookTransport, WebhookUrlVerifier } from '../../ports/webhook-transport.port';

/** D35: private addresses are never allowed in the cloud. */
const CLOUD_POLICY = webhookPolicy({ allowPrivateAddresses: false });

/** Signed POSTs to receivers (D29), within D29's 10 s. */
export function cloudWebhookTransport(): {
  webhookTransport: WebhookTransport;
  webhookTimeoutMs: number;
} {
  return {
    webhookTransport: new HttpWebhookTransport(CLOUD_POLICY),
    webhookTimeoutMs: WEBHOOK_TIMEOUT_MS,
  };
}

/** D30: a receiver's URL must resolve publicly and present a valid certificate. */
export function cloudWebhookUrlVerifier(): WebhookUrlVerifier {
  return new TlsWebhookUrlVerifier(CLOUD_POLICY);
}
