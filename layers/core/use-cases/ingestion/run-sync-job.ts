import { createHash } from 'node:crypto';
import { ConnectionLostError, NotConnectedError } from '../../domain/connector';
import {
  type DataSource,
  type SkippedDocument,
  SYNC_SKIPPED_KEPT,
  type SyncJob,
} from '../../domain/data-source';
import type { Clock } from '../../ports/clock.port';
import type { DataSourceRepository } from '../../ports/data-source-repository.port';
import { type DocumentChunker, DocumentRefusedError } from '../../ports/document-chunker.port';
import type { Embedder } from '../../ports/embedder.port';
import type { RetrievalIndex } from '../../ports/retrieval-index.port';
import type { SourceReader } from '../../ports/source-reader.port';
import type { SyncJobMessage } from '../../ports/sync-job-queue.port';
import { domainEvent } from '../events/domain-events';
import { indexDocument } from './index-document';
import { documentSize, IndexingPipeline } from './indexing-pipeline';

export interface SyncDependencies {
  readonly dataSources: Pick<
    DataSourceRepository,
    | 'get'
    | 'startSyncJob'
    | 'recordSyncProgress'
    | 'finishSyncJob'
    | 'syncCursor'
    | 'commitSyncCursor'
  >;
  readonly retrieval: RetrievalIndex;
  readonly embedder: Embedder;
  readonly chunker: DocumentChunker;
  /** The reader for a data source's type (website crawler, uploaded files). */
  readonly readerFor: (source: DataSource, orgId: string) => SourceReader;
  readonly clock: Clock;
}

/** Progress is written at most this often ("as it goes", without a write per page). */
const PROGRESS_EVERY_MS = 1_000;
/** Examples of skipped documents kept in the job's error, for people. */
const SKIP_EXAMPLES = 3;

/** A document's id, stable for its key within its data source, shaped like any doc_ id. */
export function documentIdFor(dataSourceId: string, key: string): string {
  const digest = createHash('sha256').update(`${dataSourceId}\n${key}`).digest();
  const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';
  let body = '';
  for (let i = 0; i < 26; i += 1) body += alphabet.charAt((digest[i] ?? 0) % 32);
  return `doc_${body}`;
}

/** What a run did: nothing (not the current job), or the job as it finished. */
export type SyncOutcome =
  | { readonly outcome: 'not-current' }
  | { readonly outcome: 'finished'; readonly job: SyncJob };

/**
 * Runs one sync job to the end. Idempotent per job id and
 * resumable: a message for a job that is no longer current does nothing; a
 * job found `running` (its worker died) simply runs again, and since
 * unchanged documents are recognised by their content hash and skipped, a
 * rerun costs fetching, not re-embedding. Per-document failures are recorded
 * without failing the sync; failures of our own dependencies throw, so the
 * message comes back and the job resumes. Documents that disappeared, and
 * documents no longer found when the crawl completes, are deleted from the
 * index.
 */
