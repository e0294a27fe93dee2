import { formatDateTime, formatNumber, formatRelative, formatWait } from '../../src/format/format';

describe('formatting', () => {
  it.each([
    [0, '1 s'],
    [0.2, '1 s'],
    [1, '1 s'],
    [45, '45 s'],
    [59.1, '1 min'],
    [60, '1 min'],
    [125, '2 min 5 s'],
    [300, '5 min'],
    [3600, '1 h'],
    [3780, '1 h 3 min'],
    [86400, '24 h'],
  ])('writes a wait of %s s as "%s"', (seconds, written) => {
    expect(formatWait(seconds)).toBe(written);
  });

  it('groups numbers the locale way', () => {
    expect(formatNumber(1234567, 'en-US')).toBe('1,234,567');
    expect(formatNumber(1234567, 'de-DE')).toBe('1.234.567');
  });

  it('writes a date and time, and leaves what is not a date as it came', () => {
    expect(formatDateTime('2026-11-27T17:14:00Z', 'en-GB')).toMatch(/27 Nov 2026/);
    expect(formatDateTime('not a date')).toBe('not a date');
  });

  it('says how long ago in the largest whole unit', () => {
    const now = Date.parse('2026-11-27T12:00:00Z');
    expect(formatRelative('2026-11-27T09:00:00Z', now, 'en')).toBe('3 hours ago');
    expect(formatRelative('2026-11-27T11:59:30Z', now, 'en')).toBe('30 seconds ago');
    expect(formatRelative('2026-11-26T12:00:00Z', now, 'en')).toBe('yesterday');
    expect(formatRelative('2026-11-27T12:00:00Z', now, 'en')).toBe('now');
    expect(formatRelative('2026-12-04T12:00:00Z', now, 'en')).toBe('in 7 days');
  });
});
