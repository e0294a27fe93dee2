import type { BucketPolicy, BucketState } from '../domain/gcra';

/** Token buckets per API key and scope (D16). */
export interface RateLimiter {
  /** Takes one token from `bucketId` at `now` if one is there; atomic under concurrency. */
  take(bucketId: string, policy: BucketPolicy, now: number): Promise<BucketState>;
  /** Gives back a token taken by a request that a later limit refused. */
  refund(bucketId: string, policy: BucketPolicy): Promise<void>;
}

export interface WindowCount {
  readonly allowed: boolean;
  readonly limit: number;
  readonly used: number;
  /** Epoch ms at which the window ends. */
  readonly resetAt: number;
}

/** Fixed-window request counters per organization (D16: the plan's requests/minute). */
export interface PlanQuota {
  countRequest(orgId: string, perMinute: number, now: number): Promise<WindowCount>;
}
