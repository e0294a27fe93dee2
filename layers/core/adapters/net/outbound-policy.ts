import { lookup } from 'node:dns/promises';
import { rootCertificates } from 'node:tls';

export type OutboundScheme = 'https' | 'http';

/** Resolves a host name to every address it has (IPv4 and IPv6). */
export type Resolver = (hostname: string) => Promise<readonly string[]>;

/**
 * What requests to customer-supplied addresses may do (D35). One policy per
 * kind of caller: webhooks today, the crawler and connectors later.
 */
export interface OutboundPolicy {
  /**
   * D35 `SVC_ALLOW_PRIVATE_URLS`: lifts the public-address rule. Local runs
   * and tests only; never the default, never in the cloud stack.
   */
  readonly allowPrivateAddresses: boolean;
  /** Webhooks: `https` (plus `http` when private addresses are allowed, for loopback receivers); the crawler: both. */
  readonly allowedSchemes: readonly OutboundScheme[];
  /** PEM certificates trusted in addition to Node's root store (tests' private CA). @default none */
  readonly extraCaCertificates?: readonly string[];
  /** Injectable DNS for tests. @default the system resolver, all addresses */
  readonly resolve?: Resolver;
}

export interface WebhookPolicyOptions {
  /** @default false */
  readonly allowPrivateAddresses?: boolean;
  readonly extraCaCertificates?: readonly string[];
  readonly resolve?: Resolver;
}

/**
 * The policy for webhook deliveries and URL checks (D35): `https` only,
 * unless private addresses are allowed, where `http` is accepted too (the
 * verifier then insists on a loopback receiver).
 *
 * @example
 * const policy = webhookPolicy({ allowPrivateAddresses: config.allowPrivateUrls });
 */
export function webhookPolicy(options: WebhookPolicyOptions = {}): OutboundPolicy {
  const allowPrivateAddresses = options.allowPrivateAddresses ?? false;
  return {
    allowPrivateAddresses,
    allowedSchemes: allowPrivateAddresses ? ['https', 'http'] : ['https'],
    ...(options.extraCaCertificates ? { extraCaCertificates: options.extraCaCertificates } : {}),
    ...(options.resolve ? { resolve: options.resolve } : {}),
  };
}

/** The same knobs as for webhooks. */
export type CrawlerPolicyOptions = WebhookPolicyOptions;

/**
 * The policy for the website crawler (D35): `http` and `https` both, public
 * addresses only unless private addresses are allowed (local runs, tests).
 *
 * @example
 * const policy = crawlerPolicy({ allowPrivateAddresses: config.allowPrivateUrls });
 */
export function crawlerPolicy(options: CrawlerPolicyOptions = {}): OutboundPolicy {
  return { ...webhookPolicy(options), allowedSchemes: ['https', 'http'] };
}

/** The system resolver (`getaddrinfo`, as a socket would use), every address in its order. */
export const systemResolve: Resolver = async (hostname) => {
  const records = await lookup(hostname, { all: true, verbatim: true });
  return records.map((record) => record.address);
};

export function resolverOf(policy: OutboundPolicy): Resolver {
  return policy.resolve ?? systemResolve;
}

/**
 * The CA list for TLS connections under this policy: `undefined` (Node's own
 * store) unless extra certificates are configured, since a `ca` option
 * replaces the default store rather than adding to it.
 */
export function trustedCertificates(policy: OutboundPolicy): string[] | undefined {
  const extra = policy.extraCaCertificates ?? [];
  return extra.length === 0 ? undefined : [...rootCertificates, ...extra];
}
