import { RateLimitExceededError, type RateLimitReason } from '../../domain/errors';
import type { ScopeBucketReport } from '../../domain/gcra';
import type { PlanLimits } from '../../domain/plans';
import { type Principal, principalId } from '../../domain/principal';
import { SCOPE_RATE_LIMITS, type Scope } from '../../domain/scopes';
import { usageDay } from '../../domain/usage-day';
import type {
  ConcurrencyLease,
  ConcurrencyLeases,
  DailyUsage,
  PlanQuota,
  RateLimiter,
} from '../../ports/rate-limiter.port';

export interface RateLimitDependencies {
  readonly rateLimiter: RateLimiter;
  readonly planQuota: PlanQuota;
  readonly dailyUsage: DailyUsage;
  readonly concurrencyLeases: ConcurrencyLeases;
}

export interface AdmissionRequest {
  readonly principal: Principal;
  /** The scope the route requires, whose bucket the request draws from. */
  readonly scope: Scope;
  /** The organization's plan limits. */
  readonly limits: PlanLimits;
  /** tokens/day is checked only for requests that spend model tokens. */
  readonly spendsTokens: boolean;
  /** The request's id, which names its lease. */
  readonly requestId: string;
  readonly now: number;
  /** Epoch ms by which the request has ended or its function is dead: its lease lasts until then (P58). */
  readonly leaseExpiresAt: number;
}

/** What an admitted request holds: the scope bucket for the headers, and its concurrency lease. */
export interface Admission {
  readonly bucket: ScopeBucketReport;
  readonly lease: ConcurrencyLease;
}

/**
 * A concurrency refusal's `Retry-After` (P59): a slot frees as soon as any of
 * the organization's requests ends, typically within seconds.
 */
export const CONCURRENCY_RETRY_AFTER_SECONDS = 1;

/** A key's bucket for a scope, or a user's (D16 buckets sized alike for sessions). */
export function scopeBucketId(ownerId: string, scope: Scope): string {
  return `${ownerId}#${scope}`;
}

function secondsUntil(at: number, now: number): number {
  return Math.max(1, Math.ceil((at - now) / 1000));
}

/**
 * A request must pass every limit, checked in this order (P59):
 *
 *   1. the key's bucket for the route's scope, or for a session the user's
 *      bucket of the same size (`scope_rate`)
 *   2. the organization's plan requests/minute (`plan_rate`)
 *   3. its requests/day, and for a query its tokens/day (`daily_requests`,
 *      `daily_tokens`; one conditional write for both, skipped when the plan
 *      has no daily caps)
 *   4. a concurrency lease (`concurrency`), held until `releaseAdmission`
 *
 * Each is one conditional write, exact under concurrency. A request refused
 * by a later limit gives back what the earlier ones counted, so one limit
 * never charges for another's refusal.
 */
export async function admitRequest(
  deps: RateLimitDependencies,
  request: AdmissionRequest,
): Promise<Admission> {
  const { principal, scope, limits, now } = request;
  const orgId = principal.orgId;
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
  const bucket: ScopeBucketReport = { scope, policy, state, at: now };

  const refunds: Array<() => Promise<void>> = [() => deps.rateLimiter.refund(bucketId, policy)];
  const refuse = async (
    reason: RateLimitReason,
    limit: number,
    resetAt: number,
    retryAfterSeconds: number,
  ): Promise<never> => {
    await Promise.all(refunds.map((refund) => refund()));
    // The headers describe the scope bucket with its token given back.
    throw new RateLimitExceededError(reason, limit, new Date(resetAt), retryAfterSeconds, {
      ...bucket,
      state: { ...state, remaining: state.remaining + 1 },
    });
  };

  const window = await deps.planQuota.countRequest(orgId, limits.requestsPerMinute, now);
  if (!window.allowed) {
    return refuse('plan_rate', window.limit, window.resetAt, secondsUntil(window.resetAt, now));
  }
  refunds.push(() => deps.planQuota.refundRequest(orgId, now));

  const requestsPerDay = limits.requestsPerDay;
  const tokensPerDay = request.spendsTokens ? limits.tokensPerDay : null;
  if (requestsPerDay !== null || tokensPerDay !== null) {
    const daily = await deps.dailyUsage.countRequest(orgId, { requestsPerDay, tokensPerDay }, now);
    if (!daily.allowed) {
      const resetAt = usageDay(now).endsAt;
      const reason = daily.exceeded === 'requests' ? 'daily_requests' : 'daily_tokens';
      return refuse(reason, daily.limit, resetAt, secondsUntil(resetAt, now));
    }
    refunds.push(() => deps.dailyUsage.refundRequest(orgId, now));
  }

  const grant = await deps.concurrencyLeases.acquire(
    orgId,
    request.requestId,
    limits.concurrentRequests,
    now,
    request.leaseExpiresAt,
  );
  if (!grant.granted) {
    return refuse(
      'concurrency',
      limits.concurrentRequests,
      now + CONCURRENCY_RETRY_AFTER_SECONDS * 1000,
      CONCURRENCY_RETRY_AFTER_SECONDS,
    );
  }
  return { bucket, lease: grant.lease };
}

/** Ends an admitted request: its concurrency slot is free again. */
export async function releaseAdmission(
  deps: Pick<RateLimitDependencies, 'concurrencyLeases'>,
  admission: Pick<Admission, 'lease'>,
): Promise<void> {
  await deps.concurrencyLeases.release(admission.lease);
}
