import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

export interface SecretsKeyProps {
  /**
   * Alias for the key, without the `alias/` prefix.
   * @default - no alias
   */
  readonly alias?: string;
  /**
   * What happens to the key when it leaves the stack. Every sealed secret
   * is unreadable without it.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Days a deleted key waits before AWS destroys it (7–30).
   * @default 30
   */
  readonly pendingWindowDays?: number;
}

/**
 * The KMS key behind the AWS Encryption SDK's keyring: it wraps the
 * data keys that seal webhook signing secrets (and, later, model keys and
 * OAuth tokens). Apart from the key that encrypts the stores, because every
 * function with table or queue access may use that one; this one only the
 * functions that seal or open secrets may use, and only for their purpose.
 *
 * @example
 * const secrets = new SecretsKey(this, 'Secrets', { alias: 'agent-query-service-test-secrets' });
 * secrets.grantOpen(dispatcher.role, 'webhook-signing');
 */
export class SecretsKey extends Construct {
  readonly key: kms.Key;

  constructor(scope: Construct, id: string, props: SecretsKeyProps = {}) {
    super(scope, id);
    this.key = new kms.Key(this, 'Key', {
      description: 'Agent Query Service: envelope encryption of stored secrets',
      enableKeyRotation: true,
      alias: props.alias,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
      // kms.Key refuses values outside 7–30 itself.
      pendingWindow: Duration.days(props.pendingWindowDays ?? 30),
    });
  }

  /**
   * Seal and open secrets of one purpose: the Encryption SDK's KMS keyring
   * calls `GenerateDataKey` to seal (its generator key; no `Encrypt`, as
   * there is no second key) and `Decrypt` to open.
   */
  grantSealAndOpen(grantee: iam.IGrantable, purpose: string): iam.Grant {
    return this.grantFor(grantee, purpose, 'kms:GenerateDataKey', 'kms:Decrypt');
  }

  /** Open (never seal) secrets of one purpose. */
  grantOpen(grantee: iam.IGrantable, purpose: string): iam.Grant {
    return this.grantFor(grantee, purpose, 'kms:Decrypt');
  }

  /**
   * The secret's encryption context travels with every KMS call the SDK
   * makes, so a condition on its `purpose` keeps a function granted for
   * webhook secrets from opening any other kind.
   */
  private grantFor(grantee: iam.IGrantable, purpose: string, ...actions: string[]): iam.Grant {
    return iam.Grant.addToPrincipal({
      grantee,
      actions,
      resourceArns: [this.key.keyArn],
      conditions: { StringEquals: { 'kms:EncryptionContext:purpose': purpose } },
    });
  }
}
