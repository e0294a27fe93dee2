import { type CfnElement, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { TABLE_KEYS } from '../layers/core/adapters/dynamodb/table-design';
import type { DataStore } from './constructs/data-store';
import type { FileStore } from './constructs/file-store';
import type { ServiceFunction } from './constructs/service-function';

/** Where uploads go in the bucket (layers/core/domain/uploaded-file.ts `fileObjectKey`). */
export const UPLOAD_PREFIX = 'files/';

/**
 * The grants most functions share, each with the cdk-nag findings it
 * brings acknowledged on that function's role only.
 */
export class ServiceGrants {
  constructor(
    private readonly data: DataStore,
    private readonly files: FileStore,
  ) {}

  /** Table item access (every family and worker: API keys, rate-limit buckets, the outbox live there). */
  itemAccess(fn: ServiceFunction): void {
    this.data.grantItemAccess(fn.function);
    const tableLogicalId = Stack.of(this.data).getLogicalId(
      this.data.table.node.defaultChild as CfnElement,
    );
    Validations.of(fn.role).acknowledge(
      {
        id: `AwsSolutions-IAM5[Resource::<${tableLogicalId}.Arn>/index/*]`,
        reason: `The functions query the table's ${TABLE_KEYS.gsi1.indexName} index (API keys by organization, the outbox partitions) and ${TABLE_KEYS.gsi2.indexName} (the sync schedule); the wildcard covers this one table's indexes only.`,
      },
      {
        id: 'AwsSolutions-IAM5[Action::kms:ReEncrypt*]',
        reason:
          "DynamoDB and SQS re-encrypt under the service's customer-managed key on the caller's behalf; the statement names that one key ARN.",
      },
      {
        id: 'AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
        reason:
          "DynamoDB and SQS generate data keys under the service's customer-managed key for writes; the statement names that one key ARN.",
      },
    );
  }

  /**
   * Object actions on uploads only (`files/*`), and listing that prefix
   * (deleting a data source's files). Exact actions, not the bucket's
   * grant helpers, which add wildcards such as `s3:GetObject*` and `s3:List*`.
   * The bucket is encrypted with the main key, which item access already grants.
   */
  fileAccess(fn: ServiceFunction, actions: string[], list: boolean): void {
    const { bucket } = this.files;
    fn.function.addToRolePolicy(
      new iam.PolicyStatement({ actions, resources: [bucket.arnForObjects(`${UPLOAD_PREFIX}*`)] }),
    );
    if (list) {
      fn.function.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['s3:ListBucket'],
          resources: [bucket.bucketArn],
          conditions: { StringLike: { 's3:prefix': [`${UPLOAD_PREFIX}*`] } },
        }),
      );
    }
    const bucketLogicalId = Stack.of(bucket).getLogicalId(bucket.node.defaultChild as CfnElement);
    Validations.of(fn.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketLogicalId}.Arn>/${UPLOAD_PREFIX}*]`,
      reason:
        'Uploaded files are objects named by organization, data source and document id under files/; the wildcard is that prefix of this one bucket.',
    });
  }
}