export async function runSyncJob(
  deps: SyncDependencies,
  message: SyncJobMessage,
  signal: AbortSignal = new AbortController().signal,
): Promise<SyncOutcome> {
  const { org_id: orgId, data_source_id: dataSourceId, job_id: jobId } = message;
  const started = deps.clock.now();
  const source = await deps.dataSources.startSyncJob(
    orgId,
    dataSourceId,
    jobId,
    started.toISOString(),
  );
  const job = source?.current_job;
  if (!source || !job || job.id !== jobId) return { outcome: 'not-current' };

  const reader = deps.readerFor(source, orgId);
  // With the embedder's id: documents another embedder indexed count as changed (re-embedded).
  const indexed = await deps.retrieval.documentHashes(orgId, dataSourceId, deps.embedder.id);
  const cursor = (await otherEmbedderIndexed(deps, orgId, dataSourceId, indexed))
    ? // The deployment changed its embedder: an incremental reader's cursor would skip the
      // unchanged items, whose old vectors must all be replaced. Read the whole source.
      null
    : await deps.dataSources.syncCursor(orgId, dataSourceId);
  const seen = new Set<string>();
  const skipped: string[] = [];
  /** The first skipped documents with their reasons, for the status while the job runs. */
  const skippedKept: SkippedDocument[] = [];
  const skip = (key: string, reason: string) => {
    if (skipped.length < SKIP_EXAMPLES) skipped.push(`${key}: ${reason}`);
    else skipped.push('');
    if (skippedKept.length < SYNC_SKIPPED_KEPT) skippedKept.push({ key, reason });
  };
  /** What an incremental reader says exists now; `null` for readers that yield everything. */
  let inventory: Set<string> | null = null;
  let processed = 0;
  let tokensProcessed = 0;
  let lastProgress = 0;
  let expected = reader.expectedTotal(source);
  /** A connector that lost its grant or was never connected ends the job with this reason. */
  let stopped: { reason: string; connectionFailed: boolean } | null = null;
  /** Why the reader ended before the end of the source (a crawl budget), if it did. */
  let stoppedEarly: string | undefined;
  const recordProgress = async () => {
    await deps.dataSources.recordSyncProgress(orgId, dataSourceId, jobId, {
      documents_total: expected === null ? null : Math.max(expected, processed),
      documents_processed: processed,
      chunks_indexed: await deps.retrieval.count({ orgId, dataSourceIds: [dataSourceId] }),
      documents_skipped: skipped.length,
      skipped: skippedKept,
    });
  };

  const pipeline = new IndexingPipeline();
  try {
    for await (const item of reader.read(source, signal, {
      cursor,
      isIndexed: (key) => indexed.has(documentIdFor(dataSourceId, key)),
    })) {
      if (item.status === 'checkpoint') {
        // What came before is indexed; a crash from here on resumes at this cursor.
        await pipeline.drain();
        await recordProgress();
        await deps.dataSources.commitSyncCursor(orgId, dataSourceId, jobId, item.cursor);
        continue;
      }
      if (item.status === 'stopped') {
        stoppedEarly = item.detail;
        continue;
      }
      if (item.status === 'inventory') {
        inventory = new Set(item.keys.map((key) => documentIdFor(dataSourceId, key)));
        expected = item.keys.length;
        continue;
      }
      const documentId = item.documentId ?? documentIdFor(dataSourceId, item.key);
      const refusal = item.status === 'ok' ? null : item.detail;
      if (item.status === 'ok') {
        if (indexed.get(documentId) === item.contentHash) {
          seen.add(documentId);
          processed += 1;
        } else {
          const { document, contentHash, key } = item;
          // The same document twice (two addresses, one key) waits for its first write.
          await pipeline.settled(documentId);
          // One this sync's index read did not list (nor this run wrote) has no chunks to replace.
          const isNew = !indexed.has(documentId);
          await pipeline.add(documentId, documentSize(document), async () => {
            try {
              const written = await indexDocument(
                deps,
                orgId,
                dataSourceId,
                documentId,
                document,
                contentHash,
                { new: isNew },
              );
              tokensProcessed += written.tokens;
              indexed.set(documentId, contentHash);
              seen.add(documentId);
              processed += 1;
            } catch (error) {
              // Too big or too slow to chunk where the work runs: skipped like an unreadable page, and not kept.
              if (!(error instanceof DocumentRefusedError)) throw error;
              skip(key, error.message);
            }
          });
        }
      } else {
        if (item.reason === 'gone' && indexed.has(documentId)) {
          await pipeline.settled(documentId);
          await deps.retrieval.deleteDocument(orgId, dataSourceId, documentId);
          indexed.delete(documentId);
        }
        skip(item.key, refusal ?? item.reason);
      }
      const now = deps.clock.now().getTime();
      if (now - lastProgress >= PROGRESS_EVERY_MS) {
        lastProgress = now;
        await recordProgress();
      }
    }
    // Every document read is indexed (or refused) before the job goes on.
    await pipeline.drain();
  } catch (error) {
    // Nothing is left running behind an error: the documents under way finish (or fail) first.
    await pipeline.drain().catch(() => undefined);
    // The provider refused the grant (or there is none): the job ends with the reason, no retry.
    if (error instanceof ConnectionLostError) {
      stopped = { reason: error.message, connectionFailed: true };
    } else if (error instanceof NotConnectedError) {
      stopped = { reason: error.message, connectionFailed: false };
    } else {
      throw error;
    }
  }

  // A read that ended normally (not at a budget) saw everything there is: what it did not see (or, for an
  // incremental reader, what its inventory does not list) was removed.
  if (!signal.aborted && stopped === null && stoppedEarly === undefined) {
    const present = inventory;
    for (const documentId of [...indexed.keys()]) {
      // Read in this run, or listed as existing (an item created after the inventory was read is kept).
      const kept = seen.has(documentId) || present?.has(documentId) === true;
      if (!kept) {
        await deps.retrieval.deleteDocument(orgId, dataSourceId, documentId);
        indexed.delete(documentId);
      }
    }
  }

  const finishedAt = deps.clock.now();
  const chunksIndexed = await deps.retrieval.count({ orgId, dataSourceIds: [dataSourceId] });
  // Active even with some skipped pages; failed when nothing usable came out. An
  // incremental read that found nothing new is usable while its documents stay indexed.
  const usable = stopped === null && (processed > 0 || (inventory !== null && indexed.size > 0));
  const skippedCount = skipped.length;
  const examples = skipped.filter((example) => example !== '').join('; ');
  const notes = [
    ...(signal.aborted
      ? [`stopped at the time limit after ${processed} document(s); the next sync continues`]
      : []),
    ...(stoppedEarly !== undefined && !signal.aborted
      ? [`stopped after ${processed} document(s): ${stoppedEarly}`]
      : []),
    ...(skippedCount > 0 ? [`${skippedCount} document(s) skipped, e.g. ${examples}`] : []),
  ];
  const error = stopped
    ? stopped.reason
    : usable
      ? notes.length > 0
        ? notes.join('; ')
        : null
      : `Nothing usable was found${notes.length > 0 ? `: ${notes.join('; ')}` : ''}`;
  const finishedJob: SyncJob = {
    ...job,
    status: usable ? 'succeeded' : 'failed',
    started_at: job.started_at ?? started.toISOString(),
    finished_at: finishedAt.toISOString(),
    documents_total: inventory === null ? processed : Math.max(inventory.size, processed),
    documents_processed: processed,
    chunks_indexed: chunksIndexed,
    documents_skipped: skippedCount,
    skipped: skippedKept,
    error,
  };
  const stats = {
    documentsProcessed: processed,
    tokensProcessed,
    duration: finishedAt.getTime() - Date.parse(finishedJob.started_at ?? started.toISOString()),
  };
  const event = usable
    ? domainEvent(
        'datasource.processed',
        orgId,
        // Spec: a dataSource object with upper-case type and status, and stats.
        {
          dataSource: {
            id: source.id,
            name: source.name,
            type: source.type.toUpperCase(),
            status: 'COMPLETED',
            stats,
          },
        },
        finishedAt,
      )
    : domainEvent(
        'datasource.failed',
        orgId,
        {
          dataSource: {
            id: source.id,
            name: source.name,
            type: source.type.toUpperCase(),
            status: 'FAILED',
            stats,
          },
          error,
          ...(stopped?.connectionFailed ? { connection_status: 'Connection failed' } : {}),
        },
        finishedAt,
      );
  await deps.dataSources.finishSyncJob(
    orgId,
    dataSourceId,
    {
      job: finishedJob,
      status: usable ? 'active' : 'failed',
      chunksIndexed,
      // Revoked at the provider: `Connection failed` until reconnected, in the same write.
      ...(stopped?.connectionFailed ? { connectionFailed: true } : {}),
    },
    [event],
  );
  return { outcome: 'finished', job: finishedJob };
}

