import { Aws, Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

export interface EncryptionKeyProps {
  /**
   * Alias for the key, without the `alias/` prefix.
   * @default - no alias
   */
  readonly alias?: string;
  /**
   * What happens to the key when it leaves the stack. Everything the service
   * stores is encrypted with it, so destroying it destroys the data too.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Days a deleted key waits before AWS destroys it (7–30).
   * @default 30
   */
  readonly pendingWindowDays?: number;
  /**
   * What the key protects, shown in the KMS console.
   * @default every store of the service
   */
  readonly description?: string;
}

/**
 * The customer-managed KMS key behind every store of the service: table,
 * queues, bucket, topic, secret, search domain and log groups. Rotation is
 * on (AWS rotates the backing material yearly; old ciphertexts stay readable).
 *
 * @example
 * const { key } = new EncryptionKey(this, 'Encryption', { alias: 'agent-query-service-test' });
 */
export class EncryptionKey extends Construct {
  readonly key: kms.Key;

  constructor(scope: Construct, id: string, props: EncryptionKeyProps = {}) {
    super(scope, id);
    this.key = new kms.Key(this, 'Key', {
      description:
        props.description ??
        'Agent Query Service: encryption at rest for every store of the service',
      enableKeyRotation: true,
      alias: props.alias,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
      // kms.Key refuses values outside 7–30 itself.
      pendingWindow: Duration.days(props.pendingWindowDays ?? 30),
    });

    // CloudWatch Logs encrypts the service's log groups with this key; it acts
    // as the logs service principal, bound to this account's log groups.
    this.key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowCloudWatchLogsOfThisAccount',
        principals: [new iam.ServicePrincipal(`logs.${Aws.REGION}.amazonaws.com`)],
        actions: [
          'kms:Encrypt*',
          'kms:Decrypt*',
          'kms:ReEncrypt*',
          'kms:GenerateDataKey*',
          'kms:Describe*',
        ],
        resources: ['*'],
        conditions: {
          ArnLike: {
            'kms:EncryptionContext:aws:logs:arn': `arn:${Aws.PARTITION}:logs:${Aws.REGION}:${Aws.ACCOUNT_ID}:log-group:*`,
          },
        },
      }),
    );

    // CloudWatch alarms publish to the KMS-encrypted alarm topic; without this
    // statement the publish fails silently and nobody hears the alarm.
    this.key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowCloudWatchAlarmsToPublishToEncryptedTopics',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } },
      }),
    );
  }
}
