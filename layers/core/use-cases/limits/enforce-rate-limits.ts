import { RateLimitExceededError } from '../../domain/errors';
import type { ScopeBucketReport } from '../../domain/gcra';
import { PLAN_LIMITS, type Plan } from '../../domain/plans';
import { type Principal, principalId } from '../../domain/principal';
import { SCOPE_RATE_LIMITS, type Scope } from '../../domain/scopes';
import type { PlanQuota, RateLimiter } from '../../ports/rate-limiter.port';

export interface RateLimitDependencies {
  readonly rateLimiter: RateLimiter;
  readonly planQuota: PlanQuota;
}

/** A key's bucket for a scope, or a user's (D16 buckets sized alike for sessions, P63). */
export function scopeBucketId(principalId: string, scope: Scope): string {
  return `${principalId}#${scope}`;
}

/**
 * D16: a request draws one token from the bucket of the scope its endpoint
 * requires (a key's bucket, or for a session the user's bucket of the same
 * size, P63), then counts against its organization's plan. A request refused
 * by the plan gives its scope token back, so one limit never charges for
 * another's refusal. Returns the scope bucket's state for the headers.
 */
export async function enforceRateLimits(
  deps: RateLimitDependencies,
  principal: Principal,
  scope: Scope,
  plan: Plan,
  now: number,
): Promise<ScopeBucketReport> {
  const policy = SCOPE_RATE_LIMITS[scope];
  const bucketId = scopeBucketId(principalId(principal), scope);
  const state = await deps.rateLimiter.take(bucketId, policy, now);
  if (!state.allowed) {
    throw new RateLimitExceededError(
      'scope_rate',
      policy.perMinute,
      new Date(state.fullAt),
      state.retryAfterSeconds,
      { scope, policy, state, at: now },
    );
  }
  const window = await deps.planQuota.countRequest(
    principal.orgId,
    PLAN_LIMITS[plan].requestsPerMinute,
    now,
  );
  if (!window.allowed) {
    await deps.rateLimiter.refund(bucketId, policy);
    throw new RateLimitExceededError(
      'plan_rate',
      window.limit,
      new Date(window.resetAt),
      Math.max(1, Math.ceil((window.resetAt - now) / 1000)),
      { scope, policy, state: { ...state, remaining: state.remaining + 1 }, at: now },
    );
  }
  return { scope, policy, state, at: now };
}