/**
 * Ends a job that cannot run (its message's last delivery failed): the
 * source becomes `failed` with the reason and `datasource.failed` is stored,
 * instead of the source staying `processing` forever.
 */
export async function failSyncJob(
  deps: SyncDependencies,
  message: SyncJobMessage,
  reason: string,
): Promise<void> {
  const { org_id: orgId, data_source_id: dataSourceId, job_id: jobId } = message;
  const source = await deps.dataSources.get(orgId, dataSourceId);
  const job = source?.current_job;
  if (!source || !job || job.id !== jobId) return;
  const now = deps.clock.now();
  const chunksIndexed = await deps.retrieval
    .count({ orgId, dataSourceIds: [dataSourceId] })
    .catch(() => source.chunks_indexed);
  await deps.dataSources.finishSyncJob(
    orgId,
    dataSourceId,
    {
      job: { ...job, status: 'failed', finished_at: now.toISOString(), error: reason },
      status: 'failed',
      chunksIndexed,
    },
    [
      domainEvent(
        'datasource.failed',
        orgId,
        {
          dataSource: {
            id: source.id,
            name: source.name,
            type: source.type.toUpperCase(),
            status: 'FAILED',
          },
          error: reason,
        },
        now,
      ),
    ],
  );
}

/**
 * Whether some of the data source's documents were embedded by another
 * embedder than the deployment's: `indexed` (asked with the embedder's id)
 * then shows an empty hash where the plain hashes show a real one. Asked
 * again only when `indexed` has an empty hash at all, which is rare.
 */
async function otherEmbedderIndexed(
  deps: Pick<SyncDependencies, 'retrieval' | 'embedder'>,
  orgId: string,
  dataSourceId: string,
  indexed: ReadonlyMap<string, string>,
): Promise<boolean> {
  if (![...indexed.values()].includes('')) return false;
  const plain = await deps.retrieval.documentHashes(orgId, dataSourceId);
  return [...indexed].some(([documentId, hash]) => hash === '' && plain.get(documentId) !== '');
}
