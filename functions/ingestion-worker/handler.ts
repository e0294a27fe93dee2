import { Logger } from '@aws-lambda-powertools/logger';
import type { SQSRecord } from 'aws-lambda';
import * as z from 'zod/mini';
import { MetricUnit, serviceMetrics } from '../../layers/core/observability/metrics';
import {
  failUploadedFile,
  ingestUploadedFile,
} from '../../layers/core/use-cases/ingestion/ingest-uploaded-file';
import { RetryLaterError } from '../../layers/core/workers/retry-later-error';
import { receiveCountOf, sqsWorker, workingAttemptsOf } from '../../layers/core/workers/sqs-worker';
import { dependencies } from './wiring';

const logger = new Logger({ serviceName: 'svc-ingestion-worker' });

/**
 * What matters of an S3 event notification. S3 also sends a one-off
 * `s3:TestEvent` when the notification is configured, which has no records.
 */
const s3Notification = z.object({
  Records: z.optional(
    z.array(
      z.object({
        eventName: z.string(),
        s3: z.object({ object: z.object({ key: z.string() }) }),
      }),
    ),
  ),
});

/** The ingestion queue's redrive after this many receives (the stack, lib/local/local-dependencies.ts). */
const LAST_RECEIVE = 5;
/** Deliveries that may work on a file; the last one only ends it, so it never stays `processing`. */
const WORKING_ATTEMPTS = workingAttemptsOf(LAST_RECEIVE);

/**
 * The ingestion queue's consumer: S3 announces each upload here and
 * each uploaded file is parsed, chunked, embedded and indexed. An upload
 * that keeps failing for reasons of ours is marked failed on its last
 * working attempt, and one that never finished an attempt (the worker died
 * or timed out) on the delivery after it, so its record never stays
 * `processing`.
 */
export const handler = sqsWorker({
  logger,
  messageKind: 'ingestion',
  parse: (body) => createdObjectKeys(s3Notification.parse(body)),
  handle: ingestKeys,
});

/** S3 event keys are URL-encoded, with `+` for spaces. */
const objectKeyOf = (encoded: string) => decodeURIComponent(encoded.replace(/\+/g, ' '));

/** The objects a notification announces as created (a test event announces none). */
function createdObjectKeys(notification: z.infer<typeof s3Notification>): string[] {
  return (notification.Records ?? [])
    .filter((entry) => entry.eventName.startsWith('ObjectCreated:'))
    .map((entry) => objectKeyOf(entry.s3.object.key));
}

async function ingestKeys(keys: string[], record: SQSRecord): Promise<void> {
  const deps = dependencies();
  const metrics = serviceMetrics();
  const attempt = receiveCountOf(record);
  for (const key of keys) {
    if (attempt > WORKING_ATTEMPTS) {
      await endFile(
        key,
        `ingestion did not finish in ${WORKING_ATTEMPTS} attempts: the worker stopped (crashed or timed out) while reading this file`,
      );
      continue;
    }
    try {
      const outcome = await ingestUploadedFile(deps, key);
      if (outcome === 'indexed') metrics.addMetric('FilesIndexed', MetricUnit.Count, 1);
      if (outcome === 'failed') metrics.addMetric('FilesFailed', MetricUnit.Count, 1);
      logger.info('Uploaded file', { key, outcome });
    } catch (error) {
      logger.error('Ingesting an uploaded file failed', { key, attempt, error: error as Error });
      if (attempt < WORKING_ATTEMPTS)
        throw new RetryLaterError('ingestion failed', { cause: error });
      await endFile(
        key,
        `ingestion failed ${attempt} times; last error: ${(error as Error).message}`,
      );
    }
  }
}

/** Marks a file failed for good; if even that fails, the message is retried (and dead-lettered at last). */
async function endFile(key: string, reason: string): Promise<void> {
  try {
    await failUploadedFile(dependencies(), key, reason);
    serviceMetrics().addMetric('FilesFailed', MetricUnit.Count, 1);
    logger.warn('Uploaded file failed for good', { key, reason });
  } catch (failure) {
    logger.error('Could not mark the file failed', { key, error: failure as Error });
    throw new RetryLaterError('could not mark the file failed', { cause: failure });
  }
}
