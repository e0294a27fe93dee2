import { Logger } from '@aws-lambda-powertools/logger';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { z } from 'zod';
import { isId } from '../../layers/core/domain/ids';
import type { SyncJobMessage } from '../../layers/core/ports/sync-job-queue.port';
import { failSyncJob, runSyncJob } from '../../layers/core/use-cases/ingestion/run-sync-job';
import { dependencies } from '../../layers/core/wiring/dependencies';

const logger = new Logger({ serviceName: 'svc-sync-worker' });

const syncJobMessage = z.strictObject({
  org_id: z.string().refine((value) => isId('organization', value)),
  data_source_id: z.string().refine((value) => isId('dataSource', value)),
  job_id: z.string().refine((value) => isId('syncJob', value)),
});

/** The sync queue's redrive after this many receives (lib/local/local-dependencies.ts, the stack). */
const LAST_RECEIVE = 5;
/** Time kept back before the Lambda deadline to record the job's end and its event. */
const FINISH_MARGIN_MS = 60_000;

/**
 * The sync queue's consumer (issue 3): runs each sync job to the end. A job
 * that throws (a dependency down) comes back after the queue's visibility
 * timeout and resumes; on its last delivery it is marked failed instead, so
 * its data source never stays `processing`. A crawl stops early enough before
 * the Lambda deadline to record what it did. Records are handled one after
 * another: a sync is heavy, and the stack's batch size is 1 anyway.
 */
export async function handler(event: SQSEvent, context?: Context): Promise<SQSBatchResponse> {
  const deps = dependencies();
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    if (!(await handleRecord(deps, record, context))) {
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}

async function handleRecord(
  deps: ReturnType<typeof dependencies>,
  record: SQSRecord,
  context: Context | undefined,
): Promise<boolean> {
  let message: SyncJobMessage;
  try {
    message = syncJobMessage.parse(JSON.parse(record.body));
  } catch {
    logger.error('Dropped a malformed sync message', { message_id: record.messageId });
    return true;
  }
  const remaining = context?.getRemainingTimeInMillis();
  const signal =
    remaining === undefined
      ? new AbortController().signal
      : AbortSignal.timeout(Math.max(1_000, remaining - FINISH_MARGIN_MS));
  try {
    const outcome = await runSyncJob(deps, message, signal);
    logger.info('Sync job', { job_id: message.job_id, outcome });
    return true;
  } catch (error) {
    const attempt = Number(record.attributes.ApproximateReceiveCount) || 1;
    if (attempt < LAST_RECEIVE) {
      logger.error('Sync job failed; it will be retried', {
        job_id: message.job_id,
        error: error as Error,
      });
      return false;
    }
    logger.error('Sync job failed on its last delivery', {
      job_id: message.job_id,
      error: error as Error,
    });
    try {
      await failSyncJob(
        deps,
        message,
        `the sync failed ${attempt} times; last error: ${(error as Error).message}`,
      );
      return true;
    } catch (failure) {
      logger.error('Could not mark the job failed', {
        job_id: message.job_id,
        error: failure as Error,
      });
      return false;
    }
  }
}
