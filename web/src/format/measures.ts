/**
 * How the console writes measures that Interactions and Analytics share:
 * latency, money and rates, in the reader's locale (as format.ts does).
 */

/** 850 ms, 1.2 s, 12 s. */
export function formatLatency(milliseconds: number, locale?: string): string {
  if (milliseconds < 1000) return `${Math.round(milliseconds)} ms`;
  const seconds = milliseconds / 1000;
  return `${new Intl.NumberFormat(locale, { maximumFractionDigits: seconds < 10 ? 1 : 0 }).format(seconds)} s`;
}

/** US dollars: sums to the cent ($12.40), and below a dollar the fractions of a cent one answer costs ($0.0042). */
export function formatUsd(amount: number, locale?: string): string {
  const small = amount !== 0 && Math.abs(amount) < 1;
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency: 'USD',
    minimumFractionDigits: 2,
    maximumFractionDigits: small ? 4 : 2,
  }).format(amount);
}

/** A share from 0 to 1 as a percentage to one decimal: 0.873 → 87.3%. */
export function formatPercent(share: number, locale?: string): string {
  return new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 }).format(
    share,
  );
}
