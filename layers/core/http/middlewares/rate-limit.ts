import { SessionUnauthorizedError, UnauthorizedError } from '../../domain/errors';
import type { Plan } from '../../domain/plans';
import type { Principal } from '../../domain/principal';
import type { OrganizationRepository } from '../../ports/organization-repository.port';
import {
  enforceRateLimits,
  type RateLimitDependencies,
} from '../../use-cases/limits/enforce-rate-limits';
import type { HttpMiddleware, HttpRequest } from '../request-state';

/** How long a function instance trusts the plan it read; a plan change takes effect within this. */
const PLAN_CACHE_MS = 30_000;

/**
 * D16: the scope bucket of the route's scope (a key's, or for a session the
 * user's bucket of the same size, P63), then the organization's plan.
 * Public routes (signing in) have their own throttle (P62).
 * The bucket's state is kept for the response headers, refusals included.
 */
export function rateLimit(options: {
  readonly limits: () => RateLimitDependencies;
  readonly organizations: () => Pick<OrganizationRepository, 'get'>;
  readonly now?: () => number;
}): HttpMiddleware {
  const now = options.now ?? Date.now;
  const plans = new Map<string, { plan: Plan; until: number }>();

  const planOf = async (principal: Principal): Promise<Plan> => {
    const orgId = principal.orgId;
    const cached = plans.get(orgId);
    if (cached && cached.until > now()) return cached.plan;
    const organization = await options.organizations().get(orgId);
    if (!organization) {
      throw principal.kind === 'session'
        ? new SessionUnauthorizedError('Your organization no longer exists')
        : new UnauthorizedError('Invalid API key');
    }
    plans.set(orgId, { plan: organization.plan, until: now() + PLAN_CACHE_MS });
    return organization.plan;
  };

  const rateLimitBefore = async (request: HttpRequest): Promise<void> => {
    const state = request.context.svc;
    const route = state.route;
    if (!state.principal || !route || route.access === 'public') return;
    const plan = await planOf(state.principal);
    state.rateLimit = await enforceRateLimits(
      options.limits(),
      state.principal,
      route.scope,
      plan,
      now(),
    );
  };
  return { before: rateLimitBefore };
}
