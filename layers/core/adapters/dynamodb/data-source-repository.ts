import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { DataSource, DataSourceChanges, SyncJob } from '../../domain/data-source';
import type { DomainEvent } from '../../domain/events';
import { type Page, type PageRequest, pageOf } from '../../domain/pagination';
import type {
  DataSourceFilter,
  DataSourceRepository,
  SyncJobClaim,
} from '../../ports/data-source-repository.port';
import { OrgPartitionItems } from './org-partition-items';
import { keys } from './table-design';

/** BatchGetItem takes at most 100 keys a call. */
const BATCH_GET_MAX = 100;

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
    );
  }

  create(orgId: string, source: DataSource, events: readonly DomainEvent[]): Promise<void> {
    return this.items.create(orgId, source, events);
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

  update(
    orgId: string,
    id: string,
    changes: DataSourceChanges,
    updatedAt: string,
  ): Promise<DataSource | null> {
    return this.items.update(orgId, id, { ...changes, updated_at: updatedAt });
  }

  delete(orgId: string, id: string): Promise<boolean> {
    return this.items.delete(orgId, id);
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
    progress: Pick<SyncJob, 'documents_total' | 'documents_processed' | 'chunks_indexed'>,
  ): Promise<void> {
    await this.items.updateIf(orgId, id, {
      expression:
        'SET current_job.documents_total = :total, current_job.documents_processed = :processed, current_job.chunks_indexed = :chunks',
      condition: 'current_job.id = :job',
      values: {
        ':total': progress.documents_total,
        ':processed': progress.documents_processed,
        ':chunks': progress.chunks_indexed,
        ':job': jobId,
      },
    });
  }

  async finishSyncJob(
    orgId: string,
    id: string,
    finished: { job: SyncJob; status: 'active' | 'failed'; chunksIndexed: number },
    events: readonly DomainEvent[],
  ): Promise<boolean> {
    const done = await this.items.updateIf(orgId, id, {
      expression:
        'SET current_job = :none, last_job = :job, #status = :status, chunks_indexed = :chunks',
      condition: 'current_job.id = :jobId',
      names: { '#status': 'status' },
      values: {
        ':none': null,
        ':job': finished.job,
        ':status': finished.status,
        ':chunks': finished.chunksIndexed,
        ':jobId': finished.job.id,
      },
      events,
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
}
