import type { BucketPolicy, BucketState } from '../domain/gcra';

/** Token buckets per API key and scope. */
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

/** Fixed-window request counters per organization (the plan's requests/minute). */
export interface PlanQuota {
  countRequest(orgId: string, perMinute: number, now: number): Promise<WindowCount>;
  /** Takes back the count of a request admitted at `at` that a later limit refused. */
  refundRequest(orgId: string, at: number): Promise<void>;
}

/** The daily caps a request is checked against; `null` is no cap. */
export interface DailyCaps {
  readonly requestsPerDay: number | null;
  /** Checked only for requests that spend model tokens (query). */
  readonly tokensPerDay: number | null;
}

export type DailyCount =
  | {
      readonly allowed: true;
      /** Requests counted today, this one included. */
      readonly requests: number;
      /** Tokens settled today so far. */
      readonly tokens: number;
    }
  | {
      readonly allowed: false;
      /** Which cap refused: requests are checked before tokens. */
      readonly exceeded: 'requests' | 'tokens';
      /** That cap. */
      readonly limit: number;
    };

/**
 * An organization's usage per UTC day (the plan's requests/day and
 * tokens/day). Requests are counted when admitted, tokens when an answer
 * is settled, both on one counter item per organization and day.
 */
export interface DailyUsage {
  /**
   * Counts one request at `now` unless a cap is already reached: the day's
   * requests, or, when `tokensPerDay` is given, its settled tokens. Atomic
   * under concurrency: with C requests left, exactly C of K simultaneous
   * requests are counted.
   */
  countRequest(orgId: string, caps: DailyCaps, now: number): Promise<DailyCount>;
  /** Takes back the count of a request admitted at `at` that a later limit refused. */
  refundRequest(orgId: string, at: number): Promise<void>;
  /** Adds an answer's input and output tokens to the day of `at` (when the request was admitted). */
  addTokens(orgId: string, tokens: number, at: number): Promise<void>;
}

/** One request's hold on one of its organization's concurrency slots. */
export interface ConcurrencyLease {
  readonly orgId: string;
  /** Unique per request: the request id. */
  readonly id: string;
  /** Epoch ms after which the lease no longer counts, released or not. */
  readonly expiresAt: number;
}

export type LeaseGrant =
  | { readonly granted: true; readonly lease: ConcurrencyLease }
  | { readonly granted: false };

/**
 * Concurrent requests per organization: a lease taken before the
 * operation and released when the response ends. A lease whose holder died
 * stops counting at its expiry, whether or not it was ever released.
 */
export interface ConcurrencyLeases {
  /**
   * Takes a lease unless `limit` unexpired leases are held at `now`. Atomic
   * under concurrency: never more than `limit` unexpired leases at once.
   */
  acquire(
    orgId: string,
    leaseId: string,
    limit: number,
    now: number,
    expiresAt: number,
  ): Promise<LeaseGrant>;
  /** Gives the slot back; releasing twice, or after expiry, is harmless. */
  release(lease: ConcurrencyLease): Promise<void>;
}
