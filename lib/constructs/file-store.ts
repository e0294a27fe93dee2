import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';

export interface FileStoreProps {
  /** Customer-managed key for the file bucket (SSE-KMS). */
  readonly encryptionKey: kms.IKey;
  /**
   * Days server access logs are kept in the log bucket.
   * @default 90
   */
  readonly accessLogRetentionDays?: number;
  /**
   * Days a replaced or deleted file version stays recoverable.
   * @default 30
   */
  readonly noncurrentVersionRetentionDays?: number;
  /**
   * What happens to both buckets when they leave the stack. With
   * `RemovalPolicy.DESTROY` they are emptied first (CloudFormation cannot
   * delete a bucket that still holds objects), by CDK's auto-delete custom
   * resource, so a torn-down test deployment leaves no bucket behind whose
   * objects were encrypted with a key that is deleted with it.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The bucket behind uploaded data-source files (presigned upload,
 * SSE-KMS, TLS only), and a separate bucket for its S3 server access logs.
 */
export class FileStore extends Construct {
  readonly bucket: s3.Bucket;
  readonly accessLogBucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: FileStoreProps) {
    super(scope, id);
    const accessLogRetentionDays = props.accessLogRetentionDays ?? 90;
    const noncurrentVersionRetentionDays = props.noncurrentVersionRetentionDays ?? 30;
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    // A bucket that goes with the stack goes with its objects (and versions).
    const autoDeleteObjects = removalPolicy === RemovalPolicy.DESTROY;

    this.node.addValidation({
      validate: () =>
        [
          [accessLogRetentionDays, 'accessLogRetentionDays'] as const,
          [noncurrentVersionRetentionDays, 'noncurrentVersionRetentionDays'] as const,
        ]
          .filter(([days]) => !Number.isInteger(days) || days < 1)
          .map(([days, name]) => `${name} must be a whole number of days, at least 1, got ${days}`),
    });

    // Log delivery is granted by bucket policy, not the LogDeliveryWrite ACL:
    // ACLs are disabled on both buckets (BucketOwnerEnforced). Set here rather
    // than in cdk.json so the construct behaves the same in any app.
    this.node.setContext('@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy', true);

    this.accessLogBucket = new s3.Bucket(this, 'AccessLogBucket', {
      // S3 server access logging can only deliver to SSE-S3 buckets.
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      lifecycleRules: [
        { id: 'expire-access-logs', expiration: Duration.days(accessLogRetentionDays) },
      ],
      removalPolicy,
      autoDeleteObjects,
    });
    Validations.of(this.accessLogBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        "This bucket is the destination of the file bucket's server access logs; logging it as well would need yet another bucket, or log into itself in a loop.",
    });

    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.KMS,
      encryptionKey: props.encryptionKey,
      // One data key per bucket instead of a KMS call per object: cheaper,
      // and far below KMS request quotas during bulk ingestion.
      bucketKeyEnabled: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      versioned: true,
      serverAccessLogsBucket: this.accessLogBucket,
      serverAccessLogsPrefix: 'files/',
      lifecycleRules: [
        {
          id: 'abort-incomplete-uploads',
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
        {
          id: 'expire-old-versions',
          noncurrentVersionExpiration: Duration.days(noncurrentVersionRetentionDays),
          expiredObjectDeleteMarker: true,
        },
      ],
      removalPolicy,
      autoDeleteObjects,
    });
  }
}
