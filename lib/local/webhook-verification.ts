import { timingSafeEqual } from 'node:crypto';
import {
  signaturesMatch,
  standardWebhookSignature,
  svcSignature,
} from '../../layers/core/domain/webhook-signature';

/** Standard Webhooks' replay window: a `webhook-timestamp` further than this from now is refused. */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

/** Request headers as node:http gives them: lower-case names. */
export type DeliveryHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

export type DeliveryVerdict =
  | {
      readonly ok: true;
      /** `webhook-id`: the event id, the key to deduplicate on. */
      readonly eventId: string;
      /** `webhook-timestamp`, seconds since the epoch. */
      readonly timestamp: number;
      /** Which secret signed `X-Svc-Signature`: after a rotation the old one signs `X-Svc-Signature-Previous` for 24 h. */
      readonly signedWith: 'current' | 'previous';
    }
  | { readonly ok: false; readonly reason: string };

const refuse = (reason: string): DeliveryVerdict => ({ ok: false, reason });

function header(headers: DeliveryHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Constant-time equality of two byte strings (different lengths are unequal, without comparing). */
function bytesMatch(expected: Buffer, received: Buffer): boolean {
  return (
    expected.length === received.length &&
    expected.length > 0 &&
    timingSafeEqual(expected, received)
  );
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Checks one delivery the way a subscriber should, both signatures:
 *
 * - `X-Svc-Signature` (or, during a rotation overlap, `X-Svc-Signature-Previous`):
 *   hex HMAC-SHA256 of the raw body keyed with the secret, compared in constant time;
 * - `webhook-signature`: any of its space-separated `v1,<base64>` entries must be
 *   the HMAC of `webhook-id.webhook-timestamp.body` keyed with the secret's
 *   base64 part, compared in constant time;
 * - `webhook-timestamp` within {@link TIMESTAMP_TOLERANCE_SECONDS} of `now`
 *   (older is a replay; newer is a clock that cannot be trusted).
 *
 * Pure: no I/O, the time is a parameter. The body must be the bytes as
 * received, before any JSON parsing; it must be UTF-8 (which the service
 * always sends), so decoding it for the signature functions loses nothing.
 */
export function verifyDelivery(
  rawBody: Buffer | string,
  headers: DeliveryHeaders,
  secret: string,
  now: Date,
): DeliveryVerdict {
  let body: string;
  try {
    body = typeof rawBody === 'string' ? rawBody : utf8.decode(rawBody);
  } catch {
    return refuse('body is not valid UTF-8');
  }

  const svc = header(headers, 'x-svc-signature');
  if (!svc) return refuse('missing X-Svc-Signature');
  const expectedHex = svcSignature(body, secret);
  const previous = header(headers, 'x-svc-signature-previous');
  let signedWith: 'current' | 'previous';
  if (signaturesMatch(expectedHex, svc)) signedWith = 'current';
  else if (previous && signaturesMatch(expectedHex, previous)) signedWith = 'previous';
  else return refuse('X-Svc-Signature does not match the body');

  const id = header(headers, 'webhook-id');
  const timestampText = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestampText || !signatures) {
    return refuse('missing webhook-id, webhook-timestamp or webhook-signature');
  }
  if (!/^\d{1,12}$/.test(timestampText)) return refuse('webhook-timestamp is not a Unix time');
  const timestamp = Number(timestampText);
  const expected = Buffer.from(
    standardWebhookSignature(id, timestamp, body, secret).slice('v1,'.length),
    'base64',
  );
  const matched = signatures
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .some((entry) => bytesMatch(expected, Buffer.from(entry.slice('v1,'.length), 'base64')));
  if (!matched) return refuse('webhook-signature does not match');

  const age = Math.floor(now.getTime() / 1000) - timestamp;
  if (age > TIMESTAMP_TOLERANCE_SECONDS) {
    return refuse(`webhook-timestamp is ${age} s old (more than 5 minutes: a replay?)`);
  }
  if (age < -TIMESTAMP_TOLERANCE_SECONDS) {
    return refuse(`webhook-timestamp is ${-age} s in the future (more than 5 minutes)`);
  }
  return { ok: true, eventId: id, timestamp, signedWith };
}
