import { parseCloudConfig } from '../../config';
import type { EvaluationRunMessage } from '../../domain/evaluation';
import type { MessageQueue, SyncQueueMessage } from '../../ports/sync-job-queue.port';
import type { DeliveryMessage, MessageVisibility } from '../../ports/webhook-repository.port';

type SqsConnection = typeof import('./sqs-connection');
let connection: Promise<SqsConnection> | undefined;

/**
 * The SQS client is loaded at the first message sent or delayed, not
 * at init, as the S3 client is: most requests of the families that
 * queue work (data sources, knowledge base, webhooks, evaluations) only read
 * and write the table, and loading the client was the larger part of their
 * init beyond DynamoDB's. The configuration is still checked at init.
 */
function sqs(): Promise<SqsConnection> {
  connection ??= import('./sqs-connection');
  return connection;
}

function queueAt<T>(region: string, queueUrl: string): MessageQueue<T> {
  let queue: MessageQueue<T> | undefined;
  return {
    async send(message, options) {
      queue ??= (await sqs()).connectSqsQueue<T>(region, queueUrl);
      await queue.send(message, options);
    },
  };
}

/** The sync queue (sync jobs and index purges), SQS in the cloud. */
export function cloudSyncQueue(): MessageQueue<SyncQueueMessage> {
  const config = parseCloudConfig('syncQueue');
  return queueAt(config.AWS_REGION, config.SYNC_QUEUE_URL);
}

/** The evaluation runs queue (issue 11 item 5), SQS in the cloud. */
export function cloudEvaluationQueue(): MessageQueue<EvaluationRunMessage> {
  const config = parseCloudConfig('evalQueue');
  return queueAt(config.AWS_REGION, config.EVAL_QUEUE_URL);
}

/** The webhook deliveries queue, SQS in the cloud. */
export function cloudDeliveryQueue(): MessageQueue<DeliveryMessage> {
  const config = parseCloudConfig('deliveryQueue');
  return queueAt(config.AWS_REGION, config.DELIVERY_QUEUE_URL);
}

/** ChangeMessageVisibility on the deliveries queue: how the dispatcher schedules a retry. */
export function cloudDeliveryVisibility(): MessageVisibility {
  const config = parseCloudConfig('deliveryQueue');
  let visibility: MessageVisibility | undefined;
  return {
    async change(receiptHandle, seconds) {
      visibility ??= (await sqs()).connectSqsVisibility(
        config.AWS_REGION,
        config.DELIVERY_QUEUE_URL,
      );
      await visibility.change(receiptHandle, seconds);
    },
  };
}
