import type { BucketPolicy } from './gcra';

/**
 * P62: failed sign-ins slow down, per account and per source address, as
 * GCRA buckets (domain/gcra.ts) that only failures drain: each attempt takes
 * a token and a successful one gives it back. Never a lockout: an account
 * that used its 10 attempts gets one more every 5 minutes and is whole again
 * after 50; an address gets 30, then 6 a minute.
 */
export const LOGIN_THROTTLE = {
  account: { perMinute: 0.2, burst: 10 },
  address: { perMinute: 6, burst: 30 },
} as const satisfies Record<string, BucketPolicy>;
