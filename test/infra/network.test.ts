import type { CfnElement, Stack } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { EGRESS_ADDRESS_LOGICAL_IDS } from '../../lib/constructs/service-network';
import type { ServiceStack } from '../../lib/service-stack';
import { familiesThat } from './family-needs';

const RETRIEVAL_FAMILIES = familiesThat((needs) => needs.search === true);
const WEBHOOK_MANAGER = 'webhooks';

import { buildServiceStack, ownFunctions, templateOf } from './service-stack-fixture';

type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string };

function logicalId(stack: Stack, construct: { node: { defaultChild?: unknown } }): string {
  return stack.getLogicalId(construct.node.defaultChild as CfnElement);
}

/** The functions that talk to OpenSearch, and so run in the VPC when it has one (P50). */
const SEARCH_CLIENTS = [
  // Issue 11 item 5 (P139): asks questions as query does.
  'eval-worker',
  'ingestion-worker',
  // The MCP server and OpenAI-compatible chat answer and search as query and search do.
  'mcp',
  'openai',
  'query',
  'search',
  'search-index-bootstrap',
  'sync-worker',
];

/** P239: the functions that connect to webhook receivers, and so leave through the Elastic IPs. */
const WEBHOOK_SENDERS = ['webhook-dispatcher', WEBHOOK_MANAGER];

