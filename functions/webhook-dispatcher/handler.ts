import { Logger } from '@aws-lambda-powertools/logger';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { z } from 'zod';
import { isId } from '../../layers/core/domain/ids';
import type { DeliveryMessage } from '../../layers/core/ports/webhook-repository.port';
import { dispatchDelivery } from '../../layers/core/use-cases/webhooks/dispatch-delivery';
import { dependencies } from '../../layers/core/wiring/dependencies';

const logger = new Logger({ serviceName: 'svc-webhook-dispatcher' });

const deliveryMessage = z.strictObject({
  org_id: z.string().refine((value) => isId('organization', value)),
  webhook_id: z.string().refine((value) => isId('webhook', value)),
  delivery_id: z.string().refine((value) => isId('delivery', value)),
});

/**
 * The deliveries queue's consumer (D29). Each record is one attempt; the
 * attempt number is SQS's `ApproximateReceiveCount`. A failed attempt's
 * message is hidden for the schedule's next delay (ChangeMessageVisibility)
 * and reported as a batch item failure, so SQS brings it back then: no
 * sleeping, and a crash simply lets the message reappear.
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const deps = dependencies();
  const failures = await Promise.all(event.Records.map((record) => handleRecord(deps, record)));
  return {
    batchItemFailures: failures
      .filter((id): id is string => id !== null)
      .map((itemIdentifier) => ({ itemIdentifier })),
  };
}

/** Returns the message id when the message must come back, `null` when it is done. */
async function handleRecord(
  deps: ReturnType<typeof dependencies>,
  record: SQSRecord,
): Promise<string | null> {
  let message: DeliveryMessage;
  try {
    message = deliveryMessage.parse(JSON.parse(record.body));
  } catch {
    // A malformed message can never succeed; dropping it is the only way forward.
    logger.error('Dropped a malformed delivery message', { message_id: record.messageId });
    return null;
  }
  const attempt = Number(record.attributes.ApproximateReceiveCount) || 1;
  try {
    const outcome = await dispatchDelivery(deps, message, attempt);
    if (outcome.done) return null;
    await deps.deliveryVisibility.change(record.receiptHandle, outcome.retryAfterSeconds);
    return record.messageId;
  } catch (error) {
    // Our own failure (store unavailable…): the message returns after the
    // queue's visibility timeout; the redrive policy catches a crash loop.
    logger.error('Delivery attempt failed to run', {
      delivery_id: message.delivery_id,
      error: error as Error,
    });
    return record.messageId;
  }
}
