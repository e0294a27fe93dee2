import { RemovalPolicy } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { ServiceFunctionNetworkProps } from './service-function';

export interface ServiceNetworkProps {
  /** Customer-managed key of the flow log group. */
  readonly encryptionKey: kms.IKey;
  /**
   * Zones the VPC spans.
   * @default 2 (all an environment-agnostic stack knows of)
   */
  readonly availabilityZones?: number;
  /**
   * NAT gateways: 1 (one zone's, cheaper; an outage of that zone cuts the
   * other zone's egress too) up to one per zone.
   * @default one per zone
   */
  readonly natGateways?: number;
  /**
   * Retention of the flow log group.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly flowLogRetention?: logs.RetentionDays;
  /**
   * What happens to the flow log group when it leaves the stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly flowLogRemovalPolicy?: RemovalPolicy;
}

/**
 * AWS APIs the functions in the VPC call or are about to, reached through
 * interface endpoints. The NAT gateways would reach them too; an endpoint
 * keeps the calls inside AWS's network, working while a NAT gateway is down.
 */
const INTERFACE_ENDPOINTS = {
  // The shared wiring (layers/core/wiring/dependencies.ts) gives every
  // function the sync and delivery queue clients.
  Sqs: ec2.InterfaceVpcEndpointAwsService.SQS,
  // D33: an agent's own model key is sealed with the secrets key and opened
  // by the query function.
  Kms: ec2.InterfaceVpcEndpointAwsService.KMS,
  // The model-provider secret the query function reads at cold start
  // (docs/deployment.md, "Model provider").
  SecretsManager: ec2.InterfaceVpcEndpointAwsService.SECRETS_MANAGER,
  // Lambda records the invocation's own segment outside the VPC, but the
  // X-Ray daemon in the function's environment sends the tracer's
  // subsegments (Powertools Tracer) from the function's network interface.
  XRay: ec2.InterfaceVpcEndpointAwsService.XRAY,
} as const;

/**
 * The VPC behind a search domain that is not reachable from the internet
 * (P50), and what the functions inside it need:
 *
 * ```
 *                     internet
 *                        │
 *   public subnets   NAT gateway(s) ── internet gateway
 *                        │ (egress only: crawls, model API)
 *   private subnets  λ query, search, sync-worker, ingestion-worker, bootstrap
 *   (with egress)        │ 443 only            └─ DynamoDB, S3 (gateway endpoints)
 *                        │                      └─ SQS, KMS, Secrets Manager, X-Ray (interface endpoints)
 *   isolated subnets OpenSearch domain (no route out)
 * ```
 *
 * Security groups: the functions' group may send anywhere (customer sites
 * are anywhere); the search domain's and the endpoints' groups accept
 * HTTPS from the functions' group only and send nothing. Flow logs of all
 * traffic go to an encrypted log group.
 *
 * @example
 * const network = new ServiceNetwork(this, 'Network', { encryptionKey });
 * new ServiceFunction(this, 'Query', { folder: 'query', description: '…', ...network.functionPlacement });
 */
export class ServiceNetwork extends Construct {
  readonly vpc: ec2.Vpc;
  /** Attached to every function in the VPC. */
  readonly functionsSecurityGroup: ec2.SecurityGroup;
  /** Attached to the search domain: HTTPS from the functions only. */
  readonly searchSecurityGroup: ec2.SecurityGroup;
  /** Attached to the interface endpoints: HTTPS from the functions only. */
  readonly endpointsSecurityGroup: ec2.SecurityGroup;
  readonly flowLogGroup: logs.LogGroup;
  /** Where functions go: subnets with a route to a NAT gateway. */
  readonly functionSubnets: ec2.SubnetSelection;
  /** Where the search domain goes: subnets with no route out of the VPC. */
  readonly searchSubnets: ec2.SubnetSelection;
  /** Spread into a ServiceFunction's props to run it in this VPC. */
  readonly functionPlacement: Required<ServiceFunctionNetworkProps>;

