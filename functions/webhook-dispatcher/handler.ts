import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { Logger } from '@aws-lambda-powertools/logger';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as z from 'zod/mini';
import { isId } from '../../layers/core/domain/ids';
import {
  MetricUnit,
  publishRecordedMetrics,
  serviceMetrics,
} from '../../layers/core/observability/metrics';
import type { DeliveryMessage } from '../../layers/core/ports/webhook-repository.port';
import { dispatchDelivery } from '../../layers/core/use-cases/webhooks/dispatch-delivery';
import { RetryLaterError } from '../../layers/core/workers/retry-later-error';
import { dependencies } from './wiring';

const logger = new Logger({ serviceName: 'svc-webhook-dispatcher' });

const deliveryMessage = z.strictObject({
  org_id: z.string().check(z.refine((value) => isId('organization', value))),
  webhook_id: z.string().check(z.refine((value) => isId('webhook', value))),
  delivery_id: z.string().check(z.refine((value) => isId('delivery', value))),
});

const OUTCOME_METRIC = {
  delivered: 'DeliveriesSucceeded',
  failed: 'DeliveriesFailed',
  skipped: 'DeliveriesSkipped',
} as const;

const processor = new BatchProcessor(EventType.SQS);

/**
 * The deliveries queue's consumer (D29). Each record is one attempt; the
 * attempt number is SQS's `ApproximateReceiveCount`. A failed attempt's
 * message is hidden for the schedule's next delay (ChangeMessageVisibility)
 * and reported as a batch item failure, so SQS brings it back then: no
 * sleeping, and a crash simply lets the message reappear. Records of a batch
 * are sent in parallel (Powertools' batch processor).
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const response = await processPartialResponse(event, handleRecord, processor, {
    // Receivers being down is the normal case for retries, not a failed invocation.
    throwOnFullBatchFailure: false,
    processInParallel: true,
  });
  publishRecordedMetrics();
  return response;
}

async function handleRecord(record: SQSRecord): Promise<void> {
  let message: DeliveryMessage;
  try {
    message = deliveryMessage.parse(JSON.parse(record.body));
  } catch {
    // A malformed message can never succeed; dropping it is the only way forward.
    logger.error('Dropped a malformed delivery message', { message_id: record.messageId });
    return;
  }
  const deps = dependencies();
  const metrics = serviceMetrics();
  const attempt = Number(record.attributes.ApproximateReceiveCount) || 1;
  let retryAfterSeconds: number;
  try {
    const outcome = await dispatchDelivery(deps, message, attempt);
    if (outcome.done) {
      metrics.addMetric(OUTCOME_METRIC[outcome.result], MetricUnit.Count, 1);
      return;
    }
    retryAfterSeconds = outcome.retryAfterSeconds;
    await deps.deliveryVisibility.change(record.receiptHandle, retryAfterSeconds);
  } catch (error) {
    // Our own failure (store unavailable…): the message returns after the
    // queue's visibility timeout; the redrive policy catches a crash loop.
    logger.error('Delivery attempt failed to run', {
      delivery_id: message.delivery_id,
      error: error as Error,
    });
    throw new RetryLaterError('delivery attempt failed to run', { cause: error });
  }
  metrics.addMetric('DeliveryRetriesScheduled', MetricUnit.Count, 1);
  throw new RetryLaterError(`attempt ${attempt} failed; next in ${retryAfterSeconds} s`);
}
