import { ApiError } from '../../api/api-error';
import type { components } from '../../api/schema';
import { formatWait } from '../../format/format';

export type SyncStatus = components['schemas']['SyncStatus'];

/**
 * How often a running sync's status is read: soon after it starts,
 * then less often while nothing changes (×1.5 a time, at most every 10 s),
 * back to the start as soon as something moved; a failed read is tried
 * again after 3 s, or after what a 429 says.
 */
export const POLL = { firstMs: 1_000, maxMs: 10_000, factor: 1.5, retryMs: 3_000 } as const;

/** A job that has not ended: the status is read again. */
export function isSyncRunning(status: Pick<SyncStatus, 'job_status'> | null): boolean {
  return status?.job_status === 'queued' || status?.job_status === 'running';
}

/** What, when it changes, means the sync moved (and the next read comes soon). */
export function progressMark(status: SyncStatus): string {
  return [
    status.job_id,
    status.job_status,
    status.documents_processed,
    status.documents_skipped,
    status.chunks_indexed,
  ].join('|');
}

/** The wait before the next read, after one that answered. */
export function nextPollDelay(previousMs: number | null, moved: boolean): number {
  if (previousMs === null || moved) return POLL.firstMs;
  return Math.min(POLL.maxMs, Math.round(previousMs * POLL.factor));
}

/** The wait after a read that failed: what a 429 or 503 says, else a few seconds. */
export function retryDelay(error: unknown): number {
  if (error instanceof ApiError && error.retryAfter !== null) {
    return Math.max(POLL.firstMs, error.retryAfter * 1000);
  }
  return POLL.retryMs;
}

/**
 * When the sync should be done, as the service estimates it (from the
 * rate so far; absent until a document is done or when the total is
 * unknown). `null` when there is no estimate: the screen says so rather than
 * guessing.
 */
export function describeEstimate(estimatedCompletion: string | null, now: number): string | null {
  if (!estimatedCompletion) return null;
  const at = Date.parse(estimatedCompletion);
  if (Number.isNaN(at)) return null;
  const left = (at - now) / 1000;
  const clock = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' }).format(at);
  return left <= 1
    ? `any moment (around ${clock})`
    : `in about ${formatWait(left)} (around ${clock})`;
}

/** "12 of 50 documents", or "12 documents" while the total is unknown. */
export function describeDocuments(processed: number, total: number | null): string {
  const unit = (count: number) => (count === 1 ? 'document' : 'documents');
  return total === null
    ? `${processed.toLocaleString()} ${unit(processed)}`
    : `${processed.toLocaleString()} of ${total.toLocaleString()} ${unit(total)}`;
}
