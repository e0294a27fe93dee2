import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { publishRecordedMetrics } from '../observability/metrics';

/** Which delivery of its message a record is: SQS's `ApproximateReceiveCount` (the delivery schedule's attempt number). */
export function receiveCountOf(record: SQSRecord): number {
  return Number(record.attributes.ApproximateReceiveCount) || 1;
}

/**
 * Issue 14: of a queue's `lastReceive` deliveries before its redrive, the
 * worker works on all but the last, which only ends the work `failed`. A
 * message that crashes or times out the worker on every delivery would
 * otherwise reach the dead-letter queue with its job, file or run still in
 * progress.
 */
export function workingAttemptsOf(lastReceive: number): number {
  return lastReceive - 1;
}

export interface SqsWorkerOptions<Message> {
  readonly logger: Pick<Logger, 'error'>;
  /** What the queue carries, named in the log line of a dropped message ("sync", "delivery"). */
  readonly messageKind: string;
  /** The message from the record's parsed JSON body; throws when it is malformed. */
  readonly parse: (body: unknown) => Message;
  /** Works on one message; throwing (a `RetryLaterError`) has SQS deliver it again. */
  readonly handle: (message: Message, record: SQSRecord, context?: Context) => Promise<void>;
  /**
   * Records of a batch handled at once (the webhook dispatcher's deliveries)
   * rather than one after another (the heavy workers, whose batch size is 1).
   * @default false
   */
  readonly inParallel?: boolean;
}

/**
 * The handler of a worker fed by SQS (issue 8: Powertools' batch processing):
 * each record's message is parsed, then handled; a record that throws is
 * reported as a batch item failure, so SQS delivers it again after its
 * visibility timeout (or the delay the dispatcher set), while the invocation
 * itself succeeds. A malformed message is logged and dropped: no delivery
 * could mend it. The metrics recorded meanwhile are published at the end.
 */
export function sqsWorker<Message>(
  options: SqsWorkerOptions<Message>,
): (event: SQSEvent, context?: Context) => Promise<SQSBatchResponse> {
  const processor = new BatchProcessor(EventType.SQS);

  async function handleRecord(record: SQSRecord, context: Context | undefined): Promise<void> {
    let message: Message;
    try {
      message = options.parse(JSON.parse(record.body));
    } catch {
      options.logger.error(`Dropped a malformed ${options.messageKind} message`, {
        message_id: record.messageId,
      });
      return;
    }
    await options.handle(message, record, context);
  }

  return async function sqsWorkerHandler(event, context) {
    const response = await processPartialResponse(
      event,
      (record: SQSRecord) => handleRecord(record, context),
      processor,
      { throwOnFullBatchFailure: false, processInParallel: options.inParallel ?? false },
    );
    publishRecordedMetrics();
    return response;
  };
}
