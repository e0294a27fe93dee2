export const DATA_SOURCE_TYPES = [
  'website',
  'file',
  'confluence',
  'slack',
  'google_drive',
  'sharepoint',
] as const;
export type DataSourceType = (typeof DATA_SOURCE_TYPES)[number];

/**
 * Every type a data source can have: the ones a client creates, and `kb`,
 * the organization's built-in knowledge base, which nobody creates or
 * deletes through `/data-sources`.
 */
export const ALL_DATA_SOURCE_TYPES = [...DATA_SOURCE_TYPES, 'kb'] as const;
export type AnyDataSourceType = (typeof ALL_DATA_SOURCE_TYPES)[number];

/** Types that sign in to a third party and so carry `connection_status`. */
export const CONNECTOR_TYPES: readonly DataSourceType[] = [
  'confluence',
  'slack',
  'google_drive',
  'sharepoint',
];

export const SYNC_FREQUENCIES = ['hourly', 'daily', 'weekly', 'manual'] as const;
export type SyncFrequency = (typeof SYNC_FREQUENCIES)[number];
/** The frequencies the scheduler syncs; `manual` syncs only on request. */
export type ScheduledFrequency = Exclude<SyncFrequency, 'manual'>;

/** How long a scheduled source waits between two scheduled syncs. */
export const SYNC_INTERVALS_MS = {
  hourly: 3_600_000,
  daily: 86_400_000,
  weekly: 604_800_000,
} as const satisfies Record<ScheduledFrequency, number>;

export function isScheduled(frequency: SyncFrequency): frequency is ScheduledFrequency {
  return frequency !== 'manual';
}

/**
 * When a source of `frequency` is next due after a sync (or a change of
 * frequency) at `from`: one interval later; `null` for `manual`, which the
 * scheduler never syncs.
 *
 * @example nextSyncAfter('daily', new Date('2026-11-21T10:00:00Z')) // '2026-11-22T10:00:00.000Z'
 */
export function nextSyncAfter(frequency: ScheduledFrequency, from: Date): string;
export function nextSyncAfter(frequency: SyncFrequency, from: Date): string | null;
export function nextSyncAfter(frequency: SyncFrequency, from: Date): string | null {
  if (!isScheduled(frequency)) return null;
  return new Date(from.getTime() + SYNC_INTERVALS_MS[frequency]).toISOString();
}

/**
 * D23: a new scheduled source is due at once, so its first sync happens
 * at the scheduler's next tick instead of one interval after its creation.
 */
export function firstSyncAt(frequency: SyncFrequency, createdAt: Date): string | null {
  return isScheduled(frequency) ? createdAt.toISOString() : null;
}

/** Data source statuses. */
export const DATA_SOURCE_STATUSES = ['pending', 'active', 'processing', 'failed'] as const;
export type DataSourceStatus = (typeof DATA_SOURCE_STATUSES)[number];

