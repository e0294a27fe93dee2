import type { ConnectorType } from '../../domain/connector';
import {
  type DataSource,
  type DataSourceChanges,
  type DataSourceType,
  firstSyncAt,
  isConnectorType,
  isScheduled,
  newSyncJob,
  nextSyncAfter,
  type SyncFrequency,
  type SyncJob,
  type SyncStatus,
  syncStatusOf,
} from '../../domain/data-source';
import { parseDataSourceConfig } from '../../domain/data-source-config';
import { ConflictError, InvalidRequestError, NotFoundError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import type { Page, PageRequest } from '../../domain/pagination';
import { dataSourceFilesPrefix } from '../../domain/uploaded-file';
import type { AgentRepository } from '../../ports/agent-repository.port';
import type { Clock } from '../../ports/clock.port';
import type { ConnectionStore } from '../../ports/connector.port';
import type {
  DataSourceFilter,
  DataSourceRepository,
} from '../../ports/data-source-repository.port';
import type { FileStorage } from '../../ports/file-storage.port';
import type { SyncJobQueue } from '../../ports/sync-job-queue.port';
import type { UploadedFileRepository } from '../../ports/uploaded-file-repository.port';
import { dataSourceCreated } from '../events/domain-events';

export interface DataSourceDependencies {
  readonly dataSources: DataSourceRepository;
  readonly agents: Pick<AgentRepository, 'idsReferencing'>;
  /** Sync jobs, and the purge of a deleted source's chunks. */
  readonly syncQueue: SyncJobQueue;
  readonly clock: Clock;
  /** Deleting a file data source deletes its uploaded files too. */
  readonly files: Pick<UploadedFileRepository, 'list' | 'delete'>;
  readonly fileStorage: Pick<FileStorage, 'deleteUnder'>;
  /** Issue 12: a deleted connector source's grant goes to the sync worker to revoke. */
  readonly connections: Pick<ConnectionStore, 'sealedTokens'>;
}

export interface CreateDataSourceInput {
  readonly type: DataSourceType;
  readonly name: string;
  readonly config?: unknown;
  readonly sync_frequency?: SyncFrequency | undefined;
}

function validConfig(type: DataSourceType, config: unknown): Record<string, unknown> {
  const parsed = parseDataSourceConfig(type, config);
  if (parsed.ok) return parsed.config;
  const problems = [
    ...(parsed.unknownFields.length > 0
      ? [`unknown field(s): ${parsed.unknownFields.join(', ')}`]
      : []),
    ...parsed.issues.map((issue) => `${issue.path}: ${issue.message}`),
  ];
  throw new InvalidRequestError(
    `Invalid config for a ${type} data source: ${problems.join('; ')}`,
    {
      ...(parsed.issues.length > 0 ? { fields: parsed.issues } : {}),
      ...(parsed.unknownFields.length > 0 ? { unknown_fields: parsed.unknownFields } : {}),
    },
  );
}

export async function createDataSource(
  deps: DataSourceDependencies,
  orgId: string,
  input: CreateDataSourceInput,
): Promise<DataSource> {
  const config = validConfig(input.type, input.config);
  const now = deps.clock.now();
  const frequency = input.sync_frequency ?? 'manual';
  const source: DataSource = {
    id: newId('dataSource', now.getTime()),
    type: input.type,
    name: input.name,
    config,
    sync_frequency: frequency,
    // A scheduled source is due at once.
    next_sync_at: firstSyncAt(frequency, now),
    status: 'pending',
    ...(isConnectorType(input.type) ? { connection_status: 'Disconnected' as const } : {}),
    chunks_indexed: 0,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    current_job: null,
    last_job: null,
  };
  await deps.dataSources.create(orgId, source, [dataSourceCreated(orgId, source, now)]);
  return source;
}

export async function getDataSource(
  deps: Pick<DataSourceDependencies, 'dataSources'>,
  orgId: string,
  id: string,
): Promise<DataSource> {
  const source = await deps.dataSources.get(orgId, id);
  if (!source) throw new NotFoundError(`No data source ${id}`);
  return source;
}

export function listDataSources(
  deps: Pick<DataSourceDependencies, 'dataSources'>,
  orgId: string,
  filter: DataSourceFilter,
  page: PageRequest,
): Promise<Page<DataSource>> {
  return deps.dataSources.list(orgId, filter, page);
}

export interface UpdateDataSourceInput {
  readonly name?: string | undefined;
  readonly config?: unknown;
  readonly sync_frequency?: SyncFrequency | undefined;
  readonly type?: DataSourceType | undefined;
}

export async function updateDataSource(
  deps: DataSourceDependencies,
  orgId: string,
  id: string,
  input: UpdateDataSourceInput,
): Promise<DataSource> {
  const existing = await getDataSource(deps, orgId, id);
  refuseBuiltIn(existing, 'changed');
  if (input.type !== undefined && input.type !== existing.type) {
    throw new InvalidRequestError('The type of a data source cannot change; create a new one', {
      fields: [{ path: 'type', message: 'cannot change' }],
    });
  }
  const now = deps.clock.now();
  // A new frequency counts its first interval from now; `manual`
  // leaves the schedule. The same frequency again keeps the schedule as it
  // is, unless the source has none (written before schedules existed).
  const frequency = input.sync_frequency;
  const rescheduled =
    frequency !== undefined &&
    (frequency !== existing.sync_frequency ||
      (isScheduled(frequency) && existing.next_sync_at === null))
      ? {
          sync_frequency: frequency,
          next_sync_at: nextSyncAfter(frequency, now),
        }
      : {};
  const changes: DataSourceChanges = {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...rescheduled,
    ...(input.config !== undefined ? { config: validConfig(existing.type, input.config) } : {}),
  };
  const updated = await deps.dataSources.update(orgId, id, changes, now.toISOString());
  if (!updated) throw new NotFoundError(`No data source ${id}`);
  return updated;
}

/**
 * The built-in knowledge base is the organization's articles
 * (`/api/v1/kb`); it is neither renamed, reconfigured nor deleted here.
 */
function refuseBuiltIn(
  source: DataSource,
  action: 'changed' | 'deleted',
): asserts source is DataSource & { readonly type: DataSourceType } {
  if (source.type !== 'kb') return;
  throw new ConflictError(
    `Data source ${source.id} is the organization's built-in knowledge base and cannot be ${action}; manage its articles at /api/v1/kb`,
    { reason: 'built_in_data_source' },
  );
}

/** A data source that agents still use cannot be deleted: their answers would lose sources silently. */
export async function deleteDataSource(
  deps: DataSourceDependencies,
  orgId: string,
  id: string,
): Promise<void> {
  const source = await getDataSource(deps, orgId, id);
  refuseBuiltIn(source, 'deleted');
  const users = await deps.agents.idsReferencing(orgId, id);
  if (users.length > 0) {
    throw new ConflictError(
      `Data source ${id} is used by ${users.length} agent(s); remove it from them first`,
      { agent_ids: users },
    );
  }
  // The purge of its chunks first (the sync worker deletes them): if
  // the record's deletion then fails, a retry finishes it. Until the purge
  // runs, and after it for chunks a sync still running writes, the chunks
  // are never searched: searches are limited to existing data sources.
  // A connector's grant, still sealed, rides along to be revoked at the provider.
  const sealed = isConnectorType(source.type)
    ? await deps.connections.sealedTokens(orgId, id)
    : null;
  await deps.syncQueue.send({
    org_id: orgId,
    data_source_id: id,
    purge: 'data_source',
    ...(sealed ? { revoke: { type: source.type as ConnectorType, sealed_tokens: sealed } } : {}),
  });
  // Then its files: bytes before records, so no record outlives its bytes
  // unnoticed; an upload arriving after this finds no data source and is
  // deleted by ingestion.
  await deps.fileStorage.deleteUnder(dataSourceFilesPrefix(orgId, id));
  for (const file of await deps.files.list(orgId, id)) await deps.files.delete(orgId, id, file.id);
  const deleted = await deps.dataSources.delete(orgId, id);
  if (!deleted) throw new NotFoundError(`No data source ${id}`);
}

export interface SyncRequestResult {
  readonly job: SyncJob;
  readonly dataSource: DataSource;
  readonly created: boolean;
}

/**
 * Records a sync job unless one is queued or running (then that one is
 * returned), and puts it on the sync queue. The job is recorded first, so a
 * failure to enqueue loses nothing: a later request finds the job still
 * `queued` and enqueues it again. Workers treat the job id as the idempotency
 * key, so a job enqueued twice runs once.
 */
export async function requestSync(
  deps: {
    readonly dataSources: Pick<DataSourceRepository, 'claimSyncJob'>;
    readonly syncQueue: SyncJobQueue;
    readonly clock: Clock;
  },
  orgId: string,
  id: string,
): Promise<SyncRequestResult> {
  const now = deps.clock.now();
  const claim = await deps.dataSources.claimSyncJob(
    orgId,
    id,
    newSyncJob(newId('syncJob', now.getTime()), now.toISOString()),
  );
  if (!claim) throw new NotFoundError(`No data source ${id}`);
  if (claim.job.status === 'queued') {
    await deps.syncQueue.send({ org_id: orgId, data_source_id: id, job_id: claim.job.id });
  }
  return { job: claim.job, dataSource: claim.dataSource, created: claim.created };
}

export async function getSyncStatus(
  deps: Pick<DataSourceDependencies, 'dataSources' | 'clock'>,
  orgId: string,
  id: string,
): Promise<SyncStatus> {
  return syncStatusOf(await getDataSource(deps, orgId, id), deps.clock.now());
}
