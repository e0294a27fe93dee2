import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { LocalQueue, ReceivedMessage } from '../../layers/core/adapters/local/local-queue';
import type { Dependencies } from '../../layers/core/ports/dependencies.port';
import type { DeliveryMessage } from '../../layers/core/ports/webhook-repository.port';
import { publishPending } from '../../layers/core/use-cases/webhooks/publish-events';

export type SqsHandler = (event: SQSEvent) => Promise<SQSBatchResponse>;

/** The SQS event Lambda's event source mapping would build for these messages. */
export function toSqsEvent(
  messages: readonly ReceivedMessage<unknown>[],
  queueName: string,
): SQSEvent {
  return {
    Records: messages.map((message) => ({
      messageId: message.messageId,
      receiptHandle: message.receiptHandle,
      body: JSON.stringify(message.body),
      attributes: {
        ApproximateReceiveCount: String(message.receiveCount),
        SentTimestamp: String(message.sentAt),
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp: String(message.sentAt),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:local:000000000000:${queueName}`,
      awsRegion: 'local',
    })),
  };
}

/**
 * What runs in the background on one machine: the outbox sweep (the cloud's
 * stream + schedule) and the deliveries queue's consumer (the cloud's SQS
 * event source mapping), calling the same use case and the same dispatcher
 * handler export. `step()` does one round, so tests can drive time by hand.
 */
export class BackgroundWorkers {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly deps: Dependencies,
    private readonly deliveryQueue: LocalQueue<DeliveryMessage>,
    private readonly dispatcher: SqsHandler,
    private readonly onError: (error: unknown) => void = (error) =>
      console.error('Background worker:', error),
  ) {}

  /** One round: publish pending events, then dispatch every delivery that is due. Returns deliveries attempted. */
  async step(): Promise<number> {
    await publishPending(this.deps);
    let attempted = 0;
    for (;;) {
      const messages = await this.deliveryQueue.receive(10);
      if (messages.length === 0) return attempted;
      attempted += messages.length;
      const { batchItemFailures } = await this.dispatcher(
        toSqsEvent(messages, this.deliveryQueue.name),
      );
      const failed = new Set(batchItemFailures.map((failure) => failure.itemIdentifier));
      // As Lambda's event source mapping does: delete what succeeded; failures stay for their visibility.
      for (const message of messages) {
        if (!failed.has(message.messageId)) await this.deliveryQueue.delete(message.receiptHandle);
      }
    }
  }

  start(intervalMs: number): void {
    if (intervalMs <= 0 || this.timer) return;
    const tick = () => {
      this.running = this.step()
        .catch(this.onError)
        .finally(() => {
          this.running = null;
          if (this.timer) this.timer = setTimeout(tick, intervalMs);
        });
    };
    this.timer = setTimeout(tick, intervalMs);
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
