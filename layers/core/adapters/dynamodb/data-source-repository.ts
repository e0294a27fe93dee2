import { createHash } from 'node:crypto';
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import {
  type DataSource,
  type DataSourceChanges,
  isScheduled,
  SYNC_FREQUENCIES,
  type SyncJob,
} from '../../domain/data-source';
import type { DomainEvent } from '../../domain/events';
import { type Page, type PageRequest, pageOf } from '../../domain/pagination';
import type {
  DataSourceFilter,
  DataSourceRepository,
  DueDataSource,
  NextSyncMove,
  SyncJobClaim,
} from '../../ports/data-source-repository.port';
import { isConditionFailure } from './document-client';
import { OrgPartitionItems } from './org-partition-items';
import { queryAll } from './query-all';
import { keys, TABLE_KEYS } from './table-design';

/** BatchGetItem takes at most 100 keys a call. */
const BATCH_GET_MAX = 100;

/**
 * The sparse GSI2 entry of a data source due at `nextSyncAt`. The shard
 * derives from the item's key, so it never changes with the due time.
 */
export function scheduleIndexKeys(
  orgId: string,
  id: string,
  nextSyncAt: string,
): { GSI2PK: string; GSI2SK: string } {
  const { PK, SK } = keys.dataSource(orgId, id);
  const shard = createHash('sha256').update(`${PK}|${SK}`).digest()[0] ?? 0;
  return {
    GSI2PK: keys.schedulePartition(shard % keys.scheduleShards),
    GSI2SK: keys.scheduleSortKey(nextSyncAt, orgId, id),
  };
}

/** Jobs written before skipped documents were kept read as having skipped none. */
function withSkipped(job: SyncJob | null | undefined): SyncJob | null {
  if (!job) return null;
  return job.skipped === undefined || job.documents_skipped === undefined
    ? { ...job, documents_skipped: job.documents_skipped ?? 0, skipped: job.skipped ?? [] }
    : job;
}

/**
 * Items written before schedules existed have no `next_sync_at`; they read
 * as unscheduled. Their jobs read as P248 shapes them.
 */
function withSchedule(source: DataSource): DataSource {
  return {
    ...source,
    next_sync_at: source.next_sync_at ?? null,
    current_job: withSkipped(source.current_job),
    last_job: withSkipped(source.last_job),
  };
}

const SCHEDULED_FREQUENCIES = SYNC_FREQUENCIES.filter(isScheduled);

