import { App, type CfnElement, Duration, Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import type { ServiceFunction } from '../../lib/constructs/service-function';
import { SyncScheduler } from '../../lib/constructs/sync-scheduler';
import type { ServiceStack } from '../../lib/service-stack';
import { SYNC_SCHEDULE_INTERVAL } from '../../lib/service-workers';
import { familiesThat } from './family-needs';

/** data-sources (sync jobs and index purges, P45) and kb (published article changes, P119). */
const SYNC_QUEUE_WRITERS = familiesThat((needs) => needs.sendsTo?.includes('syncJobs') === true);

import { buildServiceStack, templateOf } from './service-stack-fixture';

type Resource = { Type: string; Properties: Record<string, any> };
type Statement = { Action: string[]; Resource: unknown[] };

function logicalId(stack: Stack, construct: { node: { defaultChild?: unknown } }): string {
  return stack.getLogicalId(construct.node.defaultChild as CfnElement);
}

const arnOf = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * D23 in the cloud: an EventBridge rule runs functions/scheduler every five
 * minutes; the function may read and write table items (querying GSI2) and
 * send to the sync queue, nothing else.
 */
describe('Construct: SyncScheduler in the service stack (D23)', () => {
  let stack: ServiceStack;
  let template: Template;
  let resources: Record<string, Resource>;
  let scheduler: ServiceFunction;

  const propertiesOf = (construct: { node: { defaultChild?: unknown } }) =>
    resources[logicalId(stack, construct)]?.Properties ?? {};
  const statementsOf = (fn: ServiceFunction): Statement[] => {
    const policy = fn.role.node.findChild('DefaultPolicy') as { node: { defaultChild: unknown } };
    const document = resources[logicalId(stack, policy)]?.Properties.PolicyDocument;
    return (document.Statement as Array<Record<string, unknown>>).map((statement) => ({
      Action: asArray(statement.Action) as string[],
      Resource: asArray(statement.Resource),
    }));
  };

  beforeAll(() => {
    // One synth for the file; no bundling, these tests read configuration only.
    const built = buildServiceStack({ environment: 'test' });
    stack = built.stack;
    template = templateOf(built);
    resources = template.toJSON().Resources as Record<string, Resource>;
    scheduler = stack.syncScheduler.scheduler;
  });

  it('runs the scheduler function every five minutes, dropping ticks older than one interval', () => {
    const schedulerId = logicalId(stack, scheduler.function);
    expect(SYNC_SCHEDULE_INTERVAL.toMinutes()).toBe(5);
    expect(propertiesOf(stack.syncScheduler.rule)).toMatchObject({
      ScheduleExpression: 'rate(5 minutes)',
      State: 'ENABLED',
      Targets: [
        expect.objectContaining({
          Arn: arnOf(schedulerId),
          RetryPolicy: { MaximumEventAgeInSeconds: 300, MaximumRetryAttempts: 2 },
        }),
      ],
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      FunctionName: arnOf(schedulerId),
      Principal: 'events.amazonaws.com',
      SourceArn: arnOf(logicalId(stack, stack.syncScheduler.rule)),
    });
  });

  it('is an ARM64 function from functions/scheduler that ends well within its interval', () => {
    const properties = propertiesOf(scheduler.function);
    expect(properties).toMatchObject({
      Architectures: ['arm64'],
      Handler: 'index.handler',
      MemorySize: 512,
      TracingConfig: { Mode: 'Active' },
    });
    expect(properties.Timeout).toBeLessThan(SYNC_SCHEDULE_INTERVAL.toSeconds());
    expect(properties.Environment.Variables).toMatchObject({
      TABLE_NAME: { Ref: logicalId(stack, stack.data.table) },
      SYNC_QUEUE_URL: { Ref: logicalId(stack, stack.queues.syncJobs.queue) },
      SVC_ENVIRONMENT: 'test',
      POWERTOOLS_SERVICE_NAME: 'svc-scheduler',
    });
  });

  it('may read and write table items and query its indexes, never scan', () => {
    const tableId = logicalId(stack, stack.data.table);
    const statements = statementsOf(scheduler);
    expect(statements).toContainEqual(
      expect.objectContaining({
        Action: expect.arrayContaining(['dynamodb:Query', 'dynamodb:UpdateItem']),
        Resource: expect.arrayContaining([{ 'Fn::Join': ['', [arnOf(tableId), '/index/*']] }]),
      }),
    );
    expect(statements.flatMap((s) => s.Action)).not.toContain('dynamodb:Scan');
  });

  it('sends to the sync queue only, and reaches neither the search domain nor the secrets key', () => {
    const statements = statementsOf(scheduler);
    const sends = statements.filter((s) => s.Action.includes('sqs:SendMessage'));
    expect(sends.flatMap((s) => s.Resource)).toEqual([
      arnOf(logicalId(stack, stack.queues.syncJobs.queue)),
    ]);
    const actions = statements.flatMap((s) => s.Action);
    expect(actions.filter((a) => a.startsWith('es:'))).toEqual([]);
    const secretsKey = arnOf(logicalId(stack, stack.secretsKey.key));
    expect(statements.filter((s) => s.Resource.some((r) => same(r, secretsKey)))).toEqual([]);
  });

  it('is, with data-sources and kb (P119), the only sender to the sync queue', () => {
    const syncQueue = arnOf(logicalId(stack, stack.queues.syncJobs.queue));
    const functions: Array<[string, ServiceFunction]> = [
      ...stack.http.functions,
      ['fallback', stack.http.fallback],
      ['sync-worker', stack.syncWorker.worker],
      ['webhook-dispatcher', stack.webhookDispatcher.worker],
      ['event-publisher', stack.eventPublisher.publisher],
      ['scheduler', scheduler],
    ];
    const senders = functions
      .filter(([, fn]) =>
        statementsOf(fn).some(
          (s) => s.Action.includes('sqs:SendMessage') && s.Resource.some((r) => same(r, syncQueue)),
        ),
      )
      .map(([name]) => name);
    expect(senders.sort()).toEqual([...SYNC_QUEUE_WRITERS, 'scheduler'].sort());
  });

  it('alarms on the scheduler’s errors', () => {
    const fnId = logicalId(stack, scheduler.function);
    const alarms = Object.values(resources).filter(
      (resource) =>
        resource.Type === 'AWS::CloudWatch::Alarm' &&
        resource.Properties.MetricName === 'Errors' &&
        JSON.stringify(resource.Properties.Dimensions).includes(`"${fnId}"`),
    );
    expect(alarms).toHaveLength(1);
  });

  it('refuses a timeout that is not shorter than its interval', () => {
    // Prepare
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const probe = new Stack(app, 'Probe');
    const construct = new SyncScheduler(probe, 'Scheduler', {
      environment: {},
      interval: Duration.minutes(1),
      timeout: Duration.minutes(1),
    });

    // Act
    const errors = construct.node.validate();

    // Assess
    expect(errors).toEqual([expect.stringMatching(/timeout .* must be shorter than its interval/)]);
  });
});
