import type { Clock } from '../../layers/core/ports/clock.port';

/**
 * Longer than any scope bucket takes to refill from empty (D16: Write holds 15
 * tokens at 10/min, 90 s; the others refill faster) and than a plan window
 * (one minute), so advancing by it gives every key full buckets again.
 */
export const REFILL_ALL_BUCKETS_MS = 2 * 60_000;

/**
 * A clock for the local runtime (`startTestService({ clock })`) that runs with
 * real time but can be jumped forward, or frozen so that a burst of requests
 * all happen "at the same instant" (the rate limiter and the use cases read it).
 */
export class TestClock implements Clock {
  private offsetMs = 0;
  private frozenAtMs: number | null = null;

  now(): Date {
    return new Date(this.frozenAtMs ?? Date.now() + this.offsetMs);
  }

  /** Jumps forward (or, frozen, moves the frozen instant). */
  advance(ms: number): void {
    if (this.frozenAtMs !== null) this.frozenAtMs += ms;
    else this.offsetMs += ms;
  }

  /**
   * Jumps forward to `at` (time keeps running from there unless frozen), so
   * a test can place what it does in a given hour or day. Refuses to go back:
   * the rate limiter's buckets assume time only moves forward.
   */
  advanceTo(at: Date | string): void {
    const target = new Date(at).getTime();
    const now = this.now().getTime();
    if (target < now)
      throw new Error(`the clock is already past ${new Date(target).toISOString()}`);
    this.advance(target - now);
  }

  /** Stops time at the current instant until `resume()`. */
  freeze(): void {
    this.frozenAtMs = this.now().getTime();
  }

  /** Lets time run again from the frozen instant. */
  resume(): void {
    if (this.frozenAtMs === null) return;
    this.offsetMs = this.frozenAtMs - Date.now();
    this.frozenAtMs = null;
  }
}
