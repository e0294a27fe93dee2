/**
 * What every model provider's HTTP answers have in common, without any
 * provider SDK (the model-keys function checks keys with plain HTTP).
 */

/** Seconds a caller is told to wait (`Retry-After`) when the provider names none. */
export const DEFAULT_RETRY_AFTER_SECONDS = 30;

/**
 * Seconds to wait, from `Retry-After-Ms` (OpenAI's own), `Retry-After` in
 * seconds or as an HTTP date, else the fallback; at least 1 and at most a day.
 */
export function retryAfter(
  headers: Headers | undefined,
  fallbackSeconds: number,
  now: number = Date.now(),
): number {
  const milliseconds = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  const header = headers?.get('retry-after')?.trim() ?? '';
  const seconds = /^\d+(\.\d+)?$/.test(header) ? Number.parseFloat(header) : Number.NaN;
  const date = header && Number.isNaN(seconds) ? Date.parse(header) : Number.NaN;
  const wait = Number.isFinite(milliseconds)
    ? milliseconds / 1000
    : Number.isFinite(seconds)
      ? seconds
      : Number.isFinite(date)
        ? (date - now) / 1000
        : fallbackSeconds;
  return Math.min(Math.max(Math.ceil(wait), 1), 86_400);
}

/** OpenAI echoes a masked key in 401 messages (`sk-abc***wxyz`); even masked, it stays out. */
export function redactKeys(text: string): string {
  return text.replace(/\b(sk|sess|svcsk)[-_][\w*.-]+/g, '[redacted key]');
}
