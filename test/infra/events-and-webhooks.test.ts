import { marshall } from '@aws-sdk/util-dynamodb';
import type { CfnElement, Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { keys, TABLE_KEYS } from '../../layers/core/adapters/dynamodb/table-design';
import { CLOUD_CONFIG, type CloudConfigPart, parseCloudConfig } from '../../layers/core/config';
import { WEBHOOK_TIMEOUT_MS } from '../../layers/core/domain/webhook';
import { FAMILIES } from '../../layers/core/http/routes/route-table';
import { OUTBOX_ATTRIBUTE, OUTBOX_PARTITION_PREFIX } from '../../lib/constructs/outbox-publisher';
import type { ServiceFunction } from '../../lib/constructs/service-function';
import {
  DELIVERY_MAX_RECEIVE_COUNT,
  DELIVERY_VISIBILITY_TIMEOUT_SECONDS,
} from '../../lib/local/local-dependencies';
import type { ServiceStack } from '../../lib/service-stack';

/** The encryption-context purposes of the secrets the secrets key seals (D33). */
const WEBHOOK_SECRET_PURPOSE = 'webhook-signing';
const SSO_SECRET_PURPOSE = 'sso-client-secret';
const CONNECTOR_TOKEN_PURPOSE = 'connector-oauth-tokens';
const MODEL_KEY_PURPOSE = 'model-key';

import { buildServiceStack, templateOf } from './service-stack-fixture';

type Resource = { Type: string; Properties: Record<string, any> };
type Statement = { Action: string[]; Resource: unknown[]; Condition?: unknown };

function logicalId(stack: Stack, construct: { node: { defaultChild?: unknown } }): string {
  return stack.getLogicalId(construct.node.defaultChild as CfnElement);
}

const arnOf = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/**
 * The variables layers/core/config.ts requires, read from the config itself:
 * parsing an empty environment names every missing one ("KEY: message").
 * AWS_REGION is Lambda's to set.
 */
function requiredConfigKeys(): string[] {
  const keys = new Set<string>();
  for (const part of Object.keys(CLOUD_CONFIG) as CloudConfigPart[]) {
    // P64: the session secret goes to the HTTP families only (test/infra/session-secret.test.ts).
    if (part === 'sessions') continue;
    try {
      parseCloudConfig(part, {});
    } catch (error) {
      for (const match of (error as Error).message.matchAll(/(?:\): |; )([A-Z][A-Z0-9_]*): /g)) {
        if (match[1] && match[1] !== 'AWS_REGION') keys.add(match[1]);
      }
    }
  }
  if (keys.size === 0) throw new Error('parseCloudConfig accepted an empty environment');
  return [...keys];
}

/** D29's schedule: attempts at 0 s, 5 s, 30 s, 5 min and 1 h. */
const SCHEDULE_SPAN_SECONDS = 5 + 30 + 5 * 60 + 3600;