  constructor(scope: Construct, id: string, props: ServiceNetworkProps) {
    super(scope, id);
    const availabilityZones = props.availabilityZones ?? 2;
    const natGateways = props.natGateways ?? availabilityZones;

    this.node.addValidation({
      validate: () =>
        Number.isInteger(natGateways) && natGateways >= 1 && natGateways <= availabilityZones
          ? []
          : [
              `natGateways must be a whole number from 1 (the functions need a way out) to ${availabilityZones} (one per zone), got ${natGateways}`,
            ],
    });

    this.vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: availabilityZones,
      natGateways,
      subnetConfiguration: [
        { name: 'public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24 },
        // Room for many functions' network interfaces as concurrency grows.
        { name: 'functions', subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 20 },
        { name: 'search', subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 24 },
      ],
      // Nothing uses the default security group; strip its allow-all rules
      // so nothing can by accident.
      restrictDefaultSecurityGroup: true,
    });
    this.functionSubnets = { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS };
    this.searchSubnets = { subnetType: ec2.SubnetType.PRIVATE_ISOLATED };

    this.flowLogGroup = new logs.LogGroup(this, 'FlowLogs', {
      retention: props.flowLogRetention ?? logs.RetentionDays.ONE_MONTH,
      encryptionKey: props.encryptionKey,
      removalPolicy: props.flowLogRemovalPolicy ?? RemovalPolicy.RETAIN,
    });
    this.vpc.addFlowLog('FlowLog', {
      destination: ec2.FlowLogDestination.toCloudWatchLogs(this.flowLogGroup),
      trafficType: ec2.FlowLogTrafficType.ALL,
    });

    this.functionsSecurityGroup = new ec2.SecurityGroup(this, 'FunctionsSecurityGroup', {
      vpc: this.vpc,
      description: 'Agent Query Service functions in the VPC: outbound anywhere, no inbound',
      // The sync worker crawls customer websites (any public address and
      // port, D35 refuses private ones) and the query function calls a model
      // API; the AWS services are reached through the endpoints.
      allowAllOutbound: true,
    });
    this.searchSecurityGroup = new ec2.SecurityGroup(this, 'SearchSecurityGroup', {
      vpc: this.vpc,
      description: 'Agent Query Service search domain: HTTPS from the functions only',
      allowAllOutbound: false,
    });
    this.searchSecurityGroup.addIngressRule(
      this.functionsSecurityGroup,
      ec2.Port.tcp(443),
      'HTTPS from the functions in the VPC',
    );
    this.endpointsSecurityGroup = new ec2.SecurityGroup(this, 'EndpointsSecurityGroup', {
      vpc: this.vpc,
      description: 'Agent Query Service interface endpoints: HTTPS from the functions only',
      allowAllOutbound: false,
    });
    this.endpointsSecurityGroup.addIngressRule(
      this.functionsSecurityGroup,
      ec2.Port.tcp(443),
      'HTTPS from the functions in the VPC',
    );

    // Gateway endpoints are free and keep table and bucket traffic off the
    // NAT gateways (which bill per GB) and inside AWS's network.
    this.vpc.addGatewayEndpoint('DynamoDb', {
      service: ec2.GatewayVpcEndpointAwsService.DYNAMODB,
      subnets: [this.functionSubnets],
    });
    this.vpc.addGatewayEndpoint('S3', {
      service: ec2.GatewayVpcEndpointAwsService.S3,
      subnets: [this.functionSubnets],
    });
    for (const [name, service] of Object.entries(INTERFACE_ENDPOINTS)) {
      this.vpc.addInterfaceEndpoint(name, {
        service,
        subnets: this.functionSubnets,
        securityGroups: [this.endpointsSecurityGroup],
        // Only the endpoints' own group decides who may connect.
        open: false,
        // The SDKs' default endpoints resolve to the interface endpoint.
        privateDnsEnabled: true,
      });
    }

    this.functionPlacement = {
      vpc: this.vpc,
      vpcSubnets: this.functionSubnets,
      securityGroups: [this.functionsSecurityGroup],
    };
  }
}
