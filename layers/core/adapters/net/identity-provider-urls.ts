import { isIP } from 'node:net';
import { classifyAddress } from '../../domain/public-address';
import type { IdentityProviderUrlRule } from '../../ports/identity-provider.port';
import type { UrlCheck } from '../../ports/webhook-transport.port';
import type { OutboundPolicy } from './outbound-policy';
import { checkOutboundUrl, hostOf, parseOutboundUrl } from './url-guard';

/**
 * An address of an organization's identity provider (the OIDC issuer
 * and the endpoints its discovery document names, the SAML SSO URL the
 * browser is sent to): `https`, without user info; plain `http` only where
 * The SSRF guard's `SVC_ALLOW_PRIVATE_URLS` is on, and then only to this machine
 * (`localhost` or a loopback address), as for webhooks. Syntactic:
 * nothing is resolved, since a browser, not the service, follows a sign-in
 * redirect; what the service itself fetches goes through
 * {@link checkFetchedProviderUrl} as well.
 *
 * @example
 * checkIdentityProviderUrl('http://idp.example.com/sso', webhookPolicy);
 * // { ok: false, reason: 'must use https (http only to this machine, with SVC_ALLOW_PRIVATE_URLS)' }
 */
export function checkIdentityProviderUrl(raw: string, policy: OutboundPolicy): UrlCheck {
  const parsed = parseOutboundUrl(raw, { ...policy, allowedSchemes: ['https', 'http'] });
  if (!parsed.ok) return parsed;
  if (parsed.url.protocol === 'https:') return { ok: true };
  return policy.allowPrivateAddresses && isLoopbackHost(hostOf(parsed.url))
    ? { ok: true }
    : {
        ok: false,
        reason: 'must use https (http only to this machine, with SVC_ALLOW_PRIVATE_URLS)',
      };
}

/**
 * P220 for a provider address the service fetches or sends a browser to
 * from a discovery document: {@link checkIdentityProviderUrl}, then the SSRF guard's
 * address check (the host resolved, every address public unless private
 * addresses are allowed), so a document fetched from a public issuer cannot
 * point the token or JWKS request, or the browser, at an internal address.
 * Connections are still guarded on their own (guardedFetch), against DNS
 * changing in between.
 */
export async function checkFetchedProviderUrl(
  raw: string,
  policy: OutboundPolicy,
): Promise<UrlCheck> {
  const rule = checkIdentityProviderUrl(raw, policy);
  if (!rule.ok) return rule;
  const check = await checkOutboundUrl(raw, { ...policy, allowedSchemes: ['https', 'http'] });
  return check.ok ? { ok: true } : check;
}

/** `localhost` or a loopback IP literal: what `http` may reach when private addresses are allowed. */
function isLoopbackHost(host: string): boolean {
  if (isIP(host) === 0) return host.toLowerCase() === 'localhost';
  return classifyAddress(host).range === 'loopback';
}

/** {@link checkIdentityProviderUrl} under one policy, for the SSO configuration and sign-in (the port). */
export function identityProviderUrlRule(policy: OutboundPolicy): IdentityProviderUrlRule {
  return { check: (url) => checkIdentityProviderUrl(url, policy) };
}
