import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { paginateScan } from '@aws-sdk/lib-dynamodb';
import type { SyncJobQueue } from '../../layers/core/ports/sync-job-queue.port';

/**
 * At start, every data source whose current sync job is still
 * `queued` gets its message again. A job is recorded before its message is
 * sent (requestSync), so a run killed between the two left a job nothing
 * would ever run: a manual source until someone asked again, a scheduled
 * one until its next interval, which the scheduler had already moved on.
 * Sending again is safe: the sync worker takes the job id as the
 * idempotency key, so a job with two messages runs once, and a message for
 * a job that has ended does nothing.
 *
 * A scan of the local table, once per start: the one-machine runtime holds
 * one organization's worth of data sources, not a cloud's.
 */
export async function requeueQueuedSyncs(
  client: DynamoDBDocumentClient,
  tableName: string,
  syncQueue: SyncJobQueue,
): Promise<number> {
  let requeued = 0;
  const pages = paginateScan(
    { client },
    {
      TableName: tableName,
      FilterExpression: 'current_job.#status = :queued',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':queued': 'queued' },
      ProjectionExpression: 'org_id, id, current_job.id',
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      const orgId = item.org_id;
      const dataSourceId = item.id;
      const jobId = item.current_job?.id;
      if (typeof orgId !== 'string' || typeof dataSourceId !== 'string') continue;
      if (typeof jobId !== 'string') continue;
      await syncQueue.send({ org_id: orgId, data_source_id: dataSourceId, job_id: jobId });
      requeued += 1;
    }
  }
  return requeued;
}
