import { Duration, Validations } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { SearchDomain } from './search-domain';

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
 * The share of a function's timeout its p99 duration may reach before the
 * duration alarm fires: past it, the slowest runs are about to be cut off.
 */
export const DURATION_ALARM_RATIO = 0.9;

/**
 * Free storage, as a share of a data node's volume, under which the search
 * domain alarms (AWS's recommended 25%): OpenSearch blocks writes to a node
 * whose disk fills up, so indexing stops before the disk does.
 */
export const SEARCH_FREE_STORAGE_RATIO = 0.25;

/** JVM heap use (%) on a data node that alarms; at 92% and above OpenSearch starts refusing requests. */
export const SEARCH_JVM_PRESSURE_PERCENT = 95;

/**
 * The alarm topic and the alarms that go to it. An alarm fires on a dead
 * letter (a consumer crashed on a message; ARCHITECTURE: the DLQ only
 * catches crashes), on a queue whose oldest message is too old, on API
 * server errors, on function errors (the error middleware turns every
 * thrown error into a response, so a Lambda `Errors` datapoint means a
 * crash or a timeout), throttles and durations near the timeout, on
 * DynamoDB throttling, and on the search domain's health.
 * docs/deployment/operations.md says what to do when each fires.
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

  /**
   * Fires on any throttled invocation of `fn` in five minutes: an API
   * request refused for lack of concurrency, or a worker whose reserved
   * concurrency no longer matches its event source's maximum.
   */
  onFunctionThrottles(id: string, fn: lambda.IFunction, name: string): cloudwatch.Alarm {
    return this.alarm(id, {
      metric: fn.metricThrottles({ period: Duration.minutes(5), statistic: cloudwatch.Stats.SUM }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      alarmDescription: `The ${name} function was throttled (no concurrency left for it)`,
    });
  }

  /**
   * Fires when the p99 duration of `fn` reaches `threshold` in two of three
   * five-minute windows: its slowest runs are close to being cut off (a
   * cut-off run is an error, which the errors alarm reports). Sustained,
   * because with little traffic p99 is the single slowest run.
   */
  onFunctionDuration(
    id: string,
    fn: lambda.IFunction,
    name: string,
    threshold: Duration,
  ): cloudwatch.Alarm {
    return this.alarm(id, {
      metric: fn.metricDuration({ period: Duration.minutes(5), statistic: cloudwatch.Stats.p(99) }),
      threshold: threshold.toMilliseconds(),
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      alarmDescription: `The ${name} function's p99 duration reached ${threshold.toHumanString()}, close to its timeout`,
    });
  }

  /**
   * Fires on any read (`kind` `Read`) or write (`Write`) throttle event in
   * five minutes on `table` or one of `indexNames`: an on-demand table
   * throttles a partition that is too hot, or traffic more than double its
   * previous peak. The SDK retries, so this is the warning before errors.
   */
  onTableThrottles(
    id: string,
    table: dynamodb.ITable,
    indexNames: readonly string[],
    kind: 'Read' | 'Write',
  ): cloudwatch.Alarm {
    const metricName = `${kind}ThrottleEvents`;
    const options = { period: Duration.minutes(5), statistic: cloudwatch.Stats.SUM };
    const metrics: Record<string, cloudwatch.IMetric> = {
      table: table.metric(metricName, options),
      ...Object.fromEntries(
        indexNames.map((indexName, position) => [
          `index${position}`,
          table.metric(metricName, {
            ...options,
            dimensionsMap: { TableName: table.tableName, GlobalSecondaryIndexName: indexName },
          }),
        ]),
      ),
    };
    return this.alarm(id, {
      // SUM of a list adds the series per period, missing points as none.
      metric: new cloudwatch.MathExpression({
        expression: `SUM([${Object.keys(metrics).join(', ')}])`,
        usingMetrics: metrics,
        period: Duration.minutes(5),
        label: `${metricName} (table and indexes)`,
      }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      alarmDescription: `DynamoDB throttled ${kind.toLowerCase()}s on the table or its indexes`,
    });
  }

  /**
   * The search domain's health: red (a primary shard unassigned: searches
   * fail or miss data), yellow for 15 minutes (a replica unassigned: one
   * more node loss away from red; briefly yellow during updates is normal),
   * free storage under `SEARCH_FREE_STORAGE_RATIO` of a node's volume, JVM
   * heap at `SEARCH_JVM_PRESSURE_PERCENT`% for three minutes, and writes
   * blocked (indexing refused).
   */
  onSearchDomainHealth(idPrefix: string, search: SearchDomain): cloudwatch.Alarm[] {
    const freeStorageMiB = search.volumeSizeGiB * 1024 * SEARCH_FREE_STORAGE_RATIO;
    const atLeastOne = {
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    };
    return [
      this.alarm(`${idPrefix}ClusterRed`, {
        metric: search.metric('ClusterStatus.red', { statistic: cloudwatch.Stats.MAXIMUM }),
        ...atLeastOne,
        alarmDescription: `The search domain ${search.domainName} is red: a primary shard is not allocated`,
      }),
      this.alarm(`${idPrefix}ClusterYellow`, {
        metric: search.metric('ClusterStatus.yellow', {
          statistic: cloudwatch.Stats.MAXIMUM,
          period: Duration.minutes(5),
        }),
        ...atLeastOne,
        evaluationPeriods: 3,
        alarmDescription: `The search domain ${search.domainName} has been yellow for 15 minutes: a replica shard is not allocated`,
      }),
      this.alarm(`${idPrefix}FreeStorageLow`, {
        metric: search.metric('FreeStorageSpace', { statistic: cloudwatch.Stats.MINIMUM }),
        threshold: freeStorageMiB,
        comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_OR_EQUAL_TO_THRESHOLD,
        alarmDescription: `A data node of ${search.domainName} has ${freeStorageMiB} MiB or less free (${SEARCH_FREE_STORAGE_RATIO * 100}% of its ${search.volumeSizeGiB} GiB)`,
      }),
      this.alarm(`${idPrefix}JvmMemoryPressure`, {
        metric: search.metric('JVMMemoryPressure', { statistic: cloudwatch.Stats.MAXIMUM }),
        threshold: SEARCH_JVM_PRESSURE_PERCENT,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 3,
        alarmDescription: `A data node of ${search.domainName} has used ${SEARCH_JVM_PRESSURE_PERCENT}% or more of its JVM heap for three minutes`,
      }),
      this.alarm(`${idPrefix}IndexWritesBlocked`, {
        metric: search.metric('ClusterIndexWritesBlocked', {
          statistic: cloudwatch.Stats.MAXIMUM,
          period: Duration.minutes(5),
        }),
        ...atLeastOne,
        alarmDescription: `The search domain ${search.domainName} is refusing writes: syncs and uploads cannot index`,
      }),
    ];
  }

  private alarm(
    id: string,
    options: Pick<
      cloudwatch.AlarmProps,
      'metric' | 'threshold' | 'comparisonOperator' | 'alarmDescription' | 'datapointsToAlarm'
    > & { readonly evaluationPeriods?: number },
  ): cloudwatch.Alarm {
    const alarm = new cloudwatch.Alarm(this, id, {
      evaluationPeriods: 1,
      ...options,
      // No data means no traffic or no dead letters, not trouble.
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
    return alarm;
  }
}
