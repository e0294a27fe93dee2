/** An organization's plan. */
export const PLANS = ['free', 'pro', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export interface PlanLimits {
  readonly requestsPerMinute: number;
  /** `null`: no cap (enterprise unless configured). */
  readonly requestsPerDay: number | null;
  readonly tokensPerDay: number | null;
  readonly concurrentRequests: number;
}

/** Spec, Limits: per-plan limits; D31 fills in enterprise defaults. */
export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: {
    requestsPerMinute: 20,
    requestsPerDay: 1_000,
    tokensPerDay: 100_000,
    concurrentRequests: 2,
  },
  pro: {
    requestsPerMinute: 100,
    requestsPerDay: 10_000,
    tokensPerDay: 1_000_000,
    concurrentRequests: 10,
  },
  enterprise: {
    requestsPerMinute: 1_000,
    requestsPerDay: null,
    tokensPerDay: null,
    concurrentRequests: 50,
  },
};
