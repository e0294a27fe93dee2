import { Logger } from '@aws-lambda-powertools/logger';
import type { Context, SQSRecord } from 'aws-lambda';
import * as z from 'zod/mini';
import { isId } from '../../layers/core/domain/ids';
import { fileObjectKey } from '../../layers/core/domain/uploaded-file';
import { MetricUnit, serviceMetrics } from '../../layers/core/observability/metrics';
import type {
  FileReindexMessage,
  SyncJobMessage,
} from '../../layers/core/ports/sync-job-queue.port';
import { revokeDeletedGrant } from '../../layers/core/use-cases/connectors/connections';
import {
  failUploadedFile,
  ingestUploadedFile,
} from '../../layers/core/use-cases/ingestion/ingest-uploaded-file';
import { purgeIndex } from '../../layers/core/use-cases/ingestion/purge-index';
import { failSyncJob, runSyncJob } from '../../layers/core/use-cases/ingestion/run-sync-job';
import { indexKbArticle } from '../../layers/core/use-cases/kb/index-kb-article';
import { RetryLaterError } from '../../layers/core/workers/retry-later-error';
import { receiveCountOf, sqsWorker, workingAttemptsOf } from '../../layers/core/workers/sqs-worker';
import { dependencies } from './wiring';

const logger = new Logger({ serviceName: 'svc-sync-worker' });

const orgId = z.string().check(z.refine((value) => isId('organization', value)));
const dataSourceId = z.string().check(z.refine((value) => isId('dataSource', value)));
const syncQueueMessage = z.union([
  z.strictObject({
    org_id: orgId,
    data_source_id: dataSourceId,
    job_id: z.string().check(z.refine((value) => isId('syncJob', value))),
  }),
  z.strictObject({
    org_id: orgId,
    data_source_id: dataSourceId,
    purge: z.literal('data_source'),
    // A deleted connector's sealed grant, to revoke at the provider.
    revoke: z.optional(
      z.strictObject({
        type: z.enum(['confluence', 'slack', 'google_drive', 'sharepoint']),
        sealed_tokens: z.string().check(z.minLength(1), z.maxLength(64_000)),
      }),
    ),
  }),
  z.strictObject({
    org_id: orgId,
    data_source_id: dataSourceId,
    purge: z.literal('document'),
    document_id: z.string().check(z.refine((value) => isId('document', value))),
  }),
  // An uploaded file to index again from its stored bytes.
  z.strictObject({
    org_id: orgId,
    data_source_id: dataSourceId,
    reindex: z.literal('file'),
    document_id: z.string().check(z.refine((value) => isId('document', value))),
  }),
  // A knowledge-base article changed.
  z.strictObject({
    org_id: orgId,
    data_source_id: dataSourceId,
    kb_article_id: z.string().check(z.refine((value) => isId('kbArticle', value))),
    action: z.enum(['reconcile', 'remove']),
  }),
]);

/** The sync queue's redrive after this many receives (lib/local/local-dependencies.ts, the stack). */
const LAST_RECEIVE = 5;
/** Deliveries that may run a job; the last one only ends it, so its source never stays `processing`. */
const WORKING_ATTEMPTS = workingAttemptsOf(LAST_RECEIVE);
/** Time kept back before the Lambda deadline to record the job's end and its event. */
const FINISH_MARGIN_MS = 60_000;

/**
 * The sync queue's consumer (issue 3): runs each sync job to the end,
 * purges the chunks of deleted data sources and files, indexes a file
 * again when asked, and indexes
 * or removes knowledge-base articles as they are published, changed,
 * unpublished or deleted. A job that
 * throws (a dependency down) comes back after the queue's visibility
 * timeout and resumes; on its last delivery it is marked failed instead, so
 * its data source never stays `processing`. A crawl stops early enough
 * before the Lambda deadline to record what it did (the stack's batch size
 * is 1: a sync is heavy).
 */
export const handler = sqsWorker({
  logger,
  messageKind: 'sync',
  parse: (body) => syncQueueMessage.parse(body),
  handle: handleMessage,
});

async function handleMessage(
  message: z.infer<typeof syncQueueMessage>,
  record: SQSRecord,
  context: Context | undefined,
): Promise<void> {
  if ('purge' in message) {
    try {
      await purgeIndex(dependencies(), message);
    } catch (error) {
      logger.error('Purging deleted chunks failed; it will be retried', {
        data_source_id: message.data_source_id,
        error: error as Error,
      });
      throw new RetryLaterError('purge failed', { cause: error });
    }
    if ('revoke' in message && message.revoke) await revokeGrant(message, message.revoke);
    return;
  }
  if ('reindex' in message) {
    await reindexFile(message, record);
    return;
  }
  if ('kb_article_id' in message) {
    try {
      const outcome = await indexKbArticle(dependencies(), message);
      logger.info('Knowledge-base article indexed', {
        kb_article_id: message.kb_article_id,
        outcome,
      });
    } catch (error) {
      logger.error('Indexing a knowledge-base article failed; it will be retried', {
        kb_article_id: message.kb_article_id,
        error: error as Error,
      });
      throw new RetryLaterError('knowledge-base indexing failed', { cause: error });
    }
    return;
  }
  await runJob(message, record, context);
}

