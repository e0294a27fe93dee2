import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface WorkQueueProps {
  /** Customer-managed key both queues are encrypted with. */
  readonly encryptionKey: kms.IKey;
  /**
   * How long a received message stays hidden from other consumers. For a
   * Lambda consumer, at least six times the function's timeout (AWS guidance).
   * @default Duration.minutes(5)
   */
  readonly visibilityTimeout?: Duration;
  /**
   * Receives after which SQS moves a message to the dead-letter queue.
   * @default 5
   */
  readonly maxReceiveCount?: number;
  /**
   * How long an unprocessed message is kept.
   * @default Duration.days(4)
   */
  readonly retentionPeriod?: Duration;
  /**
   * How long a dead letter is kept for inspection and redrive. SQS counts a
   * message's age from its first enqueue, so this must not be shorter than
   * `retentionPeriod`.
   * @default Duration.days(14) (the SQS maximum)
   */
  readonly deadLetterRetentionPeriod?: Duration;
  /**
   * What happens to both queues when they leave the stack.
   * @default RemovalPolicy.DESTROY (messages are work in flight, not records)
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * One SQS work queue and its own dead-letter queue, KMS-encrypted and
 * refusing anything but TLS. Consumers are attached elsewhere (ARCHITECTURE:
 * event source mappings with `ReportBatchItemFailures`).
 *
 * @example
 * const sync = new WorkQueue(this, 'SyncJobs', { encryptionKey, visibilityTimeout: Duration.minutes(15) });
 */
export class WorkQueue extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  /** The queue's default visibility timeout (a consumer checks its own timeout against it). */
  readonly visibilityTimeout: Duration;
  /** Receives before redrive to the dead-letter queue. */
  readonly maxReceiveCount: number;

  constructor(scope: Construct, id: string, props: WorkQueueProps) {
    super(scope, id);
    const visibilityTimeout = props.visibilityTimeout ?? Duration.minutes(5);
    const maxReceiveCount = props.maxReceiveCount ?? 5;
    this.visibilityTimeout = visibilityTimeout;
    this.maxReceiveCount = maxReceiveCount;
    const retentionPeriod = props.retentionPeriod ?? Duration.days(4);
    const deadLetterRetentionPeriod = props.deadLetterRetentionPeriod ?? Duration.days(14);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.DESTROY;

    // SQS's own limits (visibility ≤ 12 h, 1–1000 receives) are checked by
    // the Queue construct; this is the rule between the two queues.
    this.node.addValidation({
      validate: () =>
        deadLetterRetentionPeriod.toSeconds() < retentionPeriod.toSeconds()
          ? [
              `deadLetterRetentionPeriod (${deadLetterRetentionPeriod.toHumanString()}) must not be shorter than retentionPeriod (${retentionPeriod.toHumanString()}): SQS ages a dead letter from its first enqueue`,
            ]
          : [],
    });

    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      encryption: sqs.QueueEncryption.KMS,
      encryptionMasterKey: props.encryptionKey,
      enforceSSL: true,
      retentionPeriod: deadLetterRetentionPeriod,
      removalPolicy,
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'Serverless-SQSRedrivePolicy',
      reason:
        'This is the dead-letter queue at the end of the redrive chain; a DLQ of its own would only move the same messages again. A CloudWatch alarm watches it instead.',
    });

    this.queue = new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.KMS,
      encryptionMasterKey: props.encryptionKey,
      enforceSSL: true,
      visibilityTimeout,
      retentionPeriod,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount },
      removalPolicy,
    });
  }
}
