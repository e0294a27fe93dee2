import type {
  DataSource,
  DataSourceChanges,
  DataSourceStatus,
  SyncJob,
} from '../domain/data-source';
import type { DomainEvent } from '../domain/events';
import type { Page, PageRequest } from '../domain/pagination';

export interface DataSourceFilter {
  readonly status?: DataSourceStatus;
}

/** The outcome of asking for a sync (D22: one running job per data source). */
export interface SyncJobClaim {
  /** The job now current: the new one, or the one already queued or running. */
  readonly job: SyncJob;
  /** `true` when this call created the job. */
  readonly created: boolean;
  readonly dataSource: DataSource;
}

/** Data sources of one organization; every call is scoped by `orgId`. */
export interface DataSourceRepository {
  create(orgId: string, source: DataSource, events: readonly DomainEvent[]): Promise<void>;
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
   * Makes `job` the data source's current job unless one is already queued or
   * running, in one conditional write; `null` when the data source does not exist.
   */
  claimSyncJob(orgId: string, id: string, job: SyncJob): Promise<SyncJobClaim | null>;
}
