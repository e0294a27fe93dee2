import type { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';

/**
 * An EventBridge rule that invokes `fn` every `interval`, for functions that
 * read their work from the table, not from the event: a tick older than the
 * next one is worth nothing, so it expires then and is retried at most twice.
 */
export function tickRule(
  scope: Construct,
  id: string,
  fn: lambda.IFunction,
  interval: Duration,
  description: string,
): events.Rule {
  return new events.Rule(scope, id, {
    description,
    schedule: events.Schedule.rate(interval),
    targets: [new targets.LambdaFunction(fn, { maxEventAge: interval, retryAttempts: 2 })],
  });
}
