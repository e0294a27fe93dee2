import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { MessageVisibility } from '../../ports/webhook-repository.port';

/** SQS `ChangeMessageVisibility` on one queue: how the dispatcher schedules a retry (ARCHITECTURE.md). */
export class SqsMessageVisibility implements MessageVisibility {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async change(receiptHandle: string, seconds: number): Promise<void> {
    await this.client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: this.queueUrl,
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: seconds,
      }),
    );
  }
}
