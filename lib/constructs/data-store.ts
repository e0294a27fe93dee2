import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { TABLE_KEYS } from '../../layers/core/adapters/dynamodb/table-design';

export interface DataStoreProps {
  /** Customer-managed key the table is encrypted with. */
  readonly encryptionKey: kms.IKey;
  /**
   * What happens to the table (and its data) when it leaves the stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Refuse `DeleteTable` until this is turned off again.
   * @default true
   */
  readonly deletionProtection?: boolean;
  /**
   * Turn the table's DynamoDB stream on with this view.
   * @default - no stream
   */
  readonly stream?: dynamodb.StreamViewType;
}

/**
 * What the DynamoDB adapters do (layers/core/adapters/dynamodb): key reads,
 * partition queries and single-item writes. No Scan: ARCHITECTURE "Tenant
 * isolation" says no request path scans, and IAM holds the functions to it.
 */
export const ITEM_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
] as const;

/** What DynamoDB does with the table's customer-managed key on a caller's behalf. */
const KEY_ACTIONS = [
  'kms:Decrypt',
  'kms:DescribeKey',
  'kms:Encrypt',
  'kms:GenerateDataKey*',
  'kms:ReEncrypt*',
] as const;

/**
 * The single metadata table (layers/core/adapters/dynamodb/table-design.ts):
 * `PK`/`SK`, `GSI1` with every attribute projected, the sparse schedule index
 * `GSI2` projecting a few, TTL on `expires_at`.
 * lib/local/tables.ts creates the same table in dynalite, so a key change in
 * TABLE_KEYS reaches both runtimes.
 */
export class DataStore extends Construct {
  readonly table: dynamodb.Table;
  private readonly encryptionKey: kms.IKey;

  constructor(scope: Construct, id: string, props: DataStoreProps) {
    super(scope, id);
    this.encryptionKey = props.encryptionKey;
    const { partitionKey, sortKey, gsi1, gsi2, ttlAttribute } = TABLE_KEYS;

    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: sortKey, type: dynamodb.AttributeType.STRING },
      // Traffic follows API calls, which are spiky and per-tenant; on-demand
      // needs no capacity planning and never throttles a quiet table's burst.
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED,
      encryptionKey: props.encryptionKey,
      // Rate-limit buckets and plan windows expire on their own.
      timeToLiveAttribute: ttlAttribute,
      stream: props.stream,
      deletionProtection: props.deletionProtection ?? true,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });

    this.table.addGlobalSecondaryIndex({
      indexName: gsi1.indexName,
      partitionKey: { name: gsi1.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: gsi1.sortKey, type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.ALL,
    });

    // The sync schedule. Sparse (scheduled data sources only) and
    // projecting only what the scheduler reads, so the index stays small and
    // writes to other attributes of a data source never touch it.
    this.table.addGlobalSecondaryIndex({
      indexName: gsi2.indexName,
      partitionKey: { name: gsi2.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: gsi2.sortKey, type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.INCLUDE,
      nonKeyAttributes: [...gsi2.projectedAttributes],
    });
  }

  /**
   * Item reads and writes on the table and its indexes (ITEM_ACTIONS), plus
   * the use of its key that DynamoDB needs for them. Narrower than
   * `grantReadWriteData`, which includes Scan and stream reads.
   */
  grantItemAccess(grantee: iam.IGrantable): void {
    this.table.grant(grantee, ...ITEM_ACTIONS);
    this.encryptionKey.grant(grantee, ...KEY_ACTIONS);
  }
}