async function runJob(
  message: SyncJobMessage,
  record: SQSRecord,
  context: Context | undefined,
): Promise<void> {
  const deps = dependencies();
  const remaining = context?.getRemainingTimeInMillis();
  const signal =
    remaining === undefined
      ? new AbortController().signal
      : AbortSignal.timeout(Math.max(1_000, remaining - FINISH_MARGIN_MS));
  const metrics = serviceMetrics();
  const attempt = receiveCountOf(record);
  if (attempt > WORKING_ATTEMPTS) {
    await endJob(
      message,
      `the sync did not finish in ${WORKING_ATTEMPTS} attempts: the worker stopped (crashed or timed out) while running it`,
    );
    return;
  }
  try {
    const result = await runSyncJob(deps, message, signal);
    if (result.outcome === 'not-current') {
      logger.info('Sync job no longer current', { job_id: message.job_id });
      return;
    }
    const { job } = result;
    metrics.addMetric(
      job.status === 'failed' ? 'SyncsFailed' : 'SyncsSucceeded',
      MetricUnit.Count,
      1,
    );
    metrics.addMetric('DocumentsIndexed', MetricUnit.Count, job.documents_processed);
    metrics.addMetric('ChunksIndexed', MetricUnit.Count, job.chunks_indexed);
    if (job.status === 'failed') {
      // Logged once, at the level operators watch: the reason is also on the source.
      logger.warn('Sync job failed', {
        job_id: job.id,
        org_id: message.org_id,
        data_source_id: message.data_source_id,
        reason: job.error,
      });
    } else {
      logger.info('Sync job finished', { job_id: job.id, documents: job.documents_processed });
    }
    return;
  } catch (error) {
    if (attempt < WORKING_ATTEMPTS) {
      logger.error('Sync job failed; it will be retried', {
        job_id: message.job_id,
        attempt,
        error: error as Error,
      });
      throw new RetryLaterError('sync job failed', { cause: error });
    }
    logger.error('Sync job failed on its last working attempt', {
      job_id: message.job_id,
      attempt,
      error: error as Error,
    });
    await endJob(
      message,
      `the sync failed ${attempt} times; last error: ${(error as Error).message}`,
    );
  }
}

/**
 * A file a person asked to index again, as an upload is ingested: retried
 * while attempts remain, then marked failed so it never stays `processing`.
 */
async function reindexFile(message: FileReindexMessage, record: SQSRecord): Promise<void> {
  const key = fileObjectKey(message.org_id, message.data_source_id, message.document_id);
  const attempt = receiveCountOf(record);
  try {
    if (attempt > WORKING_ATTEMPTS) throw new Error('the worker stopped while reading this file');
    const outcome = await ingestUploadedFile(dependencies(), key);
    logger.info('Uploaded file indexed again', { key, outcome });
  } catch (error) {
    if (attempt < WORKING_ATTEMPTS) {
      logger.error('Indexing a file again failed; it will be retried', {
        key,
        attempt,
        error: error as Error,
      });
      throw new RetryLaterError('re-indexing failed', { cause: error });
    }
    try {
      await failUploadedFile(
        dependencies(),
        key,
        `indexing again failed ${attempt} times; last error: ${(error as Error).message}`,
      );
    } catch (failure) {
      throw new RetryLaterError('could not mark the file failed', { cause: failure });
    }
  }
}

/** Best effort, once: the source and its tokens are gone already; the outcome is logged (never a token). */
async function revokeGrant(
  message: { org_id: string; data_source_id: string },
  grant: { type: 'confluence' | 'slack' | 'google_drive' | 'sharepoint'; sealed_tokens: string },
): Promise<void> {
  try {
    const outcome = await revokeDeletedGrant(
      dependencies(),
      message.org_id,
      message.data_source_id,
      grant,
    );
    if (outcome.revoked) {
      logger.info('Revoked a deleted data source grant', {
        data_source_id: message.data_source_id,
      });
    } else {
      logger.warn('Could not revoke a deleted data source grant', {
        data_source_id: message.data_source_id,
        reason: outcome.reason,
      });
    }
  } catch (error) {
    logger.warn('Could not revoke a deleted data source grant', {
      data_source_id: message.data_source_id,
      reason: (error as Error).message,
    });
  }
}

/** Marks a job failed for good; if even that fails, the message is retried (and dead-lettered at last). */
async function endJob(message: SyncJobMessage, reason: string): Promise<void> {
  try {
    await failSyncJob(dependencies(), message, reason);
    serviceMetrics().addMetric('SyncsFailed', MetricUnit.Count, 1);
    logger.warn('Sync job failed for good', { job_id: message.job_id, reason });
  } catch (failure) {
    logger.error('Could not mark the job failed', {
      job_id: message.job_id,
      error: failure as Error,
    });
    throw new RetryLaterError('could not mark the job failed', { cause: failure });
  }
}
