import { type CfnElement, type Stack, Token } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { TABLE_KEYS } from '../../layers/core/adapters/dynamodb/table-design';
import { FAMILIES } from '../../layers/core/http/routes/route-table';
import type { ServiceStack } from '../../lib/service-stack';
import { SYNC_JOB_VISIBILITY } from '../../lib/service-workers';
import { buildServiceStack, logicalIdOf, templateOf } from './service-stack-fixture';

/** The logical id of a construct's CloudFormation resource. */
function logicalId(stack: Stack, construct: { node: { defaultChild?: unknown } }): string {
  return stack.getLogicalId(construct.node.defaultChild as CfnElement);
}

describe('Class: ServiceStack (environment "test", bundled with esbuild)', () => {
  let stack: ServiceStack;
  let template: Template;

  beforeAll(() => {
    // Prepare: one real synth for the whole file, bundling included.
    const built = buildServiceStack({ environment: 'test' }, { bundle: true });
    stack = built.stack;
    template = templateOf(built);
  });

  describe('encryption key', () => {
    it('creates three customer-managed keys with rotation on: stores, secrets (D33) and upload events', () => {
      // The upload-event queue has its own key: S3 may only send to it if the
      // key's policy names the bucket, which is encrypted with the store key.
      template.resourceCountIs('AWS::KMS::Key', 3);
      for (const key of Object.values(template.findResources('AWS::KMS::Key'))) {
        expect(key.Properties.EnableKeyRotation).toBe(true);
      }
    });

    it('lets CloudWatch Logs and CloudWatch alarms use the key', () => {
      template.hasResourceProperties('AWS::KMS::Key', {
        KeyPolicy: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Sid: 'AllowCloudWatchLogsOfThisAccount',
              Principal: { Service: Match.anyValue() },
            }),
            Match.objectLike({
              Sid: 'AllowCloudWatchAlarmsToPublishToEncryptedTopics',
              Principal: { Service: 'cloudwatch.amazonaws.com' },
            }),
          ]),
        },
      });
    });
  });

  describe('data store', () => {
    it('matches TABLE_KEYS: PK/SK strings, GSI1 with every attribute, GSI2 with a few, TTL on expires_at', () => {
      const { partitionKey, sortKey, gsi1, gsi2, ttlAttribute } = TABLE_KEYS;
      template.resourceCountIs('AWS::DynamoDB::Table', 1);
      template.hasResourceProperties('AWS::DynamoDB::Table', {
        KeySchema: [
          { AttributeName: partitionKey, KeyType: 'HASH' },
          { AttributeName: sortKey, KeyType: 'RANGE' },
        ],
        AttributeDefinitions: Match.arrayWith(
          [
            partitionKey,
            sortKey,
            gsi1.partitionKey,
            gsi1.sortKey,
            gsi2.partitionKey,
            gsi2.sortKey,
          ].map((name) => ({
            AttributeName: name,
            AttributeType: 'S',
          })),
        ),
        GlobalSecondaryIndexes: [
          {
            IndexName: gsi1.indexName,
            KeySchema: [
              { AttributeName: gsi1.partitionKey, KeyType: 'HASH' },
              { AttributeName: gsi1.sortKey, KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          },
          {
            // D23: the sync schedule, projecting only what the scheduler reads.
            IndexName: gsi2.indexName,
            KeySchema: [
              { AttributeName: gsi2.partitionKey, KeyType: 'HASH' },
              { AttributeName: gsi2.sortKey, KeyType: 'RANGE' },
            ],
            Projection: {
              ProjectionType: 'INCLUDE',
              NonKeyAttributes: ['org_id', 'id', 'sync_frequency', 'next_sync_at'],
            },
          },
        ],
        TimeToLiveSpecification: { AttributeName: ttlAttribute, Enabled: true },
        BillingMode: 'PAY_PER_REQUEST',
      });
    });

    it('has point-in-time recovery and customer-managed KMS encryption', () => {
      template.hasResourceProperties('AWS::DynamoDB::Table', {
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: {
          SSEEnabled: true,
          SSEType: 'KMS',
          KMSMasterKeyId: { 'Fn::GetAtt': [logicalId(stack, stack.encryptionKey.key), 'Arn'] },
        },
      });
    });

    it('can be torn down with a test deployment', () => {
      template.hasResource('AWS::DynamoDB::Table', {
        DeletionPolicy: 'Delete',
        Properties: { DeletionProtectionEnabled: false },
      });
    });
  });

  describe('queues', () => {
    it('creates four work queues, each with its own dead-letter queue', () => {
      // The ninth is the event publisher's failed-batch queue (a destination, not redriven).
      template.resourceCountIs('AWS::SQS::Queue', 9);
      const queues = template.findResources('AWS::SQS::Queue');
      expect(
        queues[logicalId(stack, stack.eventPublisher.failedBatches)]?.Properties.RedrivePolicy,
      ).toBeUndefined();
      const redriven = Object.values(queues).filter((queue) => queue.Properties?.RedrivePolicy);
      expect(redriven).toHaveLength(4);
      const targets = redriven.map(
        (queue) => queue.Properties.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0] as string,
      );
      expect(new Set(targets).size).toBe(4);
      for (const target of targets) {
        // A DLQ keeps its letters 14 days and is not itself redriven.
        expect(queues[target]?.Properties).toMatchObject({ MessageRetentionPeriod: 1_209_600 });
        expect(queues[target]?.Properties?.RedrivePolicy).toBeUndefined();
      }
    });

    it('encrypts every queue with the service key, the upload-event queues with their own', () => {
      const keyId = logicalId(stack, stack.encryptionKey.key);
      const uploadKeyId = logicalId(stack, stack.uploadEventsKey.key);
      const ingestion = [stack.queues.ingestion.queue, stack.queues.ingestion.deadLetterQueue].map(
        (queue) => logicalId(stack, queue),
      );
      for (const [id, queue] of Object.entries(template.findResources('AWS::SQS::Queue'))) {
        expect(queue.Properties.KmsMasterKeyId).toEqual({
          'Fn::GetAtt': [ingestion.includes(id) ? uploadKeyId : keyId, 'Arn'],
        });
      }
    });

    it('refuses requests without TLS on every queue', () => {
      const policies = Object.values(template.findResources('AWS::SQS::QueuePolicy'));
      expect(policies).toHaveLength(9);
      for (const policy of policies) {
        expect(policy.Properties.PolicyDocument.Statement).toEqual(
          expect.arrayContaining([
            expect.objectContaining({
              Effect: 'Deny',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        );
      }
    });

    it('lets webhook deliveries retry five times before redrive can happen', () => {
      const queue = stack.queues.webhookDeliveries.queue;
      const properties =
        template.findResources('AWS::SQS::Queue')[logicalId(stack, queue)]?.Properties;
      expect(properties.RedrivePolicy.maxReceiveCount).toBeGreaterThan(5);
      // Retention must outlast the 5 s, 30 s, 5 min, 1 h schedule.
      expect(properties.MessageRetentionPeriod).toBeGreaterThan(2 * 3600);
    });

    it('gives sync jobs a visibility timeout of six 15-minute crawls', () => {
      const queue = stack.queues.syncJobs.queue;
      expect(
        template.findResources('AWS::SQS::Queue')[logicalId(stack, queue)]?.Properties
          .VisibilityTimeout,
      ).toBe(SYNC_JOB_VISIBILITY.toSeconds());
      expect(SYNC_JOB_VISIBILITY.toSeconds()).toBe(6 * 15 * 60);
    });
  });

  describe('file store', () => {
    it('encrypts the file bucket with the service key (SSE-KMS, bucket key)', () => {
      template.hasResourceProperties('AWS::S3::Bucket', {
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [
            {
              BucketKeyEnabled: true,
              ServerSideEncryptionByDefault: {
                SSEAlgorithm: 'aws:kms',
                KMSMasterKeyID: {
                  'Fn::GetAtt': [logicalId(stack, stack.encryptionKey.key), 'Arn'],
                },
              },
            },
          ],
        },
        VersioningConfiguration: { Status: 'Enabled' },
        LoggingConfiguration: {
          DestinationBucketName: { Ref: logicalId(stack, stack.files.accessLogBucket) },
        },
      });
    });

    it('blocks public access on every bucket and requires TLS', () => {
      // The file bucket and its access logs; the console's bucket and its distribution's logs.
      const buckets = Object.values(template.findResources('AWS::S3::Bucket'));
      expect(buckets).toHaveLength(4);
      for (const bucket of buckets) {
        expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        });
      }
      for (const policy of Object.values(template.findResources('AWS::S3::BucketPolicy'))) {
        expect(policy.Properties.PolicyDocument.Statement).toEqual(
          expect.arrayContaining([
            expect.objectContaining({
              Effect: 'Deny',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        );
      }
    });
  });

  describe('search domain', () => {
    it('runs OpenSearch 2.x with encryption at rest, node-to-node encryption and HTTPS only', () => {
      template.hasResourceProperties('AWS::OpenSearchService::Domain', {
        EngineVersion: Match.stringLikeRegexp('^OpenSearch_2\\.'),
        EncryptionAtRestOptions: { Enabled: true, KmsKeyId: Match.anyValue() },
        NodeToNodeEncryptionOptions: { Enabled: true },
        DomainEndpointOptions: {
          EnforceHTTPS: true,
          TLSSecurityPolicy: Match.stringLikeRegexp('^Policy-Min-TLS-1-2'),
        },
      });
    });

    it('publishes slow and application logs to CloudWatch', () => {
      const published = { Enabled: true, CloudWatchLogsLogGroupArn: Match.anyValue() };
      template.hasResourceProperties('AWS::OpenSearchService::Domain', {
        LogPublishingOptions: {
          SEARCH_SLOW_LOGS: published,
          INDEX_SLOW_LOGS: published,
          ES_APPLICATION_LOGS: published,
        },
      });
      // The document is a Fn::Join (it names log group ARNs), so look inside its text.
      const [logPolicy] = Object.values(template.findResources('AWS::Logs::ResourcePolicy'));
      expect(JSON.stringify(logPolicy?.Properties.PolicyDocument)).toContain(
        '\\"Service\\":\\"es.amazonaws.com\\"',
      );
    });

    it('is small and cheap for test: one node, no zone awareness, no dedicated masters', () => {
      template.hasResourceProperties('AWS::OpenSearchService::Domain', {
        ClusterConfig: {
          InstanceType: 't3.small.search',
          InstanceCount: 1,
          ZoneAwarenessEnabled: false,
          DedicatedMasterEnabled: false,
        },
      });
    });

    it('allows no anonymous access: only the granted roles, on this domain’s paths', () => {
      const domain = Object.values(template.findResources('AWS::OpenSearchService::Domain'))[0];
      const statements = domain?.Properties.AccessPolicies.Statement as Array<Record<string, any>>;
      expect(statements).toEqual([
        expect.objectContaining({
          Effect: 'Allow',
          Principal: { AWS: expect.any(Array) },
          Resource: stack.resolve(`${stack.search.domainArn}/*`),
        }),
      ]);
      for (const principal of (statements[0]?.Principal.AWS ?? []) as unknown[]) {
        expect(principal).toEqual({ 'Fn::GetAtt': [expect.any(String), 'Arn'] });
      }
    });
  });

  describe('session signing secret', () => {
    it('is generated by Secrets Manager, at least 256 bits, and KMS-encrypted (D12)', () => {
      template.hasResourceProperties('AWS::SecretsManager::Secret', {
        KmsKeyId: { 'Fn::GetAtt': [logicalId(stack, stack.encryptionKey.key), 'Arn'] },
        GenerateSecretString: Match.objectLike({
          ExcludePunctuation: true,
          PasswordLength: Match.anyValue(),
        }),
      });
      const secret = Object.values(template.findResources('AWS::SecretsManager::Secret'))[0];
      const length = secret?.Properties.GenerateSecretString.PasswordLength as number;
      expect(length * Math.log2(62)).toBeGreaterThanOrEqual(256);
    });
  });

  describe('alarms', () => {
    const alarmsOn = (metricName: string) =>
      Object.values(template.findResources('AWS::CloudWatch::Alarm')).filter(
        (alarm) => alarm.Properties.MetricName === metricName,
      );

    it('alarms on messages in each dead-letter queue', () => {
      const watched = alarmsOn('ApproximateNumberOfMessagesVisible').map((alarm) => {
        expect(alarm.Properties).toMatchObject({
          Threshold: 0,
          ComparisonOperator: 'GreaterThanThreshold',
        });
        return alarm.Properties.Dimensions[0].Value['Fn::GetAtt'][0] as string;
      });
      expect(watched.sort()).toEqual(
        [
          ...Object.values(stack.queues).map((queue) => logicalId(stack, queue.deadLetterQueue)),
          logicalId(stack, stack.eventPublisher.failedBatches),
        ].sort(),
      );
    });

    it('alarms on API 5XX errors and on errors of every function that serves or works', () => {
      expect(alarmsOn('5XXError')).toHaveLength(1);
      const watched = alarmsOn('Errors').map(
        (alarm) => alarm.Properties.Dimensions[0].Value.Ref as string,
      );
      const expected = [
        ...stack.http.functions.values(),
        stack.http.fallback,
        stack.syncWorker.worker,
        stack.ingestionWorker.worker,
        stack.evalWorker.worker,
        stack.webhookDispatcher.worker,
        stack.eventPublisher.publisher,
        stack.syncScheduler.scheduler,
      ].map((fn) => logicalId(stack, fn.function));
      expect(watched.sort()).toEqual(expected.sort());
      // The index bootstrap runs only during deployments, whose failures CloudFormation reports.
      expect(watched).not.toContain(logicalId(stack, stack.searchIndexes.handler.function));
    });

    it('sends every alarm to the KMS-encrypted, TLS-only alarm topic', () => {
      const topicId = logicalIdOf(stack.alarms.topic);
      for (const alarm of Object.values(template.findResources('AWS::CloudWatch::Alarm'))) {
        expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
      }
      template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
      template.hasResourceProperties('AWS::SNS::TopicPolicy', {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
      // No alarmEmail in context: no subscription.
      template.resourceCountIs('AWS::SNS::Subscription', 0);
    });
  });

  describe('logs', () => {
    it('gives every log group a retention (30 days for test) and the service key', () => {
      const groups = Object.values(template.findResources('AWS::Logs::LogGroup'));
      // One per function (families, fallback, sync worker, ingestion worker,
      // eval worker, dispatcher, publisher, sync scheduler, index bootstrap
      // and its provider), API access + execution logs, 3 search domain logs.
      expect(groups).toHaveLength(FAMILIES.length + 9 + 2 + 3);
      for (const group of groups) {
        expect(group.Properties).toMatchObject({
          RetentionInDays: 30,
          KmsKeyId: expect.anything(),
        });
      }
    });
  });

  it('exports the API URL and the names of what it created', () => {
    const outputs = Object.keys(template.findOutputs('*'));
    expect(outputs).toEqual(
      expect.arrayContaining([
        'ApiUrl',
        'TableName',
        'SyncQueueUrl',
        'IngestionQueueUrl',
        'WebhookDeliveryQueueUrl',
        'FileBucketName',
        'SearchDomainEndpoint',
        'SessionSecretArn',
        'AlarmTopicArn',
        'EncryptionKeyArn',
        'SecretsKeyArn',
      ]),
    );
  });

  it('is environment-agnostic, so it synthesizes without an AWS account', () => {
    expect(Token.isUnresolved(stack.account)).toBe(true);
    expect(Token.isUnresolved(stack.region)).toBe(true);
  });
});
