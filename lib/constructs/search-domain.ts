import { Aws, Duration, Lazy, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as opensearch from 'aws-cdk-lib/aws-opensearchservice';
import { Construct } from 'constructs';

export interface SearchDomainProps {
  /**
   * The domain's name: 3–28 characters, lower case, starting with a letter.
   * It is fixed (not generated) because the access policy names the domain's
   * own ARN, which CloudFormation cannot reference from inside the domain.
   */
  readonly domainName: string;
  /** Customer-managed key for encryption at rest and the domain's log groups. */
  readonly encryptionKey: kms.IKey;
  /**
   * Data node instance type.
   * @default 't3.small.search'
   */
  readonly instanceType?: string;
  /**
   * Number of data nodes; a multiple of `availabilityZoneCount`.
   * @default 1
   */
  readonly instanceCount?: number;
  /**
   * Zones the data nodes are spread over; 1 turns zone awareness off.
   * @default 1
   */
  readonly availabilityZoneCount?: number;
  /**
   * Dedicated master nodes: 0 for none, else 3 or 5.
   * @default 0
   */
  readonly masterCount?: number;
  /**
   * Dedicated master instance type, used when `masterCount` > 0.
   * @default 'm6g.large.search'
   */
  readonly masterInstanceType?: string;
  /**
   * EBS (gp3) volume per data node, in GiB.
   * @default 10
   */
  readonly volumeSizeGiB?: number;
  /**
   * Retention of the slow-search, slow-index and application log groups.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
  /**
   * What happens to the domain and its log groups when they leave the stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Put the domain in this VPC, with no public endpoint (P50). Needs the
   * account's OpenSearch service-linked role (docs/deployment/README.md).
   * @default - a public endpoint (IAM/SigV4 only), no VPC
   */
  readonly vpc?: ec2.IVpc;
  /**
   * Subnets of `vpc` for the domain: one per zone is used, as many zones as
   * `availabilityZoneCount`.
   * @default - the VPC's private subnets
   */
  readonly vpcSubnets?: ec2.SubnetSelection;
  /**
   * Security groups of the domain's network interfaces, with `vpc`.
   * @default - the VPC's default security group
   */
  readonly securityGroups?: ec2.ISecurityGroup[];
}

/** OpenSearch 2.x, the newest 2.x this aws-cdk-lib knows. */
const ENGINE_VERSION = opensearch.EngineVersion.OPENSEARCH_2_19;

/** Data-plane actions a function needs to index and query documents. */
const DATA_ACTIONS = [
  'es:ESHttpGet',
  'es:ESHttpHead',
  'es:ESHttpPost',
  'es:ESHttpPut',
  'es:ESHttpDelete',
];

/** Instance classes without encryption at rest, which this domain requires. */
const CLASSES_WITHOUT_ENCRYPTION = ['t2', 'm3', 'r3'];

/**
 * The OpenSearch domain behind retrieval (ARCHITECTURE: k-NN with HNSW and
 * cosine, plus BM25 on the same documents). The k-NN plugin is built into
 * Amazon OpenSearch Service, so nothing is installed here; the index itself
 * (`index.knn: true`, the vector mapping) is created on deploy by
 * `SearchIndexBootstrap`, not by this construct.
 *
 * Access is IAM only: the domain accepts SigV4-signed requests from the roles
 * passed to `grantReadWrite`, and nobody else. Until a role is granted, the
 * access policy denies every data-plane request. Given a `vpc`, the domain
 * has no public endpoint at all (P50): only what its security groups admit
 * reaches it.
 *
 * Built on the L1 resource on purpose: the L2 `Domain` applies its access
 * policy and log-group resource policy through custom-resource Lambdas; here
 * both are plain CloudFormation.
 */
export class SearchDomain extends Construct {
  readonly domain: opensearch.CfnDomain;
  readonly domainName: string;
  /** ARN of the domain (`arn:…:es:…:domain/<name>`). */
  readonly domainArn: string;
  /** HTTPS endpoint host name (no scheme); inside the VPC when there is one. */
  readonly domainEndpoint: string;
  /** Whether the domain sits in a VPC (no public endpoint). */
  readonly inVpc: boolean;
  /** EBS volume per data node, in GiB (what FreeStorageSpace is measured against). */
  readonly volumeSizeGiB: number;
  private readonly grantees: iam.IRole[] = [];

  constructor(scope: Construct, id: string, props: SearchDomainProps) {
    super(scope, id);
    const instanceType = props.instanceType ?? 't3.small.search';
    const instanceCount = props.instanceCount ?? 1;
    const availabilityZoneCount = props.availabilityZoneCount ?? 1;
    const masterCount = props.masterCount ?? 0;
    const masterInstanceType = props.masterInstanceType ?? 'm6g.large.search';
    const volumeSizeGiB = props.volumeSizeGiB ?? 10;
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const zoneAware = availabilityZoneCount > 1;
    this.inVpc = props.vpc !== undefined;
    this.volumeSizeGiB = volumeSizeGiB;
    // One subnet per zone the data nodes use: OpenSearch wants exactly that many.
    const subnetIds = props.vpc
      ?.selectSubnets({ ...props.vpcSubnets, onePerAz: true })
      .subnetIds.slice(0, availabilityZoneCount);

    this.node.addValidation({
      validate: () =>
        validateShape({
          domainName: props.domainName,
          instanceType,
          instanceCount,
          availabilityZoneCount,
          masterCount,
          masterInstanceType,
          volumeSizeGiB,
        }).concat(
          subnetIds && subnetIds.length < availabilityZoneCount
            ? [
                `the VPC has subnets in ${subnetIds.length} zone(s), but availabilityZoneCount is ${availabilityZoneCount}`,
              ]
            : [],
        ),
    });

    this.domainName = props.domainName;
    this.domainArn = Stack.of(this).formatArn({
      service: 'es',
      resource: 'domain',
      resourceName: props.domainName,
    });

    const logGroups = {
      SEARCH_SLOW_LOGS: this.logGroup('SearchSlowLogs', props, removalPolicy),
      INDEX_SLOW_LOGS: this.logGroup('IndexSlowLogs', props, removalPolicy),
      ES_APPLICATION_LOGS: this.logGroup('ApplicationLogs', props, removalPolicy),
    };

    // OpenSearch Service writes to the log groups as the es service principal,
    // only for this domain of this account.
    const logPolicy = new logs.ResourcePolicy(this, 'LogDeliveryPolicy', {
      policyStatements: [
        new iam.PolicyStatement({
          principals: [new iam.ServicePrincipal('es.amazonaws.com')],
          actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          resources: Object.values(logGroups).map((group) => group.logGroupArn),
          conditions: {
            StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
            ArnLike: { 'aws:SourceArn': this.domainArn },
          },
        }),
      ],
    });

    this.domain = new opensearch.CfnDomain(this, 'Domain', {
      domainName: props.domainName,
      engineVersion: ENGINE_VERSION.version,
      clusterConfig: {
        instanceType,
        instanceCount,
        zoneAwarenessEnabled: zoneAware,
        zoneAwarenessConfig: zoneAware ? { availabilityZoneCount } : undefined,
        dedicatedMasterEnabled: masterCount > 0,
        dedicatedMasterType: masterCount > 0 ? masterInstanceType : undefined,
        dedicatedMasterCount: masterCount > 0 ? masterCount : undefined,
      },
      ebsOptions: { ebsEnabled: true, volumeType: 'gp3', volumeSize: volumeSizeGiB },
      encryptionAtRestOptions: { enabled: true, kmsKeyId: props.encryptionKey.keyArn },
      nodeToNodeEncryptionOptions: { enabled: true },
      domainEndpointOptions: {
        enforceHttps: true,
        // Minimum TLS 1.2, forward-secret ciphers only.
        tlsSecurityPolicy: opensearch.TLSSecurityPolicy.TLS_1_2_PFS,
      },
      logPublishingOptions: Object.fromEntries(
        Object.entries(logGroups).map(([kind, group]) => [
          kind,
          { enabled: true, cloudWatchLogsLogGroupArn: group.logGroupArn },
        ]),
      ),
      vpcOptions: subnetIds && {
        subnetIds,
        securityGroupIds: props.securityGroups?.map((group) => group.securityGroupId),
      },
      accessPolicies: Lazy.any({ produce: () => this.renderAccessPolicy() }),
      softwareUpdateOptions: { autoSoftwareUpdateEnabled: true },
      offPeakWindowOptions: { enabled: true },
    });
    this.domain.applyRemovalPolicy(removalPolicy);
    this.domain.node.addDependency(logPolicy);

    this.domainEndpoint = this.domain.attrDomainEndpoint;
  }

  /**
   * One of the domain's CloudWatch metrics (`AWS/ES`, by domain name and
   * account), e.g. `ClusterStatus.red`, `FreeStorageSpace` (MiB, per node).
   */
  metric(metricName: string, options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: 'AWS/ES',
      metricName,
      dimensionsMap: { DomainName: this.domainName, ClientId: Stack.of(this).account },
      period: Duration.minutes(1),
      ...options,
    });
  }

  /**
   * Lets `role` read and write documents (SigV4-signed HTTPS requests): names
   * it in the domain's access policy and grants it the data-plane actions on
   * this domain's paths only. The `<domain ARN>/*` wildcard this needs is
   * acknowledged on `role` (when it is a construct of this app).
   */
  grantReadWrite(role: iam.IRole): void {
    if (this.grantees.length === 0) {
      Validations.of(this.domain).acknowledge({
        id: 'AwsSolutions-OS3',
        reason: this.inVpc
          ? "Access is granted to IAM roles, not IP ranges: the domain has no public endpoint (it is in the VPC, where its security group accepts HTTPS from the functions' group only), and every request must also be SigV4-signed by a role the access policy names."
          : 'Access is granted to IAM roles, not IP ranges: the callers are Lambda functions without fixed addresses, and every request is SigV4-signed by a role the access policy names.',
      });
    }
    if (this.grantees.includes(role)) return;
    this.grantees.push(role);
    const pathsArn = `${this.domainArn}/*`;
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: DATA_ACTIONS,
        resources: [this.domainArn, pathsArn],
      }),
    );
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagResourceName(Stack.of(this), pathsArn)}]`,
      reason: `Data-plane requests address paths under this one domain (${this.domainName}): the chunk indexes and their _bulk, _msearch, _count, _search and _delete_by_query endpoints. Index names depend on the embedder, so the grant covers the domain's paths, and nothing outside it.`,
    });
  }

  private logGroup(id: string, props: SearchDomainProps, removalPolicy: RemovalPolicy) {
    return new logs.LogGroup(this, id, {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      encryptionKey: props.encryptionKey,
      removalPolicy,
    });
  }

  private renderAccessPolicy(): unknown {
    const indexArn = `${this.domainArn}/*`;
    const statements =
      this.grantees.length === 0
        ? [
            // No function uses the index yet: refuse every data-plane request
            // (the domain's configuration API is unaffected).
            new iam.PolicyStatement({
              effect: iam.Effect.DENY,
              principals: [new iam.AnyPrincipal()],
              actions: ['es:ESHttp*'],
              resources: [indexArn],
            }),
          ]
        : [
            new iam.PolicyStatement({
              principals: this.grantees.map((role) => new iam.ArnPrincipal(role.roleArn)),
              actions: DATA_ACTIONS,
              resources: [indexArn],
            }),
          ];
    return new iam.PolicyDocument({ statements }).toJSON();
  }
}

