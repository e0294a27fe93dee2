import { Duration, Validations } from 'aws-cdk-lib';
import type * as events from 'aws-cdk-lib/aws-events';
import { Construct } from 'constructs';
import { ServiceFunction, type ServiceFunctionLogProps } from './service-function';
import { tickRule } from './tick-rule';

export interface SyncSchedulerProps extends ServiceFunctionLogProps {
  /** Environment variables (layers/core/config.ts). */
  readonly environment: Readonly<Record<string, string>>;
  /**
   * How often the scheduler looks for due data sources: the most a scheduled
   * sync may start late.
   * @default Duration.minutes(5)
   */
  readonly interval?: Duration;
  /**
   * Maximum run time of one tick; sources not started by then (less a margin)
   * wait for the next tick.
   * @default Duration.minutes(2)
   */
  readonly timeout?: Duration;
  /**
   * Memory in MB; the function only calls DynamoDB and SQS.
   * @default 512
   */
  readonly memorySize?: number;
}

/**
 * D23's scheduler in the cloud (functions/scheduler): an EventBridge rule
 * runs the function at a fixed rate, and each tick queues a sync for every
 * `hourly`/`daily`/`weekly` data source that is due (the schedule index,
 * GSI2). Ticks are safe to overlap or repeat: each source is claimed with a
 * conditional write, and a sync job already queued or running is kept.
 * The same tick re-checks verified SSO domains that are due (claims in
 * the same index, DNS TXT look-ups, which need no grant).
 * The caller grants table item access and sending to the sync queue.
 *
 * @example
 * const scheduler = new SyncScheduler(this, 'SyncScheduler', { environment });
 * data.grantItemAccess(scheduler.scheduler.function);
 * syncQueue.grantSendMessages(scheduler.scheduler.function);
 */
export class SyncScheduler extends Construct {
  readonly scheduler: ServiceFunction;
  readonly rule: events.Rule;

  constructor(scope: Construct, id: string, props: SyncSchedulerProps) {
    super(scope, id);
    const interval = props.interval ?? Duration.minutes(5);
    const timeout = props.timeout ?? Duration.minutes(2);
    this.node.addValidation({
      validate: () =>
        timeout.toSeconds() < interval.toSeconds()
          ? []
          : [
              `The scheduler's timeout (${timeout.toHumanString()}) must be shorter than its interval (${interval.toHumanString()}), so ticks rarely overlap`,
            ],
    });

    this.scheduler = new ServiceFunction(this, 'Function', {
      folder: 'scheduler',
      description:
        'Agent Query Service: queues the syncs of scheduled data sources that are due, re-checks verified SSO domains',
      environment: props.environment,
      memorySize: props.memorySize ?? 512,
      timeout,
      logRetention: props.logRetention,
      logEncryptionKey: props.logEncryptionKey,
      logRemovalPolicy: props.logRemovalPolicy,
      functionsDir: props.functionsDir,
    });

    this.rule = tickRule(
      this,
      'Schedule',
      this.scheduler.function,
      interval,
      'Agent Query Service: sync the scheduled data sources that are due',
    );

    const tickReason = `The schedule's event carries no data: the scheduler reads what is due from the table, and a source it could not start stays due, so the next tick ${interval.toHumanString()} later picks it up; a failed tick holds nothing to recover. Failures show in the function's Errors alarm.`;
    Validations.of(this.rule).acknowledge({ id: 'Serverless-EventBusDLQ', reason: tickReason });
    Validations.of(this.scheduler.function).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason: `Its only invocations are the schedule's, asynchronous. ${tickReason}`,
    });
  }
}
