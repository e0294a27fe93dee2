import { SQSClient } from '@aws-sdk/client-sqs';
import { outageAsUnavailable } from '../../adapters/aws/outage-as-unavailable';
import { SqsQueue } from '../../adapters/aws/sqs-queue';
import { SqsMessageVisibility } from '../../adapters/aws/sqs-visibility';
import { parseCloudConfig } from '../../config';
import type { EvaluationRunMessage } from '../../domain/evaluation';
import { traceAwsClient } from '../../observability/tracing';
import type { SyncQueueMessage } from '../../ports/sync-job-queue.port';
import type { DeliveryMessage, MessageVisibility } from '../../ports/webhook-repository.port';

let sqs: SQSClient | undefined;

function sqsClient(region: string): SQSClient {
  if (sqs) return sqs;
  sqs = new SQSClient({ region });
  sqs.middlewareStack.use(outageAsUnavailable);
  sqs = traceAwsClient(sqs);
  return sqs;
}

/** The sync queue (sync jobs and index purges), SQS in the cloud. */
export function cloudSyncQueue(): SqsQueue<SyncQueueMessage> {
  const config = parseCloudConfig('syncQueue');
  return new SqsQueue(sqsClient(config.AWS_REGION), config.SYNC_QUEUE_URL);
}

/** The evaluation runs queue (issue 11 item 5), SQS in the cloud. */
export function cloudEvaluationQueue(): SqsQueue<EvaluationRunMessage> {
  const config = parseCloudConfig('evalQueue');
  return new SqsQueue(sqsClient(config.AWS_REGION), config.EVAL_QUEUE_URL);
}

/** The webhook deliveries queue, SQS in the cloud. */
export function cloudDeliveryQueue(): SqsQueue<DeliveryMessage> {
  const config = parseCloudConfig('deliveryQueue');
  return new SqsQueue(sqsClient(config.AWS_REGION), config.DELIVERY_QUEUE_URL);
}

/** ChangeMessageVisibility on the deliveries queue: how the dispatcher schedules a retry (D29). */
export function cloudDeliveryVisibility(): MessageVisibility {
  const config = parseCloudConfig('deliveryQueue');
  return new SqsMessageVisibility(sqsClient(config.AWS_REGION), config.DELIVERY_QUEUE_URL);
}
