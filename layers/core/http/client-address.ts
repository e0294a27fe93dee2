import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { headerValue } from './request-state';

/**
 * The secret the console's CloudFront distribution adds to every
 * request it sends to API Gateway (an origin custom header, which replaces
 * any header of that name a viewer sends). Only the distribution and the
 * functions know its value.
 */
export const ORIGIN_VERIFY_HEADER = 'X-Svc-Origin-Verify';

/**
 * The viewer's address, written by the distribution's viewer-request
 * function on `/api/*` from CloudFront's own `event.viewer.ip` (replacing
 * any value a viewer sent). Believed only beside the right ORIGIN_VERIFY_HEADER.
 */
export const VIEWER_ADDRESS_HEADER = 'X-Svc-Viewer-Address';

/** The origin secret's current value, read when first needed (Secrets Manager in the cloud). */
export type OriginSecret = () => Promise<string>;

/**
 * The address a request is judged by (D15's allowlist, the per-address
 * sign-in throttle, the own-address check): the TCP peer API Gateway saw
 * (`requestContext.identity.sourceIp`), unless the request provably
 * came through the console's distribution: then API Gateway's peer
 * is a CloudFront edge, and the viewer's address is the one CloudFront
 * wrote in VIEWER_ADDRESS_HEADER.
 *
 * Proof is ORIGIN_VERIFY_HEADER equal to the origin secret, compared in
 * constant time. Without a configured secret (one machine without a proxy),
 * without the header, or with any other value, the socket's address stands:
 * a client writing these headers itself never moves it. The secret is read
 * only for requests that carry the header, so direct API callers never wait
 * on it.
 */
export async function clientAddressOf(
  event: APIGatewayProxyEvent,
  originSecret: OriginSecret | undefined,
): Promise<string> {
  const socketAddress = event.requestContext?.identity?.sourceIp ?? '';
  if (!originSecret) return socketAddress;
  const sent = headerValue(event, ORIGIN_VERIFY_HEADER);
  if (sent === undefined) return socketAddress;
  if (!sameSecret(sent, await originSecret())) return socketAddress;
  const viewer = viewerAddressOf(headerValue(event, VIEWER_ADDRESS_HEADER));
  return viewer ?? socketAddress;
}

/**
 * Constant time whatever the lengths: both sides are hashed to 32 bytes
 * first, so neither the comparison nor an early length check tells how
 * much of a guess was right. An empty expected value never matches.
 */
export function sameSecret(sent: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return expected.length > 0 && timingSafeEqual(digest(sent), digest(expected));
}

/**
 * A viewer address as CloudFront writes one: a bare IPv4 or IPv6 address
 * (`event.viewer.ip`), or the `CloudFront-Viewer-Address` form with the
 * source port (`203.0.113.7:52325`, IPv6 unbracketed `2001:db8::1:52325`,
 * or bracketed `[2001:db8::1]:52325`). Anything else is `undefined`.
 * A bare address is tried first; CloudFront writes IPv6 there in full
 * (eight groups), so an address with its port never reads as an address.
 */
export function viewerAddressOf(value: string | undefined): string | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (isIP(text) !== 0) return text;
  const bracketed = /^\[([0-9a-f:.]+)\]:\d{1,5}$/i.exec(text);
  if (bracketed?.[1] && isIP(bracketed[1]) === 6) return bracketed[1];
  const colon = text.lastIndexOf(':');
  const address = text.slice(0, colon);
  const port = text.slice(colon + 1);
  if (colon > 0 && /^\d{1,5}$/.test(port) && isIP(address) !== 0) return address;
  return undefined;
}