export class DynamoDbDataSourceRepository implements DataSourceRepository {
  private readonly items: OrgPartitionItems<DataSource>;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    this.items = new OrgPartitionItems<DataSource>(
      client,
      tableName,
      'data_source',
      keys.dataSourcePrefix,
      withSchedule,
    );
  }

  create(orgId: string, source: DataSource, events: readonly DomainEvent[]): Promise<void> {
    const schedule = source.next_sync_at
      ? scheduleIndexKeys(orgId, source.id, source.next_sync_at)
      : {};
    return this.items.create(orgId, source, events, schedule);
  }

  async createIfAbsent(
    orgId: string,
    source: DataSource,
    events: readonly DomainEvent[],
  ): Promise<boolean> {
    try {
      await this.create(orgId, source, events);
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  get(orgId: string, id: string): Promise<DataSource | null> {
    return this.items.get(orgId, id);
  }

  async existingIds(orgId: string, ids: readonly string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (let start = 0; start < ids.length; start += BATCH_GET_MAX) {
      let pending: Record<string, unknown>[] | undefined = ids
        .slice(start, start + BATCH_GET_MAX)
        .map((id) => keys.dataSource(orgId, id));
      // Unprocessed keys are retried until none remain (throttling on DynamoDB).
      while (pending && pending.length > 0) {
        const result: BatchGetCommandOutput = await this.client.send(
          new BatchGetCommand({
            RequestItems: {
              [this.tableName]: {
                Keys: pending,
                ProjectionExpression: 'id, deleted_at',
                ConsistentRead: true,
              },
            },
          }),
        );
        for (const item of result.Responses?.[this.tableName] ?? []) {
          if (item.deleted_at === undefined) found.add(String(item.id));
        }
        pending = result.UnprocessedKeys?.[this.tableName]?.Keys;
      }
    }
    return found;
  }

  async list(
    orgId: string,
    filter: DataSourceFilter,
    page: PageRequest,
  ): Promise<Page<DataSource>> {
    const sources = await this.items.queryAll(
      orgId,
      filter.status
        ? {
            filterExpression: '#status = :status',
            names: { '#status': 'status' },
            values: { ':status': filter.status },
          }
        : {},
    );
    return pageOf(sources, page);
  }

  /** A new `next_sync_at` moves the source in the schedule index, or out of it when `null`. */
  update(
    orgId: string,
    id: string,
    changes: DataSourceChanges,
    updatedAt: string,
  ): Promise<DataSource | null> {
    const next = changes.next_sync_at;
    const storage =
      next === undefined
        ? {}
        : next === null
          ? { remove: [TABLE_KEYS.gsi2.partitionKey, TABLE_KEYS.gsi2.sortKey] }
          : { set: scheduleIndexKeys(orgId, id, next) };
    return this.items.update(orgId, id, { ...changes, updated_at: updatedAt }, { storage });
  }

  delete(orgId: string, id: string): Promise<boolean> {
    return this.items.delete(orgId, id);
  }

  /**
   * Queries each GSI2 shard for entries due by `now`, page by page. The index
   * is eventually consistent: an entry may be a moment stale, which the
   * conditional `moveNextSync` settles.
   */
  async listDueForSync(now: string): Promise<DueDataSource[]> {
    const { gsi2 } = TABLE_KEYS;
    const due: DueDataSource[] = [];
    for (let shard = 0; shard < keys.scheduleShards; shard += 1) {
      const items = await queryAll(this.client, {
        TableName: this.tableName,
        IndexName: gsi2.indexName,
        KeyConditionExpression: '#pk = :partition AND #sk <= :due',
        ExpressionAttributeNames: { '#pk': gsi2.partitionKey, '#sk': gsi2.sortKey },
        ExpressionAttributeValues: {
          ':partition': keys.schedulePartition(shard),
          ':due': keys.scheduleDueBound(now),
        },
      });
      for (const item of items) {
        const frequency = SCHEDULED_FREQUENCIES.find((f) => f === item.sync_frequency);
        if (!frequency || typeof item.next_sync_at !== 'string') continue;
        due.push({
          orgId: String(item.org_id),
          dataSourceId: String(item.id),
          frequency,
          nextSyncAt: item.next_sync_at,
        });
      }
    }
    return due;
  }

  async moveNextSync(orgId: string, id: string, move: NextSyncMove): Promise<boolean> {
    const moved = await this.items.updateIf(orgId, id, {
      expression: 'SET next_sync_at = :to, #sk = :sortKey',
      condition: 'next_sync_at = :from AND sync_frequency = :frequency',
      names: { '#sk': TABLE_KEYS.gsi2.sortKey },
      values: {
        ':to': move.to,
        ':sortKey': scheduleIndexKeys(orgId, id, move.to).GSI2SK,
        ':from': move.from,
        ':frequency': move.frequency,
      },
    });
    return moved !== null;
  }

  async startSyncJob(
    orgId: string,
    id: string,
    jobId: string,
    startedAt: string,
  ): Promise<DataSource | null> {
    const started = await this.items.updateIf(orgId, id, {
      expression:
        'SET current_job.#status = :running, current_job.started_at = :at, #status = :processing',
      condition: 'current_job.id = :job AND current_job.#status = :queued',
      names: { '#status': 'status' },
      values: {
        ':running': 'running',
        ':at': startedAt,
        ':processing': 'processing',
        ':job': jobId,
        ':queued': 'queued',
      },
    });
    if (started) return started;
    const current = await this.get(orgId, id);
    return current?.current_job?.id === jobId ? current : null;
  }

  async recordSyncProgress(
    orgId: string,
    id: string,
    jobId: string,
    progress: Pick<
      SyncJob,
      'documents_total' | 'documents_processed' | 'chunks_indexed' | 'documents_skipped' | 'skipped'
    >,
  ): Promise<void> {
    await this.items.updateIf(orgId, id, {
      expression:
        'SET current_job.documents_total = :total, current_job.documents_processed = :processed, current_job.chunks_indexed = :chunks, current_job.documents_skipped = :skippedCount, current_job.skipped = :skipped',
      condition: 'current_job.id = :job',
      values: {
        ':total': progress.documents_total,
        ':processed': progress.documents_processed,
        ':chunks': progress.chunks_indexed,
        ':skippedCount': progress.documents_skipped,
        ':skipped': progress.skipped,
        ':job': jobId,
      },
    });
  }

  async finishSyncJob(
    orgId: string,
    id: string,
    finished: {
      job: SyncJob;
      status: 'active' | 'failed';
      chunksIndexed: number;
      connectionFailed?: boolean;
    },
    events: readonly DomainEvent[],
  ): Promise<boolean> {
    const done = await this.items.updateIf(orgId, id, {
      expression: `SET current_job = :none, last_job = :job, #status = :status, chunks_indexed = :chunks${
        finished.connectionFailed ? ', connection_status = :connectionFailed' : ''
      }`,
      condition: 'current_job.id = :jobId',
      names: { '#status': 'status' },
      values: {
        ':none': null,
        ':job': finished.job,
        ':status': finished.status,
        ':chunks': finished.chunksIndexed,
        ':jobId': finished.job.id,
        ...(finished.connectionFailed ? { ':connectionFailed': 'Connection failed' } : {}),
      },
      events,
    });
    return done !== null;
  }

  async syncCursor(orgId: string, id: string): Promise<string | null> {
    const item = await this.items.getItem(orgId, id);
    return typeof item?.sync_cursor === 'string' ? item.sync_cursor : null;
  }

  async commitSyncCursor(
    orgId: string,
    id: string,
    jobId: string,
    cursor: string,
  ): Promise<boolean> {
    const done = await this.items.updateIf(orgId, id, {
      expression: 'SET sync_cursor = :cursor',
      condition: 'current_job.id = :job',
      values: { ':cursor': cursor, ':job': jobId },
    });
    return done !== null;
  }

  /**
   * D22 in one conditional write: the job becomes current only if there is
   * none. When the condition fails, the current job is read and returned; if
   * it finished in between, the claim is tried again.
   */
  async claimSyncJob(orgId: string, id: string, job: SyncJob): Promise<SyncJobClaim | null> {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const claimed = await this.items.updateIf(orgId, id, {
        expression: 'SET current_job = :job',
        condition: 'attribute_not_exists(current_job) OR current_job = :none',
        values: { ':job': job, ':none': null },
      });
      if (claimed) return { job, created: true, dataSource: claimed };
      const current = await this.get(orgId, id);
      if (!current) return null;
      if (current.current_job)
        return { job: current.current_job, created: false, dataSource: current };
    }
    throw new Error(`Could not claim a sync job for ${id}: the current job kept changing`);
  }

  async recordDirectIndexing(
    orgId: string,
    id: string,
    change: { readonly chunksIndexed: number; readonly status?: 'active' | 'failed' },
    events: readonly DomainEvent[] = [],
  ): Promise<boolean> {
    const done = await this.items.updateIf(orgId, id, {
      expression: change.status
        ? 'SET chunks_indexed = :chunks, #status = :status'
        : 'SET chunks_indexed = :chunks',
      // `failed` means nothing usable, so an upload that failed never
      // overrides a source that has other files indexed.
      condition:
        change.status === 'failed' ? '#status IN (:pending, :failed)' : '#status <> :processing',
      names: { '#status': 'status' },
      values: {
        ':chunks': change.chunksIndexed,
        ...(change.status ? { ':status': change.status } : {}),
        ...(change.status === 'failed'
          ? { ':pending': 'pending', ':failed': 'failed' }
          : { ':processing': 'processing' }),
      },
      events,
    });
    return done !== null;
  }
}
