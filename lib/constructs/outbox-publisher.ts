import { Duration, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { TABLE_KEYS } from '../../layers/core/adapters/dynamodb/table-design';
import { ServiceFunction, type ServiceFunctionLogProps } from './service-function';
import { tickRule } from './tick-rule';

/** The attribute holding an item's unpublished events (layers/core/adapters/dynamodb/outbox.ts). */
export const OUTBOX_ATTRIBUTE = 'outbox';
/** What GSI1PK starts with while an item has unpublished events (`keys.outboxPartition`). */
export const OUTBOX_PARTITION_PREFIX = 'OUTBOX#';

export interface OutboxPublisherProps extends ServiceFunctionLogProps {
  /** The table whose items carry the outbox; its stream must be on with NEW_IMAGE (or both images). */
  readonly table: dynamodb.ITable;
  /** Key of the failed-batch queue. */
  readonly encryptionKey: kms.IKey;
  /** Environment variables (layers/core/config.ts). */
  readonly environment: Readonly<Record<string, string>>;
  /**
   * How often the sweep publishes what the stream path left behind.
   * @default Duration.minutes(5)
   */
  readonly sweepInterval?: Duration;
  /**
   * Maximum run time of one stream batch or one sweep.
   * @default Duration.seconds(60)
   */
  readonly timeout?: Duration;
  /**
   * Memory in MB; the function only calls DynamoDB and SQS.
   * @default 512
   */
  readonly memorySize?: number;
}

/**
 * Publishes the outbox (functions/event-publisher): the events a write put
 * in an item's `outbox` become webhook deliveries. Two ways in, one use case
 * (safe to repeat: deliveries are keyed by webhook and event):
 *
 * - the table's stream, filtered so that only images with a pending outbox
 *   invoke the function: the prompt path (the delivery schedule's first attempt at 0 s);
 * - a schedule that sweeps the outbox's GSI1 partitions: whatever the stream
 *   path failed on (or dropped after its retries) is still in the item, so
 *   nothing is lost, only later.
 *
 * A stream batch that still fails after its retries is reported to the
 * failed-batch queue (shard and sequence numbers, not the records): an alarm
 * on it says the prompt path is failing while the sweep carries on.
 */
export class OutboxPublisher extends Construct {
  readonly publisher: ServiceFunction;
  /** The stream mapping's on-failure destination. */
  readonly failedBatches: sqs.Queue;
  readonly eventSourceMapping: lambda.EventSourceMapping;
  readonly sweep: events.Rule;

  constructor(scope: Construct, id: string, props: OutboxPublisherProps) {
    super(scope, id);
    const sweepInterval = props.sweepInterval ?? Duration.minutes(5);

    this.publisher = new ServiceFunction(this, 'Function', {
      folder: 'event-publisher',
      description:
        'Agent Query Service: publishes outbox events as webhook deliveries (table stream + sweep)',
      environment: props.environment,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(60),
      logRetention: props.logRetention,
      logEncryptionKey: props.logEncryptionKey,
      logRemovalPolicy: props.logRemovalPolicy,
      functionsDir: props.functionsDir,
    });

    this.failedBatches = new sqs.Queue(this, 'FailedBatches', {
      encryption: sqs.QueueEncryption.KMS,
      encryptionMasterKey: props.encryptionKey,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    const failedBatchesReason =
      'The on-failure destination of the outbox stream mapping: it receives only failure records (shard and sequence numbers), the end of that chain; the events stay in their items for the sweep, and an alarm watches this queue.';
    Validations.of(this.failedBatches).acknowledge(
      { id: 'AwsSolutions-SQS3', reason: failedBatchesReason },
      { id: 'Serverless-SQSRedrivePolicy', reason: failedBatchesReason },
    );

    // `exists` matches leaves only, and the outbox is a list of maps, so the
    // first pattern looks for an event id inside it. The write that fills the
    // outbox also puts the item in an OUTBOX#<n> GSI1 partition (and the
    // publisher clears both at once), so the second pattern, on a plain
    // string, matches exactly the same images: the prompt path does not
    // depend on how list elements are matched. Patterns are ORed.
    const { gsi1 } = TABLE_KEYS;
    const filters = [
      lambda.FilterCriteria.filter({
        dynamodb: {
          NewImage: { [OUTBOX_ATTRIBUTE]: { L: { M: { id: { S: lambda.FilterRule.exists() } } } } },
        },
      }),
      lambda.FilterCriteria.filter({
        dynamodb: {
          NewImage: {
            [gsi1.partitionKey]: { S: lambda.FilterRule.beginsWith(OUTBOX_PARTITION_PREFIX) },
          },
        },
      }),
    ];
    this.publisher.function.addEventSource(
      new DynamoEventSource(props.table, {
        startingPosition: lambda.StartingPosition.LATEST,
        filters,
        batchSize: 25,
        // A failing record is retried alone (bisect) and reported precisely
        // (the handler stops at the first failure: stream order matters).
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        retryAttempts: 3,
        // Older than this, a record is the sweep's to publish; the shard moves on.
        maxRecordAge: Duration.hours(1),
        onFailure: new SqsDlq(this.failedBatches),
      }),
    );
    const mapping = this.publisher.function.node.children.find(
      (child): child is lambda.EventSourceMapping => child instanceof lambda.EventSourceMapping,
    );
    if (!mapping) throw new Error(`${this.node.path}: the stream event source created no mapping`);
    this.eventSourceMapping = mapping;
    // Beside X-Ray's (acknowledged by ServiceFunction), the same finding's other source here.
    Validations.of(this.publisher.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'The stream event source needs dynamodb:ListStreams, which has no resource-level permissions (AWS documents its resource as "*"); reading records (DescribeStream, GetRecords, GetShardIterator) is granted on this table\'s stream ARN only.',
    });

    this.sweep = tickRule(
      this,
      'Sweep',
      this.publisher.function,
      sweepInterval,
      'Agent Query Service: publish what the outbox still holds',
    );

    const tickReason = `The schedule's event carries no data: the sweep reads the outbox, not the event, and runs again ${sweepInterval.toHumanString()} later, so a tick that failed holds nothing to recover. Failures show in the function's Errors alarm.`;
    Validations.of(this.sweep).acknowledge({ id: 'Serverless-EventBusDLQ', reason: tickReason });
    Validations.of(this.publisher.function).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason: `Its only asynchronous invocations are the sweep schedule's. ${tickReason} Stream batches are synchronous and have their own on-failure destination.`,
    });
  }
}
