import type { BucketPolicy } from './gcra';

/**
 * Failed sign-ins slow down, as GCRA buckets (domain/gcra.ts)
 * that only failures drain: each attempt takes a token from each bucket and
 * a successful one gives them back. Three buckets, after OWASP's
 * authentication guidance:
 *
 * - `accountAddress`, one account from one address: 10, then one every 5
 *   minutes. This is what a guesser at one address meets.
 * - `account`, one account from every address together: 100, then one a
 *   minute. Ten times the first, so guesses spread over a few addresses do
 *   not reach it and the owner, from their own address, still signs in; an
 *   attacker with many addresses stays slowed to one guess a minute.
 * - `address`, one address over every account: 30, then 6 a minute (password
 *   spraying). Everyone behind one shared NAT shares this bucket.
 *
 * Never a lockout: every bucket refills with time, whatever is tried meanwhile.
 */
export const LOGIN_THROTTLE = {
  accountAddress: { perMinute: 0.2, burst: 10 },
  account: { perMinute: 1, burst: 100 },
  address: { perMinute: 6, burst: 30 },
} as const satisfies Record<string, BucketPolicy>;
