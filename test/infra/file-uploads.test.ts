import type { CfnElement, Stack } from 'aws-cdk-lib';
import { fileObjectKey } from '../../layers/core/domain/uploaded-file';
import { UPLOAD_PREFIX } from '../../lib/service-grants';
import type { ServiceStack } from '../../lib/service-stack';
import { INGESTION_WORKER_TIMEOUT } from '../../lib/service-workers';
import { familiesThat } from './family-needs';

/** The family that presigns uploads and deletes uploaded files (D25: …/data-sources/:id/files). */
const FILE_UPLOADER = 'data-sources';

import { buildServiceStack, templateOf } from './service-stack-fixture';

interface Resource {
  readonly Type: string;
  readonly Properties: Record<string, any>;
}

function logicalId(stack: Stack, construct: { node: { defaultChild?: unknown } }): string {
  return stack.getLogicalId(construct.node.defaultChild as CfnElement);
}
const arnOf = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * D25 in the cloud: S3 announces uploads under `files/` on the ingestion
 * queue, the ingestion worker consumes it, and the two functions that touch
 * uploaded files get exactly the object actions they use on that prefix.
 */
describe('File uploads in the cloud (D25)', () => {
  let stack: ServiceStack;
  let resources: Record<string, Resource>;

  beforeAll(() => {
    const built = buildServiceStack({ environment: 'test' });
    stack = built.stack;
    resources = templateOf(built).toJSON().Resources as Record<string, Resource>;
  });

  const ofType = (type: string) => Object.values(resources).filter((r) => r.Type === type);
  /** Every statement of a role's default policy that names S3 actions. */
  const s3Statements = (role: { node: { tryFindChild(id: string): unknown } }) => {
    const policy = role.node.tryFindChild('DefaultPolicy') as { node: { defaultChild: unknown } };
    const document = resources[logicalId(stack, policy)]?.Properties.PolicyDocument;
    return (document.Statement as Array<Record<string, any>>).filter((statement) =>
      asArray(statement.Action).some((action) => String(action).startsWith('s3:')),
    );
  };
  const uploadObjects = () => ({
    'Fn::Join': ['', [arnOf(logicalId(stack, stack.files.bucket)), `/${UPLOAD_PREFIX}*`]],
  });

  it('uses the prefix the object keys are made with', () => {
    expect(fileObjectKey('org_x', 'ds_y', 'doc_z').startsWith(UPLOAD_PREFIX)).toBe(true);
  });

  it('sends every object created under files/ to the ingestion queue', () => {
    const [notifications] = ofType('Custom::S3BucketNotifications');
    expect(notifications?.Properties.BucketName).toEqual({
      Ref: logicalId(stack, stack.files.bucket),
    });
    expect(notifications?.Properties.NotificationConfiguration).toEqual({
      QueueConfigurations: [
        {
          Events: ['s3:ObjectCreated:*'],
          QueueArn: arnOf(logicalId(stack, stack.queues.ingestion.queue)),
          Filter: { Key: { FilterRules: [{ Name: 'prefix', Value: UPLOAD_PREFIX }] } },
        },
      ],
    });
  });

  it('lets S3 send to the queue only on behalf of this bucket', () => {
    const policies = ofType('AWS::SQS::QueuePolicy').filter((policy) =>
      policy.Properties.Queues.some((queue: unknown) =>
        same(queue, { Ref: logicalId(stack, stack.queues.ingestion.queue) }),
      ),
    );
    const fromS3 = policies.flatMap((policy) =>
      (policy.Properties.PolicyDocument.Statement as Array<Record<string, any>>).filter(
        (statement) => statement.Principal?.Service === 's3.amazonaws.com',
      ),
    );
    expect(fromS3).toHaveLength(1);
    expect(fromS3[0]?.Condition).toEqual({
      ArnLike: { 'aws:SourceArn': arnOf(logicalId(stack, stack.files.bucket)) },
    });
  });

  it('consumes the ingestion queue one upload at a time, reporting batch item failures', () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping').filter((mapping) =>
      same(
        mapping.Properties.EventSourceArn,
        arnOf(logicalId(stack, stack.queues.ingestion.queue)),
      ),
    );
    expect(mappings).toHaveLength(1);
    expect(mappings[0]?.Properties).toMatchObject({
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      FunctionName: { Ref: logicalId(stack, stack.ingestionWorker.worker.function) },
    });
    const queue = resources[logicalId(stack, stack.queues.ingestion.queue)]?.Properties;
    expect(queue?.VisibilityTimeout).toBe(6 * INGESTION_WORKER_TIMEOUT.toSeconds());
    expect(queue?.RedrivePolicy.maxReceiveCount).toBe(5);
  });

  it('lets the ingestion worker read and delete uploads, nothing else in the bucket', () => {
    const statements = s3Statements(stack.ingestionWorker.worker.role);
    expect(statements).toEqual([
      {
        Effect: 'Allow',
        Action: ['s3:DeleteObject', 's3:GetObject'],
        Resource: uploadObjects(),
      },
    ]);
  });

  it('lets data-sources presign uploads (PutObject) and downloads (GetObject), delete them and list their prefix only', () => {
    const dataSources = stack.http.functions.get(FILE_UPLOADER);
    if (!dataSources) throw new Error('no data-sources function');
    expect(s3Statements(dataSources.role)).toEqual([
      {
        Effect: 'Allow',
        Action: ['s3:DeleteObject', 's3:GetObject', 's3:PutObject'],
        Resource: uploadObjects(),
      },
      {
        Effect: 'Allow',
        Action: 's3:ListBucket',
        Resource: arnOf(logicalId(stack, stack.files.bucket)),
        Condition: { StringLike: { 's3:prefix': [`${UPLOAD_PREFIX}*`] } },
      },
    ]);
  });

  it('gives no other function of ours access to the bucket', () => {
    expect(familiesThat((needs) => needs.files === true)).toEqual([FILE_UPLOADER]);
    const others = [...stack.http.functions]
      .filter(([family]) => family !== FILE_UPLOADER)
      .map(([, fn]) => fn);
    for (const fn of [...others, stack.webhookDispatcher.worker]) {
      expect(s3Statements(fn.role)).toEqual([]);
    }
  });

  it('lets the sync worker read and delete uploads (file sources, a file indexed again), nothing else in the bucket', () => {
    expect(s3Statements(stack.syncWorker.worker.role)).toEqual([
      {
        Effect: 'Allow',
        Action: ['s3:DeleteObject', 's3:GetObject'],
        Resource: uploadObjects(),
      },
    ]);
  });
});
