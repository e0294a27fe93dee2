import { generateWebhookSecret } from '../../../layers/core/domain/webhook-signature';
import { signedRequest } from '../../../layers/core/use-cases/webhooks/signed-request';

/** One delivery as a receiver sees it, and whether a correct check accepts it with `secret` at `now`. */
export interface VerificationCase {
  readonly name: string;
  readonly body: string;
  readonly headers: Record<string, string>;
  readonly secret: string;
  readonly now: Date;
  readonly valid: boolean;
}

const SIGNED_AT = new Date('2026-11-21T10:00:00.000Z');

/** A delivery signed exactly as the dispatcher signs it (signedRequest), headers lower-cased as node:http gives them. */
export function signedDelivery(
  secrets: { current: string; previous: string | null },
  options: { at?: Date; body?: string; eventId?: string } = {},
) {
  const eventId = options.eventId ?? 'evt_01m7y5s0hv4jy55e4cnnc305bc';
  const body =
    options.body ??
    JSON.stringify({
      id: eventId,
      type: 'agent.created',
      event: 'agent.created',
      timestamp: SIGNED_AT.toISOString(),
      organizationId: 'org_01m7y5s0d80a7byqcnjsj8q2kr',
      data: { id: 'agt_01m7y5s0hvznhxz1675eyaxm9w', name: 'Support bot – ünïcode ✓' },
    });
  const request = signedRequest({
    url: 'http://127.0.0.1:1/webhook',
    body,
    eventId,
    eventName: 'agent.created',
    deliveryId: 'dlv_01m7y5s0hvyzfev53s2sjqsd4y',
    secrets,
    clock: { now: () => options.at ?? SIGNED_AT },
    timeoutMs: 10_000,
  });
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
  return { body, headers };
}

const seconds = (s: number) => new Date(SIGNED_AT.getTime() + s * 1000);
/**
 * Changes the first base64 character after `v1,` (a character that carries 6
 * signature bits; the last one before `=` does not: decoders ignore its low bits).
 */
const flipBase64 = (entry: string) =>
  `${entry.slice(0, 3)}${entry.charAt(3) === 'A' ? 'B' : 'A'}${entry.slice(4)}`;
const flipHex = (hex: string) => `${hex.slice(0, -1)}${hex.endsWith('0') ? '1' : '0'}`;

/** Genuine, forged, replayed and rotated deliveries: what both the documented snippet and `verifyDelivery` must tell apart. */
export function verificationCases(): VerificationCase[] {
  const secret = generateWebhookSecret();
  const old = generateWebhookSecret();
  const genuine = signedDelivery({ current: secret, previous: null });
  const rotated = signedDelivery({ current: secret, previous: old });
  const { headers } = genuine;
  const base = { body: genuine.body, headers, secret, now: seconds(1) };
  const withoutHeader = (name: string) =>
    Object.fromEntries(Object.entries(headers).filter(([key]) => key !== name));
  return [
    { ...base, name: 'genuine', valid: true },
    {
      ...base,
      name: 'body changed by one character',
      body: base.body.replace('bot', 'bat'),
      valid: false,
    },
    {
      ...base,
      name: 'body re-serialised (whitespace)',
      body: JSON.stringify(JSON.parse(base.body), null, 1),
      valid: false,
    },
    { ...base, name: 'another secret', secret: generateWebhookSecret(), valid: false },
    {
      ...base,
      name: 'X-Svc-Signature altered',
      headers: { ...headers, 'x-svc-signature': flipHex(headers['x-svc-signature'] ?? '') },
      valid: false,
    },
    {
      ...base,
      name: 'X-Svc-Signature truncated',
      headers: { ...headers, 'x-svc-signature': (headers['x-svc-signature'] ?? '').slice(0, 32) },
      valid: false,
    },
    {
      ...base,
      name: 'X-Svc-Signature missing',
      headers: withoutHeader('x-svc-signature'),
      valid: false,
    },
    {
      ...base,
      name: 'webhook-signature altered',
      headers: { ...headers, 'webhook-signature': flipBase64(headers['webhook-signature'] ?? '') },
      valid: false,
    },
    {
      ...base,
      name: 'webhook-signature with another version tag only',
      headers: {
        ...headers,
        'webhook-signature': (headers['webhook-signature'] ?? '').replace(/^v1,/, 'v1a,'),
      },
      valid: false,
    },
    {
      ...base,
      name: 'webhook-signature: a bad entry, then the good one',
      headers: {
        ...headers,
        'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')} ${headers['webhook-signature']}`,
      },
      valid: true,
    },
    {
      ...base,
      name: 'webhook-signature missing',
      headers: withoutHeader('webhook-signature'),
      valid: false,
    },
    {
      ...base,
      name: 'webhook-id changed (the signed string differs)',
      headers: { ...headers, 'webhook-id': 'evt_01m7y5s0hv4jy55e4cnnc305bd' },
      valid: false,
    },
    {
      ...base,
      name: 'webhook-timestamp moved (the signed string differs)',
      headers: {
        ...headers,
        'webhook-timestamp': String(Number(headers['webhook-timestamp']) + 1),
      },
      now: seconds(1),
      valid: false,
    },
    { ...base, name: 'received 299 s after signing', now: seconds(299), valid: true },
    { ...base, name: 'replayed 301 s after signing', now: seconds(301), valid: false },
    { ...base, name: 'replayed a day later', now: seconds(86_400), valid: false },
    { ...base, name: 'signed 301 s in the future', now: seconds(-301), valid: false },
    {
      ...rotated,
      name: 'rotation: verified with the new secret',
      secret,
      now: seconds(1),
      valid: true,
    },
    {
      ...rotated,
      name: 'rotation: verified with the old secret',
      secret: old,
      now: seconds(1),
      valid: true,
    },
    {
      ...rotated,
      name: 'rotation: a third secret',
      secret: generateWebhookSecret(),
      now: seconds(1),
      valid: false,
    },
    {
      ...base,
      name: 'old secret after the overlap (only the new one signs)',
      secret: old,
      valid: false,
    },
  ];
}
