import * as z from 'zod/mini';

/** A `YYYY-MM-DD` query date, a whole UTC day; parsed to that day's midnight UTC. */
export const queryDate = z.pipe(
  z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date like 2026-11-21')),
  z.transform((value: string, context) => {
    const date = new Date(`${value}T00:00:00.000Z`);
    if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value) {
      context.issues.push({ code: 'custom', message: 'is not a real date', input: value });
      return z.NEVER;
    }
    return date;
  }),
);

/** End dates are inclusive, so the range ends at the next midnight. */
export function dayAfter(date: Date): Date {
  return new Date(date.getTime() + 24 * 60 * 60 * 1000);
}
