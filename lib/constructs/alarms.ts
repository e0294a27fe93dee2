import { Duration, Validations } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface AlarmsProps {
  /** Customer-managed key the alarm topic is encrypted with. */
  readonly encryptionKey: kms.IKey;
  /**
   * Address subscribed to the topic (AWS sends it a confirmation mail first).
   * @default - no subscription; subscribe to the topic ARN output yourself
   */
  readonly email?: string;
  /**
   * Server errors (API Gateway 5XX) in five minutes that raise the API alarm.
   * @default 5
   */
  readonly serverErrorThreshold?: number;
}

/**
 * The alarm topic and the alarms that go to it. An alarm fires on a dead
 * letter (a consumer crashed on a message; ARCHITECTURE: the DLQ only
 * catches crashes), on a queue whose oldest message is too old, on API
 * server errors, and on function errors (the error middleware turns every
 * thrown error into a response, so a Lambda `Errors` datapoint means a
 * crash or a timeout).
 */
export class Alarms extends Construct {
  readonly topic: sns.Topic;
  private readonly action: actions.SnsAction;
  private readonly serverErrorThreshold: number;

  constructor(scope: Construct, id: string, props: AlarmsProps) {
    super(scope, id);
    this.serverErrorThreshold = props.serverErrorThreshold ?? 5;

    this.node.addValidation({
      validate: () =>
        Number.isInteger(this.serverErrorThreshold) && this.serverErrorThreshold >= 1
          ? []
          : [
              `serverErrorThreshold must be a whole number, at least 1, got ${this.serverErrorThreshold}`,
            ],
    });

    this.topic = new sns.Topic(this, 'Topic', {
      displayName: 'Agent Query Service alarms',
      masterKey: props.encryptionKey,
      enforceSSL: true,
    });
    this.action = new actions.SnsAction(this.topic);

    if (props.email) {
      const subscription = this.topic.addSubscription(
        new subscriptions.EmailSubscription(props.email),
      );
      Validations.of(subscription).acknowledge({
        id: 'Serverless-SNSRedrivePolicy',
        reason:
          "An alarm e-mail SNS cannot deliver has nobody to redrive it to; failures show in the topic's NumberOfNotificationsFailed metric, and the alarm state stays visible in CloudWatch.",
      });
    }
  }

  /** Fires as soon as a message lands in `deadLetterQueue`. */
  onDeadLetters(id: string, deadLetterQueue: sqs.IQueue, description: string): cloudwatch.Alarm {
    return this.alarm(id, {
      metric: deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: cloudwatch.Stats.MAXIMUM,
      }),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      alarmDescription: description,
    });
  }

  /**
   * Fires when the oldest message in `queue` has waited longer than `maxAge`:
   * its consumer is not keeping up, or keeps putting the message back.
   */
  onQueueAge(
    id: string,
    queue: sqs.IQueue,
    maxAge: Duration,
    description: string,
  ): cloudwatch.Alarm {
    return this.alarm(id, {
      metric: queue.metricApproximateAgeOfOldestMessage({
        period: Duration.minutes(5),
        statistic: cloudwatch.Stats.MAXIMUM,
      }),
      threshold: maxAge.toSeconds(),
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      alarmDescription: description,
    });
  }

  /** Fires on `serverErrorThreshold` or more API Gateway 5XX responses in five minutes. */
  onServerErrors(id: string, api: apigateway.RestApi): cloudwatch.Alarm {
    return this.alarm(id, {
      metric: api.metricServerError({
        period: Duration.minutes(5),
        statistic: cloudwatch.Stats.SUM,
      }),
      threshold: this.serverErrorThreshold,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      alarmDescription: `The API answered ${this.serverErrorThreshold} or more 5XX responses in five minutes`,
    });
  }

  /** Fires on any invocation error (crash or timeout) of `fn` in five minutes. */
  onFunctionErrors(id: string, fn: lambda.IFunction, name: string): cloudwatch.Alarm {
    return this.alarm(id, {
      metric: fn.metricErrors({ period: Duration.minutes(5), statistic: cloudwatch.Stats.SUM }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      alarmDescription: `The ${name} function crashed or timed out`,
    });
  }

  private alarm(
    id: string,
    options: Pick<
      cloudwatch.AlarmProps,
      'metric' | 'threshold' | 'comparisonOperator' | 'alarmDescription'
    >,
  ): cloudwatch.Alarm {
    const alarm = new cloudwatch.Alarm(this, id, {
      ...options,
      evaluationPeriods: 1,
      // No data means no traffic or no dead letters, not trouble.
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
    return alarm;
  }
}
