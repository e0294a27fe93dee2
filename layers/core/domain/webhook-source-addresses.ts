import { parseCidrRange } from './cidr-range';

/**
 * Spec, webhooks: "The service publishes fixed source IP ranges for
 * delivery", so receivers can allowlist them. Either the
 * deployment sends from fixed addresses (in the cloud: the NAT gateways'
 * Elastic IPs; on one machine: a setting, loopback by default), or it says
 * that it does not and why, rather than listing nothing.
 */
export type WebhookSourceAddresses =
  | {
      readonly fixed: true;
      /** Canonical CIDR ranges (`203.0.113.7/32`, `2001:db8::/64`). */
      readonly cidrs: readonly string[];
      /** When the list last changed; null when the deployment does not know (a setting without a time). */
      readonly changedAt: Date | null;
    }
  | { readonly fixed: false; readonly reason: string };

/** Why an empty list means "no fixed addresses" (a cloud deployment without its VPC). */
export const NO_FIXED_ADDRESSES_REASON =
  'This deployment sends webhook deliveries from no fixed addresses (in AWS: it runs without its VPC and NAT gateways, so deliveries leave from shared AWS address ranges). Authenticate deliveries by their X-Svc-Signature instead of by address.';

/** A comma-separated list of CIDR ranges, each checked and made canonical, or why not. */
export function parseCidrList(
  text: string,
):
  | { readonly ok: true; readonly cidrs: string[] }
  | { readonly ok: false; readonly problem: string } {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const cidrs: string[] = [];
  for (const entry of entries) {
    const parsed = parseCidrRange(entry);
    if (!parsed.ok) return { ok: false, problem: `${entry}: ${parsed.problem}` };
    if (!cidrs.includes(parsed.range)) cidrs.push(parsed.range);
  }
  return { ok: true, cidrs };
}

/**
 * The answer for a checked list: fixed when it names at least one range,
 * else not fixed with NO_FIXED_ADDRESSES_REASON.
 */
export function webhookSourceAddresses(
  cidrs: readonly string[],
  changedAt: Date | null,
): WebhookSourceAddresses {
  return cidrs.length === 0
    ? { fixed: false, reason: NO_FIXED_ADDRESSES_REASON }
    : { fixed: true, cidrs: [...cidrs], changedAt };
}
