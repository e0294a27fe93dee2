import { nextSyncAfter } from '../../domain/data-source';
import { NotFoundError } from '../../domain/errors';
import type { Clock } from '../../ports/clock.port';
import type { DataSourceRepository, DueDataSource } from '../../ports/data-source-repository.port';
import type { SyncJobQueue } from '../../ports/sync-job-queue.port';
import { requestSync } from '../data-sources/data-source-use-cases';

export interface SchedulerDependencies {
  readonly dataSources: Pick<
    DataSourceRepository,
    'listDueForSync' | 'moveNextSync' | 'claimSyncJob'
  >;
  readonly syncQueue: SyncJobQueue;
  readonly clock: Clock;
}

export const SCHEDULER_DEFAULTS = {
  /** Sources handled at once: each is two or three DynamoDB writes and an enqueue. */
  concurrency: 8,
} as const;

export interface SchedulerOptions {
  /**
   * When aborted, no further source is started; the ones left stay due and
   * the next run takes them (a Lambda stops before its deadline this way).
   */
  readonly signal?: AbortSignal;
  /** @default SCHEDULER_DEFAULTS.concurrency */
  readonly concurrency?: number;
}

export interface ScheduledSyncFailure {
  readonly orgId: string;
  readonly dataSourceId: string;
  readonly error: unknown;
}

/** What one scheduler run did, for its log line. */
export interface ScheduledSyncRun {
  /** Sources the schedule listed as due. */
  readonly due: number;
  /** Sync jobs queued. */
  readonly queued: number;
  /** Sources whose job was already queued or running: no second job. */
  readonly alreadyRunning: number;
  /**
   * Sources another run moved first, or that were deleted, rescheduled or
   * turned `manual` after the schedule listed them.
   */
  readonly skipped: number;
  /** Sources not started because the run's time was up; still due. */
  readonly deferred: number;
  /** Sources whose sync request failed; put back as due, so the next run tries again. */
  readonly failures: readonly ScheduledSyncFailure[];
}

type Outcome = 'queued' | 'alreadyRunning' | 'skipped';

/**
 * Syncs every scheduled data source that is due (`hourly`, `daily`,
 * `weekly`; `manual` ones never are), once per run of the scheduler (an
 * EventBridge rule in the cloud, a timer on one machine).
 *
 * For each due source, in one conditional write, `next_sync_at` moves one
 * interval past now, only if it is still the time the schedule listed: of
 * two runs at once exactly one wins a source, and a source deleted,
 * rescheduled or turned `manual` in between is skipped. The winner then asks
 * for a sync as `POST …/sync` does (`requestSync`: a job already queued
 * or running is kept, no second one). A source whose request fails is put
 * back as it was, so the next run tries it again, and does not stop the
 * others.
 *
 * ```
 * run A: list due ── move 10:00 → tomorrow 10:05 ✓ ── requestSync ── job queued
 * run B: list due ──────── move 10:00 → tomorrow 10:05 ✗ (moved) ── skipped
 * ```
 *
 * @example
 * const run = await runScheduledSyncs(deps, { signal: AbortSignal.timeout(50_000) });
 * logger.info('Scheduled syncs', { due: run.due, queued: run.queued });
 */
export async function runScheduledSyncs(
  deps: SchedulerDependencies,
  options: SchedulerOptions = {},
): Promise<ScheduledSyncRun> {
  const now = deps.clock.now();
  // Most overdue first, so a run cut short leaves the freshest for the next.
  const due = (await deps.dataSources.listDueForSync(now.toISOString())).sort((a, b) =>
    a.nextSyncAt.localeCompare(b.nextSyncAt),
  );
  const counts: Record<Outcome | 'deferred', number> = {
    queued: 0,
    alreadyRunning: 0,
    skipped: 0,
    deferred: 0,
  };
  const failures: ScheduledSyncFailure[] = [];

  let next = 0;
  const worker = async () => {
    for (let index = next++; index < due.length; index = next++) {
      const source = due[index] as DueDataSource;
      if (options.signal?.aborted) {
        counts.deferred += 1;
        continue;
      }
      try {
        counts[await syncDueSource(deps, source, now)] += 1;
      } catch (error) {
        failures.push({ orgId: source.orgId, dataSourceId: source.dataSourceId, error });
      }
    }
  };
  const workers = Math.max(1, options.concurrency ?? SCHEDULER_DEFAULTS.concurrency);
  await Promise.all(Array.from({ length: Math.min(workers, due.length) }, worker));

  return { due: due.length, ...counts, failures };
}

async function syncDueSource(
  deps: SchedulerDependencies,
  source: DueDataSource,
  now: Date,
): Promise<Outcome> {
  const { orgId, dataSourceId, frequency, nextSyncAt } = source;
  const following = nextSyncAfter(frequency, now);
  const claimed = await deps.dataSources.moveNextSync(orgId, dataSourceId, {
    frequency,
    from: nextSyncAt,
    to: following,
  });
  if (!claimed) return 'skipped';
  try {
    const { created } = await requestSync(deps, orgId, dataSourceId);
    return created ? 'queued' : 'alreadyRunning';
  } catch (error) {
    // Deleted between the move and the request: nothing left to sync.
    if (error instanceof NotFoundError) return 'skipped';
    // Due again for the next run, unless the source changed meanwhile. A job
    // recorded before the enqueue failed stays queued, and that next request
    // enqueues it again (requestSync).
    await deps.dataSources
      .moveNextSync(orgId, dataSourceId, { frequency, from: following, to: nextSyncAt })
      .catch(() => false);
    throw error;
  }
}
