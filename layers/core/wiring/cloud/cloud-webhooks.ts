import {
  HttpWebhookTransport,
  TlsWebhookUrlVerifier,
} from '../../adapters/net/http-webhook-transport';
import { webhookPolicy } from '../../adapters/net/outbound-policy';
import { parseCloudConfig } from '../../config';
import { WEBHOOK_TIMEOUT_MS } from '../../domain/webhook';
import {
  parseCidrList,
  type WebhookSourceAddresses,
  webhookSourceAddresses,
} from '../../domain/webhook-source-addresses';
import type { WebhookTransport, WebhookUrlVerifier } from '../../ports/webhook-transport.port';

/** Private addresses are never allowed in the cloud. */
const CLOUD_POLICY = webhookPolicy({ allowPrivateAddresses: false });

/** Signed POSTs to receivers, within the delivery schedule's 10 s. */
export function cloudWebhookTransport(): {
  webhookTransport: WebhookTransport;
  webhookTimeoutMs: number;
} {
  return {
    webhookTransport: new HttpWebhookTransport(CLOUD_POLICY),
    webhookTimeoutMs: WEBHOOK_TIMEOUT_MS,
  };
}

/** A receiver's URL must resolve publicly and present a valid certificate. */
export function cloudWebhookUrlVerifier(): WebhookUrlVerifier {
  return new TlsWebhookUrlVerifier(CLOUD_POLICY);
}

/**
 * The NAT gateways' Elastic IPs and when they last changed, as
 * the stack sets them on the webhooks family; none without the VPC.
 */
export function cloudWebhookSourceAddresses(
  env: NodeJS.ProcessEnv = process.env,
): WebhookSourceAddresses {
  const config = parseCloudConfig('webhookSources', env);
  const parsed = parseCidrList(config.SVC_WEBHOOK_SOURCE_IPS ?? '');
  if (!parsed.ok) {
    // A cold-start failure naming the variable, as parseCloudConfig's own.
    throw new Error(
      `Invalid function configuration (webhookSources): SVC_WEBHOOK_SOURCE_IPS: must be CIDR ranges, comma-separated (${parsed.problem})`,
    );
  }
  return webhookSourceAddresses(parsed.cidrs, config.SVC_WEBHOOK_SOURCE_IPS_CHANGED_AT ?? null);
}
