import type { Scope } from './scopes';

/**
 * The Generic Cell Rate Algorithm: a token bucket kept as one number, the
 * "theoretical arrival time" (TAT). A bucket refilling `perMinute` tokens per
 * minute and holding `burst` admits a request at `now` when
 * `max(tat, now) + interval - now <= burst * interval`.
 *
 *   now                       tat          now + burst·interval
 *    |------- in use ----------|--- free ------|
 *
 * Storing only TAT lets a store admit a request with one conditional write
 * (see the DynamoDB rate limiter), with no read-modify-write race.
 */
export interface BucketPolicy {
  readonly perMinute: number;
  readonly burst: number;
}

export interface BucketState {
  readonly allowed: boolean;
  /** Whole tokens left after this request. */
  readonly remaining: number;
  /** Epoch ms at which the bucket is full again. */
  readonly fullAt: number;
  /** Seconds until one token is available (0 when allowed). */
  readonly retryAfterSeconds: number;
}

export function emissionInterval(policy: BucketPolicy): number {
  return 60_000 / policy.perMinute;
}

/** Largest stored TAT that still admits one more request at `now`. */
export function admitCeiling(policy: BucketPolicy, now: number): number {
  return now + (policy.burst - 1) * emissionInterval(policy);
}

/** Describes the bucket after a request admitted at `now` moved TAT to `newTat`. */
export function admittedState(policy: BucketPolicy, now: number, newTat: number): BucketState {
  const interval = emissionInterval(policy);
  const remaining = Math.max(
    0,
    Math.floor((now + policy.burst * interval - newTat) / interval + 1e-9),
  );
  return { allowed: true, remaining, fullAt: newTat, retryAfterSeconds: 0 };
}

/** Describes the bucket for a request refused at `now` with stored TAT `tat`. */
export function refusedState(policy: BucketPolicy, now: number, tat: number): BucketState {
  const waitMs = Math.max(0, tat - admitCeiling(policy, now));
  return {
    allowed: false,
    remaining: 0,
    fullAt: tat,
    retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
  };
}

/** A scope bucket after a request, as the rate-limit headers describe it. */
export interface ScopeBucketReport {
  readonly scope: Scope;
  readonly policy: BucketPolicy;
  readonly state: BucketState;
  /** Epoch ms of the decision, so headers count from the same clock as the bucket. */
  readonly at: number;
}
