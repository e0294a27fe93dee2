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

/** Who asked, as the list and the dialog say it: a name, and an email or what kind of asker it is. */
export function askerLabel(asker: Interaction['asked_by']): {
  readonly name: string;
  readonly detail: string | null;
} {
  if (!asker) return { name: 'Unknown', detail: 'asked before askers were recorded' };
  if (asker.type === 'api_key') {
    return { name: asker.name ?? 'A deleted API key', detail: 'API key' };
  }
  return { name: asker.name ?? 'A removed user', detail: asker.email };
}
