import { Logger } from '@aws-lambda-powertools/logger';
import type { SQSRecord } from 'aws-lambda';
import * as z from 'zod/mini';
import { isId } from '../../layers/core/domain/ids';
import { MetricUnit, serviceMetrics } from '../../layers/core/observability/metrics';
import type { DeliveryMessage } from '../../layers/core/ports/webhook-repository.port';
import { dispatchDelivery } from '../../layers/core/use-cases/webhooks/dispatch-delivery';
import { RetryLaterError } from '../../layers/core/workers/retry-later-error';
import { receiveCountOf, sqsWorker } from '../../layers/core/workers/sqs-worker';
import { dependencies } from './wiring';

const logger = new Logger({ serviceName: 'svc-webhook-dispatcher' });

const deliveryMessage = z.strictObject({
  org_id: z.string().check(z.refine((value) => isId('organization', value))),
  webhook_id: z.string().check(z.refine((value) => isId('webhook', value))),
  delivery_id: z.string().check(z.refine((value) => isId('delivery', value))),
  /** Present on the messages of a retry by hand. */
  retried_at: z.optional(z.iso.datetime()),
});

const OUTCOME_METRIC = {
  delivered: 'DeliveriesSucceeded',
  failed: 'DeliveriesFailed',
  skipped: 'DeliveriesSkipped',
} as const;

/**
 * The deliveries queue's consumer. Each record is one attempt; the
 * attempt number is SQS's `ApproximateReceiveCount`. A failed attempt's
 * message is hidden for the schedule's next delay (ChangeMessageVisibility)
 * and reported as a batch item failure, so SQS brings it back then: no
 * sleeping, and a crash simply lets the message reappear. Records of a batch
 * are sent in parallel; receivers being down is the normal case for retries,
 * not a failed invocation.
 */
export const handler = sqsWorker({
  logger,
  messageKind: 'delivery',
  parse: (body) => deliveryMessage.parse(body),
  handle: dispatch,
  inParallel: true,
});

async function dispatch(message: DeliveryMessage, record: SQSRecord): Promise<void> {
  const deps = dependencies();
  const metrics = serviceMetrics();
  const attempt = receiveCountOf(record);
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