export const CONNECTION_STATUSES = ['Connected', 'Connection failed', 'Disconnected'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

export const DATA_SOURCE_LIMITS = {
  nameMax: 200,
  urlMax: 2048,
  maxPagesMin: 1,
  maxPagesMax: 10_000,
  listItemsMax: 100,
} as const;

export const DATA_SOURCE_DEFAULTS = {
  /** D17 */
  maxPages: 100,
  syncFrequency: 'manual',
} as const satisfies { maxPages: number; syncFrequency: SyncFrequency };

export const SYNC_JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type SyncJobStatus = (typeof SYNC_JOB_STATUSES)[number];

/** How many skipped documents a job names with their reasons (the rest are only counted). */
export const SYNC_SKIPPED_KEPT = 20;

/** A document a sync did not index, and why (the reader's or the chunker's words). */
export interface SkippedDocument {
  /** What the reader calls it: a page's address, a file's name, an item's id. */
  readonly key: string;
  readonly reason: string;
}

/** One sync run of a data source. */
export interface SyncJob {
  readonly id: string;
  readonly status: SyncJobStatus;
  readonly requested_at: string;
  readonly started_at: string | null;
  readonly finished_at: string | null;
  readonly documents_total: number | null;
  readonly documents_processed: number;
  readonly chunks_indexed: number;
  /** Documents this job did not index (unreadable, refused, gone), counted as it goes. */
  readonly documents_skipped: number;
  /** The first `SYNC_SKIPPED_KEPT` of them, each with its reason. */
  readonly skipped: readonly SkippedDocument[];
  readonly error: string | null;
}

export interface DataSource {
  readonly id: string;
  readonly type: AnyDataSourceType;
  readonly name: string;
  readonly config: Readonly<Record<string, unknown>>;
  readonly sync_frequency: SyncFrequency;
  /** When the scheduler next syncs this source (ISO 8601); `null` for `manual`. */
  readonly next_sync_at: string | null;
  readonly status: DataSourceStatus;
  /** Only for connector types. */
  readonly connection_status?: ConnectionStatus;
  /** Chunks in the index from the last successful sync. */
  readonly chunks_indexed: number;
  readonly created_at: string;
  readonly updated_at: string;
  /** The queued or running job; at most one per data source. */
  readonly current_job: SyncJob | null;
  /** The most recent finished job. */
  readonly last_job: SyncJob | null;
}

export type DataSourceChanges = Partial<
  Pick<DataSource, 'name' | 'config' | 'sync_frequency' | 'next_sync_at'>
>;

export function isConnectorType(type: AnyDataSourceType): boolean {
  return (CONNECTOR_TYPES as readonly AnyDataSourceType[]).includes(type);
}

export function newSyncJob(id: string, requestedAt: string): SyncJob {
  return {
    id,
    status: 'queued',
    requested_at: requestedAt,
    started_at: null,
    finished_at: null,
    documents_total: null,
    documents_processed: 0,
    chunks_indexed: 0,
    documents_skipped: 0,
    skipped: [],
    error: null,
  };
}

/** The status object of `GET /data-sources/:id/status`. */
export interface SyncStatus {
  readonly status: DataSourceStatus;
  readonly job_id: string | null;
  readonly job_status: SyncJobStatus | null;
  readonly chunks_indexed: number;
  readonly progress_pct: number;
  readonly estimated_completion: string | null;
  readonly documents_total: number | null;
  readonly documents_processed: number;
  /** As the job's, so a person sees what was skipped, and why, while it runs. */
  readonly documents_skipped: number;
  readonly skipped: readonly SkippedDocument[];
  readonly started_at: string | null;
  readonly finished_at: string | null;
  readonly error: string | null;
}

/**
 * Derives the status object. While a job runs, progress is documents
 * processed over documents found, and completion is extrapolated from the
 * rate so far; it is `null` when unknown or done.
 */
export function syncStatusOf(source: DataSource, now: Date): SyncStatus {
  const job = source.current_job ?? source.last_job;
  const running = source.current_job?.status === 'running' ? source.current_job : null;
  const total = job?.documents_total ?? null;
  const processed = job?.documents_processed ?? 0;
  let progress = 0;
  if (job && (job.status === 'succeeded' || job.status === 'failed')) progress = 100;
  else if (total !== null && total > 0)
    progress = Math.min(99, Math.floor((processed / total) * 100));

  let estimatedCompletion: string | null = null;
  if (running?.started_at && total !== null && processed > 0 && processed < total) {
    const elapsed = now.getTime() - Date.parse(running.started_at);
    const remainingMs = (elapsed / processed) * (total - processed);
    estimatedCompletion = new Date(now.getTime() + remainingMs).toISOString();
  }

  return {
    status: source.status,
    job_id: job?.id ?? null,
    job_status: job?.status ?? null,
    chunks_indexed: running ? running.chunks_indexed : source.chunks_indexed,
    progress_pct: progress,
    estimated_completion: estimatedCompletion,
    documents_total: total,
    documents_processed: processed,
    documents_skipped: job?.documents_skipped ?? 0,
    skipped: job?.skipped ?? [],
    started_at: job?.started_at ?? null,
    finished_at: job?.finished_at ?? null,
    error: job?.error ?? null,
  };
}