/**
 * How cdk-nag names a resource in an IAM5 finding id: the resolved value
 * with `Ref`s and `Fn::GetAtt`s written as `<Name>` / `<LogicalId.Attribute>`.
 */
function nagResourceName(stack: Stack, value: string): string {
  const flatten = (node: unknown): string => {
    if (typeof node === 'string') return node;
    const intrinsic = node as Record<string, unknown>;
    if (typeof intrinsic.Ref === 'string') return `<${intrinsic.Ref}>`;
    const attribute = intrinsic['Fn::GetAtt'];
    if (Array.isArray(attribute)) return `<${attribute.join('.')}>`;
    const join = intrinsic['Fn::Join'];
    if (Array.isArray(join)) {
      const [separator, parts] = join as [string, unknown[]];
      return parts.map(flatten).join(separator);
    }
    return JSON.stringify(node);
  };
  return flatten(stack.resolve(value));
}

function validateShape(shape: {
  domainName: string;
  instanceType: string;
  instanceCount: number;
  availabilityZoneCount: number;
  masterCount: number;
  masterInstanceType: string;
  volumeSizeGiB: number;
}): string[] {
  const problems: string[] = [];
  if (!/^[a-z][a-z0-9-]{2,27}$/.test(shape.domainName)) {
    problems.push(
      `domainName must be 3–28 characters of a-z, 0-9 and -, starting with a letter, got "${shape.domainName}"`,
    );
  }
  for (const [name, type] of [
    ['instanceType', shape.instanceType],
    ['masterInstanceType', shape.masterInstanceType],
  ] as const) {
    const instanceClass = /^([a-z][a-z0-9]*)\.[a-z0-9]+\.search$/.exec(type)?.[1];
    if (!instanceClass) {
      problems.push(`${name} must look like t3.small.search, got "${type}"`);
    } else if (CLASSES_WITHOUT_ENCRYPTION.includes(instanceClass)) {
      problems.push(
        `${name} ${type} does not support encryption at rest, which the domain requires`,
      );
    }
  }
  if (![1, 2, 3].includes(shape.availabilityZoneCount)) {
    problems.push(`availabilityZoneCount must be 1, 2 or 3, got ${shape.availabilityZoneCount}`);
  }
  if (!Number.isInteger(shape.instanceCount) || shape.instanceCount < 1) {
    problems.push(`instanceCount must be a whole number, at least 1, got ${shape.instanceCount}`);
  } else if (shape.instanceCount % shape.availabilityZoneCount !== 0) {
    problems.push(
      `instanceCount (${shape.instanceCount}) must be a multiple of availabilityZoneCount (${shape.availabilityZoneCount}) so every zone holds the same number of data nodes`,
    );
  }
  if (![0, 3, 5].includes(shape.masterCount)) {
    problems.push(`masterCount must be 0, 3 or 5 (an odd quorum), got ${shape.masterCount}`);
  }
  if (!Number.isInteger(shape.volumeSizeGiB) || shape.volumeSizeGiB < 10) {
    problems.push(`volumeSizeGiB must be a whole number, at least 10, got ${shape.volumeSizeGiB}`);
  }
  return problems;
}
