import type { CfnElement } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { TABLE_KEYS } from '../../layers/core/adapters/dynamodb/table-design';
import { DURATION_ALARM_RATIO } from '../../lib/constructs/alarms';
import type { ServiceFunction } from '../../lib/constructs/service-function';
import type { ServiceStack } from '../../lib/service-stack';
import { SYNC_WORKER_DURATION_ALARM } from '../../lib/service-workers';
import { declaredFamily } from './family-needs';
import { buildServiceStack, logicalIdOf, ownFunctions, templateOf } from './service-stack-fixture';

type Alarm = { Properties: Record<string, any> };

describe('Construct: Alarms in the service stack (throttles, durations, table, search domain)', () => {
  let stack: ServiceStack;
  let alarms: Alarm[];
  let topicRef: { Ref: string };

  const functionRef = (fn: ServiceFunction) => ({
    Ref: stack.getLogicalId(fn.function.node.defaultChild as CfnElement),
  });
  const lambdaAlarms = (metricName: string, fn: ServiceFunction) =>
    alarms.filter(
      (alarm) =>
        alarm.Properties.Namespace === 'AWS/Lambda' &&
        alarm.Properties.MetricName === metricName &&
        JSON.stringify(alarm.Properties.Dimensions) ===
          JSON.stringify([{ Name: 'FunctionName', Value: functionRef(fn) }]),
    );
  const searchAlarm = (metricName: string) =>
    alarms.find(
      (alarm) =>
        alarm.Properties.Namespace === 'AWS/ES' && alarm.Properties.MetricName === metricName,
    );

  beforeAll(() => {
    const built = buildServiceStack({ environment: 'live' });
    stack = built.stack;
    const template: Template = templateOf(built);
    alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')) as Alarm[];
    topicRef = { Ref: logicalIdOf(stack.alarms.topic) };
  });

  it('alarms on any throttle of every function of ours', () => {
    // 18 before the knowledge base, model keys and connections (issue 11, issue 12); 23 with
    // evaluations (the evals family and the eval worker, issue 11 item 5); 25 with the MCP
    // server and OpenAI-compatible chat (issue 30).
    expect(ownFunctions(stack)).toHaveLength(25);
    for (const [name, fn] of ownFunctions(stack)) {
      expect({ name, alarms: lambdaAlarms('Throttles', fn).map((a) => a.Properties) }).toEqual({
        name,
        alarms: [
          expect.objectContaining({
            Statistic: 'Sum',
            Period: 300,
            Threshold: 1,
            ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          }),
        ],
      });
    }
  });

  it('alarms when a function’s p99 duration nears its timeout, sustained', () => {
    for (const [name, fn] of ownFunctions(stack)) {
      const timeoutMs = (fn.function.timeout?.toSeconds() ?? 3) * 1000;
      const expected =
        name === 'sync-worker'
          ? SYNC_WORKER_DURATION_ALARM.toMilliseconds()
          : Math.round(timeoutMs * DURATION_ALARM_RATIO);
      expect({ name, alarms: lambdaAlarms('Duration', fn).map((a) => a.Properties) }).toEqual({
        name,
        alarms: [
          expect.objectContaining({
            ExtendedStatistic: 'p99',
            Period: 300,
            Threshold: expected,
            EvaluationPeriods: 3,
            DatapointsToAlarm: 2,
          }),
        ],
      });
      expect(expected).toBeLessThan(timeoutMs);
    }
    // The streamed query may run a minute: the alarm is at 54 s.
    const query = stack.http.functions.get('query');
    if (!query) throw new Error('no query function');
    expect(lambdaAlarms('Duration', query)[0]?.Properties.Threshold).toBe(
      (declaredFamily('query').needs.timeoutSeconds ?? 0) * 1000 * 0.9,
    );
  });

  it('gives the sync worker’s duration alarm room for the crawl’s own 60 s finishing margin', () => {
    expect(SYNC_WORKER_DURATION_ALARM.toSeconds()).toBe(15 * 60 - 30);
  });

  it.each([
    ['Read', 'ReadThrottleEvents'],
    ['Write', 'WriteThrottleEvents'],
  ])('alarms on DynamoDB %s throttle events of the table and both indexes', (_kind, metricName) => {
    const tableRef = { Ref: stack.getLogicalId(stack.data.table.node.defaultChild as CfnElement) };
    const alarm = alarms.find((a) =>
      (a.Properties.Metrics as Array<Record<string, any>> | undefined)?.some(
        (query) => query.MetricStat?.Metric.MetricName === metricName,
      ),
    );
    expect(alarm?.Properties).toMatchObject({
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
    });
    const queries = alarm?.Properties.Metrics as Array<Record<string, any>>;
    expect(queries.find((query) => query.ReturnData !== false)?.Expression).toMatch(/^SUM\(\[/);
    const dimensions = queries
      .filter((query) => query.MetricStat)
      .map((query) => query.MetricStat.Metric.Dimensions);
    expect(dimensions).toEqual(
      expect.arrayContaining([
        [{ Name: 'TableName', Value: tableRef }],
        ...[TABLE_KEYS.gsi1.indexName, TABLE_KEYS.gsi2.indexName].map((indexName) =>
          expect.arrayContaining([
            { Name: 'TableName', Value: tableRef },
            { Name: 'GlobalSecondaryIndexName', Value: indexName },
          ]),
        ),
      ]),
    );
    expect(dimensions).toHaveLength(3);
  });

  it('alarms as soon as the search domain is red', () => {
    expect(searchAlarm('ClusterStatus.red')?.Properties).toMatchObject({
      Statistic: 'Maximum',
      Period: 60,
      Threshold: 1,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Dimensions: expect.arrayContaining([{ Name: 'DomainName', Value: 'aqs-live' }]),
    });
  });

  it('alarms when the search domain has been yellow for 15 minutes', () => {
    expect(searchAlarm('ClusterStatus.yellow')?.Properties).toMatchObject({
      Statistic: 'Maximum',
      Period: 300,
      Threshold: 1,
      EvaluationPeriods: 3,
    });
  });

  it('alarms when a data node has a quarter of its volume free or less', () => {
    // live: 100 GiB per node; FreeStorageSpace is in MiB.
    expect(searchAlarm('FreeStorageSpace')?.Properties).toMatchObject({
      Statistic: 'Minimum',
      Threshold: 25_600,
      ComparisonOperator: 'LessThanOrEqualToThreshold',
    });
  });

  it('alarms on JVM memory pressure of 95% for three minutes', () => {
    expect(searchAlarm('JVMMemoryPressure')?.Properties).toMatchObject({
      Statistic: 'Maximum',
      Period: 60,
      Threshold: 95,
      EvaluationPeriods: 3,
    });
  });

  it('alarms when the search domain blocks index writes', () => {
    expect(searchAlarm('ClusterIndexWritesBlocked')?.Properties).toMatchObject({
      Statistic: 'Maximum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it('sends every alarm, and its return to OK, to the alarm topic', () => {
    expect(alarms.length).toBeGreaterThan(0);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([topicRef]);
      expect(alarm.Properties.OKActions).toEqual([topicRef]);
    }
  });
});
