import { Duration, Validations } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Construct } from 'constructs';
import {
  ServiceFunction,
  type ServiceFunctionLogProps,
  type ServiceFunctionNetworkProps,
} from './service-function';
import type { WorkQueue } from './work-queue';

/** AWS guidance for SQS event sources: queue visibility ≥ six times the function timeout. */
export const VISIBILITY_TO_TIMEOUT_RATIO = 6;

/** Log settings and, optionally, a VPC (`vpc`, `vpcSubnets`, `securityGroups`) pass through to the function. */
export interface QueueWorkerProps extends ServiceFunctionLogProps, ServiceFunctionNetworkProps {
  /** Folder under functions/ holding the consumer's `handler.ts`. */
  readonly folder: string;
  /** What the function does, shown in the Lambda console. */
  readonly description: string;
  /** The queue it consumes; its visibility timeout must be ≥ 6 × `timeout`. */
  readonly queue: WorkQueue;
  /** Environment variables (layers/core/config.ts). */
  readonly environment: Readonly<Record<string, string>>;
  /** Maximum run time of one batch. */
  readonly timeout: Duration;
  /**
   * How many batches run at once: the function's reserved concurrency and
   * the event source's maximum concurrency (equal, so Lambda never throttles
   * a batch it has already taken off the queue). 2–1000.
   */
  readonly concurrency: number;
  /**
   * Memory in MB.
   * @default 1024
   */
  readonly memorySize?: number;
  /**
   * Messages per batch (1–10 without a longer batching window).
   * @default 10
   */
  readonly batchSize?: number;
  /**
   * How long Lambda gathers messages before invoking with a partial batch.
   * @default Duration.seconds(1)
   */
  readonly maxBatchingWindow?: Duration;
}

/**
 * One SQS consumer (ARCHITECTURE: event source mappings with
 * `ReportBatchItemFailures`): a ServiceFunction, its event source mapping on
 * a WorkQueue, and reserved concurrency so a burst of messages cannot starve
 * the API functions of the account's concurrency. The mapping grants what
 * consuming needs (receive, delete, change visibility, the queue key's
 * Decrypt); anything else the handler does is granted by the caller.
 *
 * @example
 * const dispatcher = new QueueWorker(this, 'WebhookDispatcher', {
 *   folder: 'webhook-dispatcher', description: '…', queue: deliveries,
 *   environment, timeout: Duration.seconds(30), concurrency: 10,
 * });
 */
export class QueueWorker extends Construct {
  readonly worker: ServiceFunction;
  readonly eventSourceMapping: lambda.EventSourceMapping;

  constructor(scope: Construct, id: string, props: QueueWorkerProps) {
    super(scope, id);
    const { queue, timeout, concurrency } = props;

    this.node.addValidation({
      validate: () => {
        const needed = timeout.toSeconds() * VISIBILITY_TO_TIMEOUT_RATIO;
        return queue.visibilityTimeout.toSeconds() < needed
          ? [
              `the visibility timeout of ${queue.node.path} (${queue.visibilityTimeout.toHumanString()}) must be at least ${VISIBILITY_TO_TIMEOUT_RATIO} × the function timeout (${timeout.toHumanString()}), ${needed} seconds: otherwise a batch still running (or retried after throttling) reappears to another consumer`,
            ]
          : [];
      },
    });

    this.worker = new ServiceFunction(this, 'Function', {
      folder: props.folder,
      description: props.description,
      environment: props.environment,
      memorySize: props.memorySize,
      timeout,
      reservedConcurrentExecutions: concurrency,
      logRetention: props.logRetention,
      logEncryptionKey: props.logEncryptionKey,
      logRemovalPolicy: props.logRemovalPolicy,
      functionsDir: props.functionsDir,
      vpc: props.vpc,
      vpcSubnets: props.vpcSubnets,
      securityGroups: props.securityGroups,
    });

    const source = new SqsEventSource(queue.queue, {
      batchSize: props.batchSize ?? 10,
      maxBatchingWindow: props.maxBatchingWindow ?? Duration.seconds(1),
      // The handler answers which messages failed; the rest are deleted.
      reportBatchItemFailures: true,
      maxConcurrency: concurrency,
    });
    this.worker.function.addEventSource(source);
    // addEventSource keeps the mapping it creates to itself; it is the function's child.
    const mapping = this.worker.function.node.children.find(
      (child): child is lambda.EventSourceMapping => child instanceof lambda.EventSourceMapping,
    );
    if (!mapping) throw new Error(`${this.node.path}: the SQS event source created no mapping`);
    this.eventSourceMapping = mapping;

    Validations.of(this.worker.function).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason: `Invoked only by its SQS event source mapping, which is synchronous; a Lambda DLQ applies to asynchronous invocations. Messages that keep failing move to the dead-letter queue of ${queue.node.id} through its redrive policy.`,
    });
    Validations.of(this.eventSourceMapping).acknowledge({
      id: 'Serverless-LambdaEventSourceMappingDestination',
      reason: `An SQS event source mapping has no on-failure destination (Lambda supports one for streams and Kafka only); the queue's redrive policy (${queue.maxReceiveCount} receives) to its own dead-letter queue plays that part, and an alarm watches it.`,
    });
  }
}
