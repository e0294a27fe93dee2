import type { Webhook, WebhookSecrets } from '../../domain/webhook';
import { standardWebhookSignature, svcSignature } from '../../domain/webhook-signature';
import type { Clock } from '../../ports/clock.port';
import type { SecretSealer } from '../../ports/webhook-repository.port';
import type { WebhookRequest } from '../../ports/webhook-transport.port';

/** The encryption context a webhook's secrets are sealed with: bound to organization and webhook. */
export function secretContext(orgId: string, webhookId: string) {
  return { org_id: orgId, secret_id: webhookId, purpose: 'webhook-signing' } as const;
}

/** The plaintext secrets that sign now: the current one, and the previous one during its 24 h overlap. */
export async function signingSecrets(
  sealer: SecretSealer,
  orgId: string,
  webhook: Webhook,
  secrets: WebhookSecrets,
  now: Date,
): Promise<{ current: string; previous: string | null }> {
  const context = secretContext(orgId, webhook.id);
  const current = await sealer.open(secrets.current, context);
  const previousValid =
    secrets.previous !== null &&
    secrets.previousExpiresAt !== null &&
    Date.parse(secrets.previousExpiresAt) > now.getTime();
  const previous =
    previousValid && secrets.previous ? await sealer.open(secrets.previous, context) : null;
  return { current, previous };
}

/**
 * The POST of one delivery. `X-Svc-Signature` is the spec's hex HMAC of
 * the raw body; the Standard Webhooks headers sit beside it, so receivers can
 * also reject replays by timestamp. During a rotation overlap both secrets
 * sign (`webhook-signature` lists both; `X-Svc-Signature-Previous` carries the old hex).
 */
export function signedRequest(input: {
  readonly url: string;
  readonly body: string;
  readonly eventId: string;
  readonly eventName: string;
  readonly deliveryId: string;
  readonly secrets: { current: string; previous: string | null };
  readonly clock: Clock;
  readonly timeoutMs: number;
}): WebhookRequest {
  const timestamp = Math.floor(input.clock.now().getTime() / 1000);
  const { current, previous } = input.secrets;
  const standard = [current, ...(previous ? [previous] : [])].map((secret) =>
    standardWebhookSignature(input.eventId, timestamp, input.body, secret),
  );
  return {
    url: input.url,
    body: input.body,
    timeoutMs: input.timeoutMs,
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': 'svc-webhooks/1.0',
      'X-Svc-Signature': svcSignature(input.body, current),
      ...(previous ? { 'X-Svc-Signature-Previous': svcSignature(input.body, previous) } : {}),
      'X-Svc-Event': input.eventName,
      'X-Svc-Delivery': input.deliveryId,
      'webhook-id': input.eventId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': standard.join(' '),
    },
  };
}
