import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { MessageQueue } from '../../ports/sync-job-queue.port';

/** A `MessageQueue` on Amazon SQS; messages are JSON. */
export class SqsQueue<T> implements MessageQueue<T> {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(message: T, options: { delaySeconds?: number } = {}): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify(message),
        ...(options.delaySeconds ? { DelaySeconds: options.delaySeconds } : {}),
      }),
    );
  }
}
