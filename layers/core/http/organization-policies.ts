import { SessionUnauthorizedError, UnauthorizedError } from '../domain/errors';
import { compileIpAllowlist, type IpAllowlist } from '../domain/ip-allowlist';
import { settingsOf } from '../domain/organization';
import { PLAN_LIMITS, type PlanLimits } from '../domain/plans';
import type { Principal } from '../domain/principal';
import type { OrganizationRepository } from '../ports/organization-repository.port';

/**
 * How long a function instance trusts what it read of an organization:
 * a plan or allowlist change takes effect within this.
 */
export const ORGANIZATION_POLICY_CACHE_MS = 30_000;

/** What the request path needs of the caller's organization: its plan's limits and its allowlist. */
export interface OrganizationPolicy {
  readonly limits: PlanLimits;
  /** `null`: requests are allowed from any address. */
  readonly allowlist: IpAllowlist | null;
}

export interface OrganizationPolicies {
  /** The caller's organization's policy; 401 when the organization no longer exists. */
  of(principal: Principal): Promise<OrganizationPolicy>;
}

/**
 * One read of the organization item serves every limit and the allowlist:
 * the plan limits already needed it, so checking the address costs
 * no extra round trip, and both are cached per function instance for
 * `ORGANIZATION_POLICY_CACHE_MS`. The allowlist is compiled once per read,
 * so each request's check is a lookup in native code.
 */
export function organizationPolicies(options: {
  readonly organizations: () => Pick<OrganizationRepository, 'get'>;
  readonly now: () => number;
  /** A stored range the runtime cannot read (never expected: ranges are checked when written). */
  readonly onInvalidRange?: (orgId: string, range: string) => void;
}): OrganizationPolicies {
  const cache = new Map<string, { policy: OrganizationPolicy; until: number }>();
  return {
    async of(principal: Principal): Promise<OrganizationPolicy> {
      const orgId = principal.orgId;
      const cached = cache.get(orgId);
      if (cached && cached.until > options.now()) return cached.policy;
      const organization = await options.organizations().get(orgId);
      if (!organization) {
        throw principal.kind === 'session'
          ? new SessionUnauthorizedError('Your organization no longer exists')
          : new UnauthorizedError('Invalid API key');
      }
      const policy: OrganizationPolicy = {
        limits: PLAN_LIMITS[organization.plan],
        allowlist: compileIpAllowlist(settingsOf(organization).ip_allowlist, (range) =>
          options.onInvalidRange?.(orgId, range),
        ),
      };
      cache.set(orgId, { policy, until: options.now() + ORGANIZATION_POLICY_CACHE_MS });
      return policy;
    },
  };
}
