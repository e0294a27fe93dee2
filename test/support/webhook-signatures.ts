/**
 * Signature checks as a webhook receiver would write them, independently of
 * the service's own signing code: over the raw body bytes the receiver got,
 * compared in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Receipt } from './webhook-receiver';

/** Spec, Delivery: hex HMAC-SHA256 of the raw body, keyed with the secret as shown. */
export function expectedSvcSignature(raw: Buffer, secret: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(raw).digest('hex');
}

/** Standard Webhooks: base64 HMAC-SHA256 of `id.timestamp.` + raw body, keyed with the base64-decoded part after `whsec_`. */
export function expectedStandardSignature(
  id: string,
  timestamp: string,
  raw: Buffer,
  secret: string,
): string {
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), raw]))
    .digest('base64');
}

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && a.length > 0 && timingSafeEqual(a, b);
}

/** `webhook-signature`: space-separated `v1,<base64>` entries. */
export function standardSignatures(receipt: Receipt): string[] {
  const header = String(receipt.headers['webhook-signature'] ?? '');
  return header.split(' ').filter((entry) => entry !== '');
}

/** Whether `X-Svc-Signature` is the hex HMAC of the raw bytes under `secret`. */
export function svcSignatureMatches(receipt: Receipt, secret: string, header = 'x-svc-signature') {
  const received = String(receipt.headers[header] ?? '');
  if (!/^[0-9a-f]{64}$/.test(received)) return false;
  return sameBytes(
    Buffer.from(received, 'hex'),
    Buffer.from(expectedSvcSignature(receipt.raw, secret), 'hex'),
  );
}

/** Whether one of the `webhook-signature` entries verifies under `secret`. */
export function standardSignatureMatches(receipt: Receipt, secret: string): boolean {
  const id = String(receipt.headers['webhook-id'] ?? '');
  const timestamp = String(receipt.headers['webhook-timestamp'] ?? '');
  const expected = Buffer.from(expectedStandardSignature(id, timestamp, receipt.raw, secret));
  return standardSignatures(receipt).some((entry) => {
    const [version, signature] = entry.split(',');
    return (
      version === 'v1' && signature !== undefined && sameBytes(Buffer.from(signature), expected)
    );
  });
}

/**
 * Everything a receiver checks on one request signed with `secret` alone:
 * the body is exactly `Content-Length` bytes of JSON, `X-Svc-Signature`
 * verifies over those bytes, `webhook-signature` has one entry and it
 * verifies, and no previous-secret signature is sent.
 */
export function expectSignedWith(receipt: Receipt, secret: string): void {
  expect(receipt.method).toBe('POST');
  expect(receipt.headers['content-type']).toBe('application/json');
  expect(Number(receipt.headers['content-length'])).toBe(receipt.raw.length);
  expect(svcSignatureMatches(receipt, secret)).toBe(true);
  expect(standardSignatures(receipt)).toHaveLength(1);
  expect(standardSignatureMatches(receipt, secret)).toBe(true);
  expect(receipt.headers['x-svc-signature-previous']).toBeUndefined();
}
