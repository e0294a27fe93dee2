import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Standard Webhooks' secret format: `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The spec's `X-Svc-Signature`: hex HMAC-SHA256 of the raw body, keyed with
 * the webhook secret exactly as it was shown (its UTF-8 bytes, `whsec_` included).
 */
export function svcSignature(body: string, secret: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}

/**
 * Standard Webhooks' `webhook-signature` entry: `v1,` + base64 HMAC-SHA256 of
 * `id.timestamp.body`, keyed with the base64-decoded part of the secret.
 */
export function standardWebhookSignature(
  id: string,
  timestamp: number,
  body: string,
  secret: string,
): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64')}`;
}

/** Constant-time comparison of two hex signatures (what receivers should do). */
export function signaturesMatch(expectedHex: string, receivedHex: string): boolean {
  const expected = Buffer.from(expectedHex, 'hex');
  const received = Buffer.from(receivedHex, 'hex');
  return (
    expected.length === received.length &&
    expected.length > 0 &&
    timingSafeEqual(expected, received)
  );
}
