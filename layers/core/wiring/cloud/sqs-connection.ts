import { SQSClient } from '@aws-sdk/client-sqs';
import { outageAsUnavailable } from '../../adapters/aws/outage-as-unavailable';
import { SqsQueue } from '../../adapters/aws/sqs-queue';
import { SqsMessageVisibility } from '../../adapters/aws/sqs-visibility';
import { traceAwsClient } from '../../observability/tracing';
import type { MessageQueue } from '../../ports/sync-job-queue.port';
import type { MessageVisibility } from '../../ports/webhook-repository.port';

let sqs: SQSClient | undefined;

/** One SQS client per container, whichever queues the function uses. */
function sqsClient(region: string): SQSClient {
  if (sqs) return sqs;
  sqs = new SQSClient({ region });
  sqs.middlewareStack.use(outageAsUnavailable);
  sqs = traceAwsClient(sqs);
  return sqs;
}

/** The SQS client and adapters behind cloud-queues.ts, in a module of their own so they load on first use. */
export function connectSqsQueue<T>(region: string, queueUrl: string): MessageQueue<T> {
  return new SqsQueue<T>(sqsClient(region), queueUrl);
}

export function connectSqsVisibility(region: string, queueUrl: string): MessageVisibility {
  return new SqsMessageVisibility(sqsClient(region), queueUrl);
}