describe('Construct: ServiceNetwork in the service stack (P50)', () => {
  describe('environment "live" (searchNetwork "vpc" by default)', () => {
    let stack: ServiceStack;
    let template: Template;
    let resources: Record<string, Resource>;
    /** The live stack's network, which must exist. */
    const networkOf = (): NonNullable<ServiceStack['network']> => {
      if (!stack.network) throw new Error('no network in live');
      return stack.network;
    };
    const idOf = (construct: { node: { defaultChild?: unknown } }) => logicalId(stack, construct);
    const groupRef = (group: { node: { defaultChild?: unknown } }) => ({
      'Fn::GetAtt': [idOf(group), 'GroupId'],
    });

    beforeAll(() => {
      const built = buildServiceStack({ environment: 'live' });
      stack = built.stack;
      template = templateOf(built);
      resources = template.toJSON().Resources as Record<string, Resource>;
    });

    it('puts the search domain in the isolated subnets, one per zone, behind its own security group', () => {
      const network = stack.network;
      if (!network) throw new Error('no network in live');
      const isolated = network.vpc.isolatedSubnets.map((subnet) => stack.resolve(subnet.subnetId));
      expect(isolated).toHaveLength(2);
      template.hasResourceProperties('AWS::OpenSearchService::Domain', {
        VPCOptions: {
          SubnetIds: isolated,
          SecurityGroupIds: [groupRef(network.searchSecurityGroup)],
        },
      });
      expect(stack.search.inVpc).toBe(true);
    });

    it('spans two zones with a NAT gateway in each, and flow logs of all traffic', () => {
      template.resourceCountIs('AWS::EC2::VPC', 1);
      template.resourceCountIs('AWS::EC2::NatGateway', 2);
      template.resourceCountIs('AWS::EC2::Subnet', 6);
      template.hasResourceProperties('AWS::EC2::FlowLog', {
        ResourceType: 'VPC',
        TrafficType: 'ALL',
        LogDestinationType: 'cloud-watch-logs',
      });
    });

    it('encrypts the flow logs with the service key, keeps them a year and retains them', () => {
      const group = resources[idOf(networkOf().flowLogGroup)];
      expect(group?.Properties).toMatchObject({
        RetentionInDays: 365,
        KmsKeyId: { 'Fn::GetAtt': [idOf(stack.encryptionKey.key), 'Arn'] },
      });
      expect(group?.DeletionPolicy).toBe('Retain');
    });

    it('runs exactly the functions that talk to OpenSearch or to webhook receivers in the private subnets', () => {
      const network = stack.network;
      if (!network) throw new Error('no network in live');
      const privateSubnets = network.vpc.privateSubnets.map((subnet) =>
        stack.resolve(subnet.subnetId),
      );
      const inVpc = ownFunctions(stack).filter(
        ([, fn]) => resources[idOf(fn.function)]?.Properties.VpcConfig !== undefined,
      );
      expect(inVpc.map(([name]) => name).sort()).toEqual(
        [...SEARCH_CLIENTS, ...WEBHOOK_SENDERS].sort(),
      );
      expect(RETRIEVAL_FAMILIES.every((family) => SEARCH_CLIENTS.includes(family))).toBe(true);
      for (const [name, fn] of inVpc) {
        // P239: the webhook functions have a group of their own, kept off the search domain.
        const group = WEBHOOK_SENDERS.includes(name)
          ? network.deliverySecurityGroup
          : network.functionsSecurityGroup;
        expect({ name, vpc: resources[idOf(fn.function)]?.Properties.VpcConfig }).toEqual({
          name,
          vpc: { SubnetIds: privateSubnets, SecurityGroupIds: [groupRef(group)] },
        });
      }
    });

    it('gives the NAT gateways the stack’s own Elastic IPs, under fixed logical ids, retained (P239)', () => {
      const addresses = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::EC2::EIP');
      // One per zone; no other Elastic IP (CDK allocates none of its own for the gateways).
      expect(addresses.map(([id]) => id).sort()).toEqual([...EGRESS_ADDRESS_LOGICAL_IDS]);
      for (const [, address] of addresses) {
        expect(address.DeletionPolicy).toBe('Retain');
        expect((address as { UpdateReplacePolicy?: string }).UpdateReplacePolicy).toBe('Retain');
        expect(address.Properties.Domain).toBe('vpc');
      }
      const allocations = Object.values(resources)
        .filter((r) => r.Type === 'AWS::EC2::NatGateway')
        .map((gateway) => gateway.Properties.AllocationId);
      expect(allocations).toEqual(
        EGRESS_ADDRESS_LOGICAL_IDS.map((id) => ({ 'Fn::GetAtt': [id, 'AllocationId'] })),
      );
    });

    it('publishes the Elastic IPs as CIDR ranges: the WebhookSourceIps output and the webhooks family’s setting (P240)', () => {
      const cidrs = {
        'Fn::Join': [
          ',',
          EGRESS_ADDRESS_LOGICAL_IDS.map((id) => ({
            'Fn::Join': ['', [{ 'Fn::GetAtt': [id, 'PublicIp'] }, '/32']],
          })),
        ],
      };
      template.hasOutput('WebhookSourceIps', { Value: cidrs });
      const webhooks = stack.http.functions.get(WEBHOOK_MANAGER);
      if (!webhooks) throw new Error('no webhooks family');
      const variables = resources[idOf(webhooks.function)]?.Properties.Environment.Variables;
      expect(variables.SVC_WEBHOOK_SOURCE_IPS).toEqual(cidrs);
      // P241: the time comes from the change-time resource, which is told the same list.
      const [changeTimeId, changeTime] =
        Object.entries(resources).find(([, r]) => r.Type === 'Custom::ChangeTime') ?? [];
      expect(changeTime?.Properties.Value).toEqual(cidrs);
      expect(variables.SVC_WEBHOOK_SOURCE_IPS_CHANGED_AT).toEqual({
        'Fn::GetAtt': [changeTimeId, 'ChangedAt'],
      });
      // Nobody else is told: the other functions have no use for it.
      for (const [name, fn] of ownFunctions(stack)) {
        if (name === WEBHOOK_MANAGER) continue;
        expect({
          name,
          set: resources[idOf(fn.function)]?.Properties.Environment?.Variables
            ?.SVC_WEBHOOK_SOURCE_IPS,
        }).toEqual({ name, set: undefined });
      }
    });

    it('lets the roles of those functions, and only those, manage network interfaces', () => {
      const managesInterfaces = ownFunctions(stack)
        .filter(([, fn]) => {
          const policy = fn.role.node.tryFindChild('DefaultPolicy') as
            | { node: { defaultChild?: unknown } }
            | undefined;
          const statements = policy
            ? (resources[idOf(policy)]?.Properties.PolicyDocument.Statement as Array<{
                Action: string | string[];
              }>)
            : [];
          return statements.some((statement) =>
            [statement.Action].flat().includes('ec2:CreateNetworkInterface'),
          );
        })
        .map(([name]) => name);
      expect(managesInterfaces.sort()).toEqual([...SEARCH_CLIENTS, ...WEBHOOK_SENDERS].sort());
    });

    it('has gateway endpoints for DynamoDB and S3 on the functions’ route tables', () => {
      const privateRouteTables = (stack.network?.vpc.privateSubnets ?? []).map((subnet) =>
        stack.resolve(subnet.routeTable.routeTableId),
      );
      for (const service of ['dynamodb', 's3']) {
        template.hasResourceProperties('AWS::EC2::VPCEndpoint', {
          VpcEndpointType: 'Gateway',
          ServiceName: Match.objectLike({
            'Fn::Join': ['', Match.arrayWith([`.${service}`])],
          }),
          RouteTableIds: privateRouteTables,
        });
      }
    });

    it('has private-DNS interface endpoints for SQS, KMS, Secrets Manager and X-Ray, behind the endpoints’ group', () => {
      const endpoints = Object.values(resources).filter(
        (resource) =>
          resource.Type === 'AWS::EC2::VPCEndpoint' &&
          resource.Properties.VpcEndpointType === 'Interface',
      );
      const services = endpoints.map((endpoint) =>
        JSON.stringify(endpoint.Properties.ServiceName).replace(/.*\.([a-z]+)"\]\]\}$/, '$1'),
      );
      expect(services.sort()).toEqual(['kms', 'secretsmanager', 'sqs', 'xray']);
      for (const endpoint of endpoints) {
        expect(endpoint.Properties).toMatchObject({
          PrivateDnsEnabled: true,
          SecurityGroupIds: [groupRef(networkOf().endpointsSecurityGroup)],
        });
      }
    });

    it('lets HTTPS from the functions’ group into the domain and the endpoints, from the webhook functions’ into the endpoints only', () => {
      const network = stack.network;
      if (!network) throw new Error('no network in live');
      const ingress = Object.values(resources).filter(
        (resource) => resource.Type === 'AWS::EC2::SecurityGroupIngress',
      );
      const https = (to: typeof network.searchSecurityGroup, from: typeof to) =>
        expect.objectContaining({
          GroupId: groupRef(to),
          SourceSecurityGroupId: groupRef(from),
          IpProtocol: 'tcp',
          FromPort: 443,
          ToPort: 443,
        });
      expect(ingress.map((rule) => rule.Properties)).toEqual(
        expect.arrayContaining([
          https(network.searchSecurityGroup, network.functionsSecurityGroup),
          https(network.endpointsSecurityGroup, network.functionsSecurityGroup),
          https(network.endpointsSecurityGroup, network.deliverySecurityGroup),
        ]),
      );
      expect(ingress).toHaveLength(3);
      // No group takes traffic from an address range, least of all the internet.
      for (const group of Object.values(resources).filter(
        (resource) => resource.Type === 'AWS::EC2::SecurityGroup',
      )) {
        expect(group.Properties.SecurityGroupIngress ?? []).toEqual([]);
      }
    });

    it('lets the functions out (crawls, model API, receivers), and the domain and endpoints send nothing', () => {
      const network = stack.network;
      if (!network) throw new Error('no network in live');
      for (const group of [network.functionsSecurityGroup, network.deliverySecurityGroup]) {
        expect(resources[idOf(group)]?.Properties.SecurityGroupEgress).toEqual([
          expect.objectContaining({ CidrIp: '0.0.0.0/0', IpProtocol: '-1' }),
        ]);
      }
      for (const group of [network.searchSecurityGroup, network.endpointsSecurityGroup]) {
        // CDK's "no egress" placeholder: ICMP type 86 to 255.255.255.255/32 only.
        expect(resources[idOf(group)]?.Properties.SecurityGroupEgress).toEqual([
          expect.objectContaining({ CidrIp: '255.255.255.255/32', IpProtocol: 'icmp' }),
        ]);
      }
    });

    it('strips the default security group’s rules', () => {
      template.resourceCountIs('Custom::VpcRestrictDefaultSG', 1);
    });

    it('describes the search endpoint as reachable from inside the VPC only', () => {
      template.hasOutput('SearchDomainEndpoint', {
        Description: Match.stringLikeRegexp('inside the VPC only'),
      });
    });
  });

  it('lets one NAT gateway serve both zones with natGateways=1, still allocating and publishing both addresses', () => {
    const template = templateOf(buildServiceStack({ environment: 'live', natGateways: 1 }));

    template.resourceCountIs('AWS::EC2::NatGateway', 1);
    // P239: going to two gateways later changes nothing a receiver allowlisted.
    template.resourceCountIs('AWS::EC2::EIP', 2);
    template.hasResourceProperties('AWS::EC2::NatGateway', {
      AllocationId: { 'Fn::GetAtt': [EGRESS_ADDRESS_LOGICAL_IDS[0], 'AllocationId'] },
    });
    template.hasOutput('WebhookSourceIps', {});
  });

  describe('environment "test" (searchNetwork "public" by default)', () => {
    let stack: ServiceStack;
    let template: Template;

    beforeAll(() => {
      const built = buildServiceStack({ environment: 'test' });
      stack = built.stack;
      template = templateOf(built);
    });

    it('gives the domain a public endpoint: no VPC options, no VPC at all', () => {
      const [domain] = Object.values(template.findResources('AWS::OpenSearchService::Domain'));
      expect(domain?.Properties.VPCOptions).toBeUndefined();
      expect(stack.network).toBeUndefined();
      template.resourceCountIs('AWS::EC2::VPC', 0);
      template.resourceCountIs('AWS::EC2::NatGateway', 0);
      template.resourceCountIs('AWS::EC2::VPCEndpoint', 0);
    });

    it('runs every function outside a VPC', () => {
      for (const fn of Object.values(template.findResources('AWS::Lambda::Function'))) {
        expect(fn.Properties.VpcConfig).toBeUndefined();
      }
    });

    it('allocates no Elastic IP and publishes none: no output, no setting, so the API says there are none (P240)', () => {
      template.resourceCountIs('AWS::EC2::EIP', 0);
      template.resourceCountIs('Custom::ChangeTime', 0);
      expect(Object.keys(template.findOutputs('WebhookSourceIps'))).toEqual([]);
      const webhooks = stack.http.functions.get(WEBHOOK_MANAGER);
      if (!webhooks) throw new Error('no webhooks family');
      const [, resource] =
        Object.entries(template.findResources('AWS::Lambda::Function')).find(
          ([id]) => id === logicalId(stack, webhooks.function),
        ) ?? [];
      expect(resource?.Properties.Environment.Variables.SVC_WEBHOOK_SOURCE_IPS).toBeUndefined();
    });
  });

  it('rehearses the live network in test with searchNetwork=vpc: one zone, one NAT gateway, addresses deleted with the stack', () => {
    const built = buildServiceStack({ environment: 'test', searchNetwork: 'vpc' });
    const template = templateOf(built);

    template.resourceCountIs('AWS::EC2::NatGateway', 1);
    // P239: a test deployment is torn down whole, its addresses too (stable ids still keep them across updates).
    const addresses = Object.values(template.findResources('AWS::EC2::EIP'));
    expect(addresses.map((address) => address.DeletionPolicy)).toEqual(['Delete', 'Delete']);
    const [domain] = Object.values(template.findResources('AWS::OpenSearchService::Domain'));
    expect(domain?.Properties.VPCOptions.SubnetIds).toHaveLength(1);
  });
});
