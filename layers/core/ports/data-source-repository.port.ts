import type {
  DataSource,
  DataSourceChanges,
  DataSourceStatus,
  ScheduledFrequency,
  SyncJob,
} from '../domain/data-source';
import type { DomainEvent } from '../domain/events';
import type { Page, PageRequest } from '../domain/pagination';

export interface DataSourceFilter {
  readonly status?: DataSourceStatus;
}

/** The outcome of asking for a sync (one running job per data source). */
export interface SyncJobClaim {
  /** The job now current: the new one, or the one already queued or running. */
  readonly job: SyncJob;
  /** `true` when this call created the job. */
  readonly created: boolean;
  readonly dataSource: DataSource;
}

/** A scheduled data source whose `next_sync_at` has come, as the schedule index lists it. */
export interface DueDataSource {
  readonly orgId: string;
  readonly dataSourceId: string;
  readonly frequency: ScheduledFrequency;
  readonly nextSyncAt: string;
}

/** Moves `next_sync_at` from `from` to `to`, if the source is still due at `from` with `frequency`. */
export interface NextSyncMove {
  readonly frequency: ScheduledFrequency;
  readonly from: string;
  readonly to: string;
}

/**
 * Data sources of one organization; every call is scoped by `orgId`, except
 * `listDueForSync`, the scheduler's look-up across organizations, whose
 * results each carry their organization.
 */
export interface DataSourceRepository {
  create(orgId: string, source: DataSource, events: readonly DomainEvent[]): Promise<void>;
  /**
   * Creates `source` unless an item with its id exists (the built-in
   * knowledge base, whose id every writer derives alike); `false` when it
   * existed. The events are stored only by the write that created it.
   */
  createIfAbsent(
    orgId: string,
    source: DataSource,
    events: readonly DomainEvent[],
  ): Promise<boolean>;
  get(orgId: string, id: string): Promise<DataSource | null>;
  /** Ids that exist in the organization, out of `ids`. */
  existingIds(orgId: string, ids: readonly string[]): Promise<Set<string>>;
  list(orgId: string, filter: DataSourceFilter, page: PageRequest): Promise<Page<DataSource>>;
  update(
    orgId: string,
    id: string,
    changes: DataSourceChanges,
    updatedAt: string,
  ): Promise<DataSource | null>;
  delete(orgId: string, id: string): Promise<boolean>;
  /**
   * The scheduled sources of every organization whose `next_sync_at` is
   * `now` (ISO 8601) or earlier, from the schedule index (never a scan).
   */
  listDueForSync(now: string): Promise<DueDataSource[]>;
  /**
   * Moves a source's `next_sync_at` in one conditional write. `false`
   * when it is no longer `move.from` with `move.frequency`: another scheduler
   * run moved it first, or the source was deleted, rescheduled or turned
   * `manual` in between.
   */
  moveNextSync(orgId: string, id: string, move: NextSyncMove): Promise<boolean>;
  /**
   * Makes `job` the data source's current job unless one is already queued or
   * running, in one conditional write; `null` when the data source does not exist.
   */
  claimSyncJob(orgId: string, id: string, job: SyncJob): Promise<SyncJobClaim | null>;
  /**
   * Moves job `jobId` from queued to running and the source to `processing`;
   * a job already running (a resumed one) is returned as it is. `null`
   * when `jobId` is not the source's current job (a stale or duplicate message).
   */
  startSyncJob(
    orgId: string,
    id: string,
    jobId: string,
    startedAt: string,
  ): Promise<DataSource | null>;
  /** Writes progress while `jobId` is still current. */
  recordSyncProgress(
    orgId: string,
    id: string,
    jobId: string,
    progress: Pick<
      SyncJob,
      'documents_total' | 'documents_processed' | 'chunks_indexed' | 'documents_skipped' | 'skipped'
    >,
  ): Promise<void>;
  /**
   * Ends job `jobId`: it becomes `last_job`, the source `active` or `failed`
   * with its chunk count, and the events are stored in the same write.
   * `false` when the job was no longer current.
   */
  finishSyncJob(
    orgId: string,
    id: string,
    finished: {
      job: SyncJob;
      status: 'active' | 'failed';
      chunksIndexed: number;
      /** The provider refused the grant: the source becomes `Connection failed` too. */
      connectionFailed?: boolean;
    },
    events: readonly DomainEvent[],
  ): Promise<boolean>;
  /** Where an incremental sync resumes; `null` before the first checkpoint (or after a reconnect). */
  syncCursor(orgId: string, id: string): Promise<string | null>;
  /** Commits a checkpoint's cursor while `jobId` is still current; `false` otherwise. */
  commitSyncCursor(orgId: string, id: string, jobId: string, cursor: string): Promise<boolean>;
  /**
   * Records indexing done outside a sync job (an uploaded file ingested or
   * deleted): the source's chunk count and, optionally, its status
   * (`active` once something is indexed; `failed` only while nothing ever
   * was), with the events in the same write. Skipped while a sync job is
   * running (it writes its own count when it ends); `false` when skipped.
   */
  recordDirectIndexing(
    orgId: string,
    id: string,
    change: { readonly chunksIndexed: number; readonly status?: 'active' | 'failed' },
    events?: readonly DomainEvent[],
  ): Promise<boolean>;
}