describe('Issue 4 in the cloud: event publisher, webhook dispatcher, webhooks family', () => {
  let stack: ServiceStack;
  let template: Template;
  let resources: Record<string, Resource>;
  let deliveriesId: string;
  let secretsKeyId: string;

  /** The statements of a function role's policy, Action and Resource as arrays. */
  const statementsOf = (fn: ServiceFunction): Statement[] => {
    const policy = fn.role.node.findChild('DefaultPolicy') as { node: { defaultChild: unknown } };
    const document = resources[logicalId(stack, policy)]?.Properties.PolicyDocument;
    return (document.Statement as Array<Record<string, unknown>>).map((statement) => ({
      Action: asArray(statement.Action) as string[],
      Resource: asArray(statement.Resource),
      Condition: statement.Condition,
    }));
  };
  const propertiesOf = (construct: { node: { defaultChild?: unknown } }) =>
    resources[logicalId(stack, construct)]?.Properties ?? {};
  const mappingOf = (fn: ServiceFunction) => {
    const fnId = logicalId(stack, fn.function);
    const mappings = Object.values(resources).filter(
      (resource) =>
        resource.Type === 'AWS::Lambda::EventSourceMapping' &&
        resource.Properties.FunctionName?.Ref === fnId,
    );
    expect(mappings).toHaveLength(1);
    return mappings[0]?.Properties ?? {};
  };
  /**
   * Every function of the stack that builds dependencies: not the fallback,
   * nor the search index bootstrap (it builds an OpenSearch client only).
   */
  const configuredFunctions = (): Array<[string, ServiceFunction]> => [
    ...stack.http.functions,
    ['sync-worker', stack.syncWorker.worker],
    ['webhook-dispatcher', stack.webhookDispatcher.worker],
    ['event-publisher', stack.eventPublisher.publisher],
    ['scheduler', stack.syncScheduler.scheduler],
  ];

  beforeAll(() => {
    // One synth for the file; no bundling, these tests read configuration only.
    const built = buildServiceStack({ environment: 'test' });
    stack = built.stack;
    template = templateOf(built);
    resources = template.toJSON().Resources as Record<string, Resource>;
    deliveriesId = logicalId(stack, stack.queues.webhookDeliveries.queue);
    secretsKeyId = logicalId(stack, stack.secretsKey.key);
  });

  describe('function configuration (layers/core/config.ts)', () => {
    it('gives every function that builds dependencies every variable the config requires', () => {
      const required = requiredConfigKeys();
      expect(required).toEqual(
        expect.arrayContaining(['TABLE_NAME', 'DELIVERY_QUEUE_URL', 'SECRETS_KEY_ARN']),
      );
      for (const [name, fn] of configuredFunctions()) {
        const variables = propertiesOf(fn.function).Environment?.Variables ?? {};
        expect({ name, keys: Object.keys(variables) }).toEqual({
          name,
          keys: expect.arrayContaining(required),
        });
        expect(variables).toMatchObject({
          DELIVERY_QUEUE_URL: { Ref: deliveriesId },
          SECRETS_KEY_ARN: arnOf(secretsKeyId),
        });
      }
      expect(configuredFunctions()).toHaveLength(FAMILIES.length + 4);
    });

    it('gives the fallback no configuration (it never reads the table, queues or keys)', () => {
      const variables = propertiesOf(stack.http.fallback.function).Environment.Variables;
      for (const key of requiredConfigKeys()) expect(variables).not.toHaveProperty(key);
    });
  });

  describe('webhooks family (D30)', () => {
    it('is a family of the route table, with its own function behind the API', () => {
      expect(FAMILIES).toContain('webhooks');
      expect(stack.http.functions.get('webhooks')).toBeDefined();
    });

    it('may run longer than one outbound POST, within API Gateway’s 29 s', () => {
      const webhooks = stack.http.functions.get('webhooks');
      if (!webhooks) throw new Error('no webhooks function');
      const timeout = propertiesOf(webhooks.function).Timeout as number;
      expect(timeout).toBeGreaterThan(WEBHOOK_TIMEOUT_MS / 1000);
      expect(timeout).toBeLessThanOrEqual(29);
    });

    it('runs outside a VPC, so it reaches customer URLs directly', () => {
      for (const [, fn] of configuredFunctions()) {
        expect(propertiesOf(fn.function).VpcConfig).toBeUndefined();
      }
    });
  });

  describe('webhook deliveries queue', () => {
    it('redrives after 8 receives, like the local runtime: above the 5 attempts of D29', () => {
      const queue = resources[deliveriesId]?.Properties ?? {};
      expect(queue.RedrivePolicy.maxReceiveCount).toBe(8);
      expect(queue.RedrivePolicy.maxReceiveCount).toBe(DELIVERY_MAX_RECEIVE_COUNT);
      expect(queue.MessageRetentionPeriod).toBeGreaterThan(SCHEDULE_SPAN_SECONDS);
    });

    it('has a visibility timeout of at least six dispatcher timeouts (AWS guidance)', () => {
      const visibility = resources[deliveriesId]?.Properties.VisibilityTimeout as number;
      const timeout = propertiesOf(stack.webhookDispatcher.worker.function).Timeout as number;
      expect(visibility).toBe(180);
      expect(visibility).toBeGreaterThanOrEqual(6 * timeout);
      // The local runtime's 60 s needs no Lambda margin; both outlast one POST.
      expect(visibility).toBeGreaterThanOrEqual(DELIVERY_VISIBILITY_TIMEOUT_SECONDS);
    });
  });

  describe('webhook dispatcher', () => {
    it('is an ARM64 function with room for a 10 s POST and reserved concurrency', () => {
      const properties = propertiesOf(stack.webhookDispatcher.worker.function);
      expect(properties).toMatchObject({
        Architectures: ['arm64'],
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
        Timeout: 30,
        ReservedConcurrentExecutions: 10,
      });
      // One POST (D29) with a safety factor for the KMS and DynamoDB calls around it.
      expect(properties.Timeout).toBeGreaterThanOrEqual((2 * WEBHOOK_TIMEOUT_MS) / 1000);
    });

    it('consumes the deliveries queue in batches of 10, reporting batch item failures', () => {
      expect(mappingOf(stack.webhookDispatcher.worker)).toMatchObject({
        EventSourceArn: arnOf(deliveriesId),
        BatchSize: 10,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        MaximumBatchingWindowInSeconds: expect.any(Number),
        // No more batches at once than the function may run: none is throttled.
        ScalingConfig: { MaximumConcurrency: 10 },
      });
      expect(
        mappingOf(stack.webhookDispatcher.worker).MaximumBatchingWindowInSeconds,
      ).toBeLessThanOrEqual(5);
    });

    it('may change message visibility on the deliveries queue, and nothing else may', () => {
      const everyStatement = Object.values(resources)
        .filter((resource) => resource.Type === 'AWS::IAM::Policy')
        .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[])
        .filter(
          (statement) =>
            asArray(statement.Action).includes('sqs:ChangeMessageVisibility') &&
            asArray(statement.Resource).some(
              (r) => JSON.stringify(r) === JSON.stringify(arnOf(deliveriesId)),
            ),
        );
      const dispatcherStatements = statementsOf(stack.webhookDispatcher.worker).filter(
        (statement) => statement.Action.includes('sqs:ChangeMessageVisibility'),
      );
      expect(dispatcherStatements).toHaveLength(1);
      expect(dispatcherStatements[0]?.Resource).toEqual([arnOf(deliveriesId)]);
      expect(everyStatement).toHaveLength(1);
    });

    it('reads and writes table items, and sends no messages', () => {
      const actions = statementsOf(stack.webhookDispatcher.worker).flatMap((s) => s.Action);
      expect(actions).toEqual(
        expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:Query']),
      );
      expect(actions).not.toContain('dynamodb:Scan');
      expect(actions).not.toContain('sqs:SendMessage');
    });
  });

  describe('table stream and event publisher', () => {
    it('turns the table stream on with new images', () => {
      expect(propertiesOf(stack.data.table).StreamSpecification).toEqual({
        StreamViewType: 'NEW_IMAGE',
      });
    });

    it('reads the stream from LATEST, bisecting, retrying, reporting item failures', () => {
      const tableId = logicalId(stack, stack.data.table);
      expect(mappingOf(stack.eventPublisher.publisher)).toMatchObject({
        EventSourceArn: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
        StartingPosition: 'LATEST',
        BisectBatchOnFunctionError: true,
        MaximumRetryAttempts: expect.any(Number),
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        DestinationConfig: {
          OnFailure: { Destination: arnOf(logicalId(stack, stack.eventPublisher.failedBatches)) },
        },
      });
    });

    it('is invoked only for new images with a pending outbox', () => {
      const { Filters } = mappingOf(stack.eventPublisher.publisher).FilterCriteria as {
        Filters: Array<{ Pattern: string }>;
      };
      const patterns = Filters.map((filter) => JSON.parse(filter.Pattern));
      // Every pattern looks at the new image only, so other records never invoke it.
      for (const pattern of patterns) expect(Object.keys(pattern.dynamodb)).toEqual(['NewImage']);
      expect(patterns).toContainEqual({
        dynamodb: {
          NewImage: { [OUTBOX_ATTRIBUTE]: { L: { M: { id: { S: [{ exists: true }] } } } } },
        },
      });
      expect(patterns).toContainEqual({
        dynamodb: {
          NewImage: {
            [TABLE_KEYS.gsi1.partitionKey]: { S: [{ prefix: OUTBOX_PARTITION_PREFIX }] },
          },
        },
      });
    });

    it('filters on paths a stored outbox item really has (marshalled as the stream sends it)', () => {
      const image = marshall({
        PK: 'ORG#org_1',
        SK: 'AGENT#agt_1',
        [OUTBOX_ATTRIBUTE]: [{ id: 'evt_1', type: 'agent.created', data: {} }],
        [TABLE_KEYS.gsi1.partitionKey]: keys.outboxPartition(0),
      }) as Record<string, any>;
      expect(typeof image[OUTBOX_ATTRIBUTE].L[0].M.id.S).toBe('string');
      for (let shard = 0; shard < keys.outboxShards; shard += 1) {
        expect(keys.outboxPartition(shard).startsWith(OUTBOX_PARTITION_PREFIX)).toBe(true);
      }
    });

    it('sends failed stream batches to an encrypted queue of its own, watched by an alarm', () => {
      const queueId = logicalId(stack, stack.eventPublisher.failedBatches);
      expect(resources[queueId]?.Properties).toMatchObject({
        KmsMasterKeyId: arnOf(logicalId(stack, stack.encryptionKey.key)),
        MessageRetentionPeriod: 1_209_600,
      });
      const watched = Object.values(resources).filter(
        (resource) =>
          resource.Type === 'AWS::CloudWatch::Alarm' &&
          JSON.stringify(resource.Properties.Dimensions ?? null).includes(`"${queueId}"`),
      );
      expect(watched).toHaveLength(1);
    });

    it('also runs every five minutes to sweep the outbox', () => {
      const publisherId = logicalId(stack, stack.eventPublisher.publisher.function);
      expect(propertiesOf(stack.eventPublisher.sweep)).toMatchObject({
        ScheduleExpression: 'rate(5 minutes)',
        State: 'ENABLED',
        Targets: [expect.objectContaining({ Arn: arnOf(publisherId) })],
      });
      template.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunction',
        FunctionName: arnOf(publisherId),
        Principal: 'events.amazonaws.com',
        SourceArn: arnOf(logicalId(stack, stack.eventPublisher.sweep)),
      });
    });

    it('queries the outbox partitions of GSI1 and sends to the deliveries queue', () => {
      const statements = statementsOf(stack.eventPublisher.publisher);
      const tableId = logicalId(stack, stack.data.table);
      expect(statements).toContainEqual(
        expect.objectContaining({
          Action: expect.arrayContaining(['dynamodb:Query', 'dynamodb:UpdateItem']),
          Resource: expect.arrayContaining([{ 'Fn::Join': ['', [arnOf(tableId), '/index/*']] }]),
        }),
      );
      const sends = statements.filter((statement) => statement.Action.includes('sqs:SendMessage'));
      expect(sends.flatMap((statement) => statement.Resource)).toContainEqual(arnOf(deliveriesId));
    });
  });

  describe('who may send to the deliveries queue', () => {
    it('is the webhooks family (manual retry) and the publisher, nobody else', () => {
      const senders = configuredFunctions()
        .filter(([, fn]) =>
          statementsOf(fn).some(
            (statement) =>
              statement.Action.includes('sqs:SendMessage') &&
              statement.Resource.some(
                (r) => JSON.stringify(r) === JSON.stringify(arnOf(deliveriesId)),
              ),
          ),
        )
        .map(([name]) => name);
      expect(senders.sort()).toEqual(['event-publisher', 'webhooks'].sort());
    });
  });

  describe('secrets key (D33)', () => {
    it('is a customer-managed key of its own, with rotation', () => {
      expect(secretsKeyId).not.toBe(logicalId(stack, stack.encryptionKey.key));
      expect(resources[secretsKeyId]?.Properties.EnableKeyRotation).toBe(true);
    });

    it('may be used by the webhooks family (seal, open), the dispatcher (open), sso (P85), connections and the sync worker (issue 12), model-keys (seal) and query (open, P130) for their own purposes only', () => {
      const usesOf = (fn: ServiceFunction) =>
        statementsOf(fn).filter((statement) =>
          statement.Resource.some((r) => JSON.stringify(r) === JSON.stringify(arnOf(secretsKeyId))),
        );
      const purpose = {
        StringEquals: { 'kms:EncryptionContext:purpose': WEBHOOK_SECRET_PURPOSE },
      };
      const users: Record<string, Statement[]> = {};
      for (const [name, fn] of [
        ...configuredFunctions(),
        ['fallback', stack.http.fallback] as const,
      ]) {
        const uses = usesOf(fn);
        if (uses.length > 0) users[name] = uses;
      }
      expect(Object.keys(users).sort()).toEqual(
        [
          'webhooks',
          'webhook-dispatcher',
          'sso',
          'connections',
          'sync-worker',
          'model-keys',
          'query',
          'mcp',
          'openai',
        ].sort(),
      );
      // D33: connector tokens under a purpose of their own, sealed at sign-in and again after a refresh.
      for (const name of ['connections', 'sync-worker']) {
        expect(users[name]).toEqual([
          {
            Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
            Resource: [arnOf(secretsKeyId)],
            Condition: {
              StringEquals: { 'kms:EncryptionContext:purpose': CONNECTOR_TOKEN_PURPOSE },
            },
          },
        ]);
      }
      expect(CONNECTOR_TOKEN_PURPOSE).toBe('connector-oauth-tokens');
      // D33, P130: model keys under their own purpose: sealed where registered, opened only where agents answer.
      const modelKeys = { StringEquals: { 'kms:EncryptionContext:purpose': MODEL_KEY_PURPOSE } };
      expect(users['model-keys']).toEqual([
        {
          Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
          Resource: [arnOf(secretsKeyId)],
          Condition: modelKeys,
        },
      ]);
      for (const answering of ['query', 'mcp', 'openai']) {
        expect(users[answering]).toEqual([
          { Action: ['kms:Decrypt'], Resource: [arnOf(secretsKeyId)], Condition: modelKeys },
        ]);
      }
      expect(MODEL_KEY_PURPOSE).toBe('model-key');
      expect(users.webhooks).toEqual([
        {
          Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
          Resource: [arnOf(secretsKeyId)],
          Condition: purpose,
        },
      ]);
      expect(users['webhook-dispatcher']).toEqual([
        { Action: ['kms:Decrypt'], Resource: [arnOf(secretsKeyId)], Condition: purpose },
      ]);
      // D33: SSO's client secrets are sealed under a purpose of their own: neither opens the other's.
      expect(users.sso).toEqual([
        {
          Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
          Resource: [arnOf(secretsKeyId)],
          Condition: { StringEquals: { 'kms:EncryptionContext:purpose': SSO_SECRET_PURPOSE } },
        },
      ]);
      expect(WEBHOOK_SECRET_PURPOSE).toBe('webhook-signing');
      expect(SSO_SECRET_PURPOSE).toBe('sso-client-secret');
    });
  });

  describe('alarms', () => {
    const alarmsOf = (predicate: (properties: Record<string, any>) => boolean) =>
      Object.values(resources).filter(
        (resource) => resource.Type === 'AWS::CloudWatch::Alarm' && predicate(resource.Properties),
      );

    it('alarms on errors of the dispatcher and the publisher', () => {
      for (const fn of [stack.webhookDispatcher.worker, stack.eventPublisher.publisher]) {
        const fnId = logicalId(stack, fn.function);
        expect(
          alarmsOf(
            (p) => p.MetricName === 'Errors' && JSON.stringify(p.Dimensions).includes(`"${fnId}"`),
          ),
        ).toHaveLength(1);
      }
    });

    it('alarms when a delivery has waited longer than its five attempts take', () => {
      const [alarm] = alarmsOf((p) => p.MetricName === 'ApproximateAgeOfOldestMessage');
      expect(alarm?.Properties).toMatchObject({
        Namespace: 'AWS/SQS',
        Threshold: 7200,
        ComparisonOperator: 'GreaterThanThreshold',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [deliveriesId, 'QueueName'] } }],
      });
      expect(alarm?.Properties.Threshold).toBeGreaterThan(SCHEDULE_SPAN_SECONDS);
    });

    it('still alarms on the deliveries dead-letter queue (crashes only)', () => {
      const dlqId = logicalId(stack, stack.queues.webhookDeliveries.deadLetterQueue);
      expect(
        alarmsOf(
          (p) =>
            p.MetricName === 'ApproximateNumberOfMessagesVisible' &&
            JSON.stringify(p.Dimensions).includes(`"${dlqId}"`),
        ),
      ).toHaveLength(1);
    });
  });
});
