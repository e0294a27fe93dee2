import type { Interaction } from './interactions.state';

/** Feedback in words. */
export function feedbackLabel(feedback: Interaction['feedback']): string {
  if (feedback === 'positive') return 'Positive';
  if (feedback === 'negative') return 'Negative';
  return 'None';
}

/** A ranking score to three decimals: 0.873 (comparable only within one answer's list). */
export function formatScore(score: number, locale?: string): string {
  return new Intl.NumberFormat(locale, {
    minimumFractionDigits: 3,
    maximumFractionDigits: 3,
  }).format(score);
}
