import fc from 'fast-check';
import { usageDay } from '../../../layers/core/domain/usage-day';

describe('Domain: usage day (D16 daily limits, P56)', () => {
  it('is the UTC day: midnight to midnight, whatever the local time zone', () => {
    const day = usageDay(Date.parse('2026-11-21T23:59:59.999Z'));

    expect(day).toEqual({
      date: '2026-11-21',
      startsAt: Date.parse('2026-11-21T00:00:00.000Z'),
      endsAt: Date.parse('2026-11-22T00:00:00.000Z'),
    });
    expect(usageDay(Date.parse('2026-11-22T00:00:00.000Z')).date).toBe('2026-11-22');
  });

  it('contains every instant in exactly one day of 24 hours, named by its date', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Date.parse('2100-01-01T00:00:00Z') }), (now) => {
        const day = usageDay(now);
        expect(day.startsAt).toBeLessThanOrEqual(now);
        expect(now).toBeLessThan(day.endsAt);
        expect(day.endsAt - day.startsAt).toBe(86_400_000);
        expect(day.date).toBe(new Date(now).toISOString().slice(0, 10));
        expect(usageDay(day.endsAt).startsAt).toBe(day.endsAt);
      }),
    );
  });
});
