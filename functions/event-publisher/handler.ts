import { Logger } from '@aws-lambda-powertools/logger';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent, ScheduledEvent } from 'aws-lambda';
import { publishBatch, publishPending } from '../../layers/core/use-cases/webhooks/publish-events';
import { outboxBatchOfStreamRecord } from '../../layers/core/wiring/outbox-stream';
import { dependencies } from './wiring';

const logger = new Logger({ serviceName: 'svc-event-publisher' });

/**
 * Publishes the events the outbox holds (issue 4): fed by the table's
 * DynamoDB stream for promptness, and by a schedule that sweeps whatever a
 * failure left behind. Both paths call the same use case, which is safe to
 * repeat: deliveries are keyed by (webhook, event).
 */
export async function handler(
  event: DynamoDBStreamEvent | ScheduledEvent,
): Promise<DynamoDBBatchResponse | undefined> {
  const deps = dependencies();
  if (!('Records' in event)) {
    const made = await publishPending(deps);
    logger.info('Swept the outbox', { deliveries: made });
    return undefined;
  }
  const batchItemFailures: DynamoDBBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    const batch = outboxBatchOfStreamRecord(record);
    if (!batch) continue;
    try {
      await publishBatch(deps, batch);
    } catch (error) {
      logger.error('Publishing an outbox batch failed', { error: error as Error });
      // Stream batches are ordered: report this record and let the ones after it wait.
      batchItemFailures.push({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' });
      break;
    }
  }
  return { batchItemFailures };
}
