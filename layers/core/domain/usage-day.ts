const DAY_MS = 86_400_000;

/** One day of an organization's plan usage (requests/day and tokens/day). */
export interface UsageDay {
  /** `YYYY-MM-DD`, the UTC date. */
  readonly date: string;
  /** Epoch ms of the day's first instant (UTC midnight). */
  readonly startsAt: number;
  /** Epoch ms at which the next day starts: when the daily limits reset. */
  readonly endsAt: number;
}

/**
 * The day `now` falls in. D16 and D31 do not say when a plan's day starts;
 * it is the UTC day, as D3's query dates are whole UTC days, so every
 * organization's counters reset at the same instant, 00:00 UTC.
 */
export function usageDay(now: number): UsageDay {
  const startsAt = Math.floor(now / DAY_MS) * DAY_MS;
  return {
    date: new Date(startsAt).toISOString().slice(0, 10),
    startsAt,
    endsAt: startsAt + DAY_MS,
  };
}
