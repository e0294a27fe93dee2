import { Fn, RemovalPolicy, Tags } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ChangeTime } from './change-time';
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
  /**
   * What happens to the egress Elastic IPs when they leave the stack:
   * receivers allowlist them, so a live deployment keeps them allocated even
   * then, for an operator to reattach by hand.
   * @default RemovalPolicy.RETAIN
   */
  readonly egressAddressRemovalPolicy?: RemovalPolicy;
}

/**
 * The logical ids of the egress Elastic IPs, one per zone. Fixed
 * (not derived from construct paths), so no refactoring of the constructs
 * can make CloudFormation replace them, and with them the addresses
 * receivers allowlisted. Never change these.
 */
export const EGRESS_ADDRESS_LOGICAL_IDS = [
  'NetworkEgressAddress1',
  'NetworkEgressAddress2',
] as const;

/**
 * AWS APIs the functions in the VPC call or are about to, reached through
 * interface endpoints. The NAT gateways would reach them too; an endpoint
 * keeps the calls inside AWS's network, working while a NAT gateway is down.
 */
const INTERFACE_ENDPOINTS = {
  // The shared wiring (layers/core/wiring/dependencies.ts) gives every
  // function the sync and delivery queue clients.
  Sqs: ec2.InterfaceVpcEndpointAwsService.SQS,
  // An agent's own model key is sealed with the secrets key and opened
  // by the query function.
  Kms: ec2.InterfaceVpcEndpointAwsService.KMS,
  // The model-provider secret the query function reads at cold start
  // (docs/deployment/configuration.md, "Model provider").
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
 *                    (Elastic IPs: the published egress addresses)
 *                        │ (egress only: crawls, model API, webhook deliveries)
 *   private subnets  λ query, search, sync-worker, ingestion-worker, bootstrap,
 *                      eval-worker; webhook-dispatcher, webhooks (own group)
 *   (with egress)        │ 443 only            └─ DynamoDB, S3 (gateway endpoints)
 *                        │                      └─ SQS, KMS, Secrets Manager, X-Ray (interface endpoints)
 *   isolated subnets OpenSearch domain (no route out)
 * ```
 *
 * Security groups: the functions' group may send anywhere (customer sites
 * are anywhere); the search domain's and the endpoints' groups accept
 * HTTPS from the functions' group only and send nothing. The webhook
 * functions (dispatcher, webhooks) have a group of their own that may send
 * anywhere and reach the endpoints, but not the search domain: they connect
 * to addresses customers give. Flow logs of all traffic go to an encrypted
 * log group.
 *
 * Egress addresses: one Elastic IP per zone, allocated by the stack
 * with fixed logical ids and retained, given to the NAT gateways, so
 * everything the functions send to the internet (webhook deliveries above
 * all, which receivers allowlist) comes from addresses that no redeploy
 * changes. Both are allocated even with one NAT gateway, so going from one
 * to two changes nothing a receiver allowlisted. When they last changed is
 * recorded at deploy time (ChangeTime).
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
  /** Attached to the webhook functions: anywhere out, the endpoints but not the search domain. */
  readonly deliverySecurityGroup: ec2.SecurityGroup;
  /** The NAT gateways' Elastic IPs, one per zone, retained. */
  readonly egressAddresses: readonly ec2.CfnEIP[];
  /** The egress addresses as CIDR ranges, comma-separated (a deploy-time token). */
  readonly egressCidrs: string;
  /** When `egressCidrs` last changed, ISO 8601 (a deploy-time token). */
  readonly egressCidrsChangedAt: string;
  readonly flowLogGroup: logs.LogGroup;
  /** Where functions go: subnets with a route to a NAT gateway. */
  readonly functionSubnets: ec2.SubnetSelection;
  /** Where the search domain goes: subnets with no route out of the VPC. */
  readonly searchSubnets: ec2.SubnetSelection;
  /** Spread into a ServiceFunction's props to run it in this VPC. */
  readonly functionPlacement: Required<ServiceFunctionNetworkProps>;
  /** The same for the functions that connect to webhook receivers. */
  readonly deliveryPlacement: Required<ServiceFunctionNetworkProps>;

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

    const addressRemoval = props.egressAddressRemovalPolicy ?? RemovalPolicy.RETAIN;
    this.egressAddresses = Array.from({ length: availabilityZones }, (_, index) => {
      const address = new ec2.CfnEIP(this, `EgressAddress${index + 1}`, { domain: 'vpc' });
      const logicalId = EGRESS_ADDRESS_LOGICAL_IDS[index];
      if (!logicalId) throw new Error(`no fixed logical id for egress address ${index + 1}`);
      address.overrideLogicalId(logicalId);
      address.applyRemovalPolicy(addressRemoval);
      Tags.of(address).add('Name', `${logicalId} (webhook deliveries and all other egress)`);
      return address;
    });

    this.vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: availabilityZones,
      natGateways,
      // The NAT gateways take the stack's own Elastic IPs, in zone order.
      natGatewayProvider: ec2.NatProvider.gateway({
        eipAllocationIds: this.egressAddresses.map((address) => address.attrAllocationId),
      }),
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
    this.deliverySecurityGroup = new ec2.SecurityGroup(this, 'DeliverySecurityGroup', {
      vpc: this.vpc,
      description:
        'Agent Query Service webhook functions: outbound anywhere (receivers), the endpoints, not the search domain',
      // Receivers are anywhere, on any port their URL names (D35 refuses private addresses).
      allowAllOutbound: true,
    });
    this.endpointsSecurityGroup.addIngressRule(
      this.deliverySecurityGroup,
      ec2.Port.tcp(443),
      'HTTPS from the webhook functions',
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
    this.deliveryPlacement = {
      vpc: this.vpc,
      vpcSubnets: this.functionSubnets,
      securityGroups: [this.deliverySecurityGroup],
    };

    this.egressCidrs = Fn.join(
      ',',
      this.egressAddresses.map((address) => `${address.attrPublicIp}/32`),
    );
    this.egressCidrsChangedAt = new ChangeTime(this, 'EgressAddressesChanged', {
      value: this.egressCidrs,
    }).time;
  }
}
