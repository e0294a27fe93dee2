import {
  type BuiltServiceStack,
  buildServiceStack,
  EXAMPLE_CERTIFICATE_ARN,
  templateOf,
} from './service-stack-fixture';

/**
 * The only actions an identity policy of this stack may grant on
 * `Resource: "*"`, each with the reason it cannot name a resource. cdk-nag's
 * wildcard rule (AwsSolutions-IAM5[Resource::*]) is acknowledged on every
 * function role for these, so cdk-nag alone would let any new `resources:
 * ['*']` grant through: this list is the check it lacks. Adding an action here
 * needs the same kind of reason; anything else must name its resources.
 */
const ACTIONS_THAT_CANNOT_BE_SCOPED: Readonly<Record<string, string>> = {
  // Every function traces with X-Ray (Tracing.ACTIVE).
  'xray:PutTraceSegments':
    'X-Ray has no resource-level permissions for sending segments; AWS documents its resource as "*".',
  'xray:PutTelemetryRecords':
    'X-Ray has no resource-level permissions for telemetry; AWS documents its resource as "*".',
  // The event publisher reads the table's stream (DynamoEventSource).
  'dynamodb:ListStreams':
    'Listing streams has no resource-level permissions; the stream reads themselves name the table’s stream ARN.',
  // Functions in the VPC (searchNetwork "vpc", the live default): Lambda
  // attaches and detaches their network interfaces with the function's role,
  // the grants AWS's own AWSLambdaVPCAccessExecutionRole makes on "*".
  'ec2:DescribeNetworkInterfaces': 'Describe actions in EC2 have no resource-level permissions.',
  'ec2:DescribeSubnets': 'Describe actions in EC2 have no resource-level permissions.',
  'ec2:CreateNetworkInterface':
    'Lambda creates the interfaces itself, so their ids do not exist when the role is written.',
  'ec2:DeleteNetworkInterface':
    'Lambda deletes interfaces it created, whose ids are known only to Lambda.',
  'ec2:AssignPrivateIpAddresses': 'Acts on the interfaces Lambda creates, unknown in advance.',
  'ec2:UnassignPrivateIpAddresses': 'Acts on the interfaces Lambda creates, unknown in advance.',
};

/**
 * AWS-managed policies (written by AWS, not in the template, several with
 * `"*"` inside) that a role may attach, with who attaches them. A role of
 * ours attaching any other managed policy would bring grants this test
 * cannot see, so it fails.
 */
const MANAGED_POLICIES_ALLOWED: Readonly<Record<string, string>> = {
  'service-role/AWSLambdaBasicExecutionRole':
    'CDK’s own deploy-time handlers (bucket notifications, console deployment, custom resource providers) write their logs with it.',
  'service-role/AmazonAPIGatewayPushToCloudWatchLogs':
    'API Gateway’s account-level logging role (apiGatewayCloudWatchRole), which only API Gateway assumes.',
};

/** Resource types whose properties hold an identity policy (who may do what, on which resources). */
const IDENTITY_POLICY_TYPES = new Set([
  'AWS::IAM::Policy',
  'AWS::IAM::ManagedPolicy',
  'AWS::IAM::Role',
  'AWS::IAM::User',
  'AWS::IAM::Group',
]);

type Statement = {
  Effect?: string;
  Action?: unknown;
  NotAction?: unknown;
  Resource?: unknown;
  NotResource?: unknown;
};
type Resource = { Type: string; Properties?: Record<string, unknown> };

interface FoundStatement {
  /** Logical id and property path, to name the offender in a failure. */
  readonly where: string;
  readonly type: string;
  readonly statement: Statement;
}

/** Every statement of every policy document in the template, wherever it sits in a resource's properties. */
function statementsOf(resources: Record<string, Resource>): FoundStatement[] {
  const found: FoundStatement[] = [];
  const walk = (value: unknown, where: string, type: string): void => {
    if (Array.isArray(value)) {
      for (const [index, inner] of value.entries()) walk(inner, `${where}[${index}]`, type);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    const record = value as Record<string, unknown>;
    if ('Statement' in record && 'Version' in record) {
      for (const statement of [record.Statement].flat() as Statement[]) {
        found.push({ where, type, statement });
      }
      return;
    }
    for (const [key, inner] of Object.entries(record)) walk(inner, `${where}.${key}`, type);
  };
  for (const [logicalId, resource] of Object.entries(resources)) {
    walk(resource.Properties ?? {}, logicalId, resource.Type);
  }
  return found;
}

const list = (value: unknown): unknown[] => (value === undefined ? [] : [value].flat());

/** The deployments whose roles differ: no VPC (test) and everything a live deployment can turn on. */
const DEPLOYMENTS: Array<[string, Record<string, unknown>]> = [
  ['test defaults', { environment: 'test' }],
  [
    'live in a VPC with model and connector secrets, mail, alarms and custom domains',
    {
      environment: 'live',
      modelApiKeySecret: 'agent-query-service/openai',
      modelBaseUrl: 'https://models.example.com/v1',
      connectorAppsSecret: 'agent-query-service/connectors',
      sesIdentity: 'example.com',
      mailFrom: 'no-reply@example.com',
      alarmEmail: 'oncall@example.com',
      apiDomainName: 'api.example.com',
      apiCertificateArn: EXAMPLE_CERTIFICATE_ARN,
      consoleDomainName: 'console.example.com',
      consoleCertificateArn: EXAMPLE_CERTIFICATE_ARN.replace('eu-west-1', 'us-east-1'),
    },
  ],
];

describe('IAM: no grant on Resource "*" beyond the actions that cannot be scoped', () => {
  describe.each(DEPLOYMENTS)('service stack, %s', (_name, context) => {
    let statements: FoundStatement[];
    let resources: Record<string, Resource>;

    beforeAll(() => {
      const built: BuiltServiceStack = buildServiceStack(context);
      resources = templateOf(built).toJSON().Resources as Record<string, Resource>;
      statements = statementsOf(resources);
    });

    it('finds the policies it checks (the walk is really looking)', () => {
      const identity = statements.filter((found) => IDENTITY_POLICY_TYPES.has(found.type));
      expect(identity.length).toBeGreaterThan(50);
      expect(identity.some((found) => list(found.statement.Resource).includes('*'))).toBe(true);
    });

    it('grants on "*" only the listed actions, in identity policies', () => {
      const wildcardActions = statements
        .filter((found) => IDENTITY_POLICY_TYPES.has(found.type))
        .filter((found) => found.statement.Effect === 'Allow')
        .filter((found) => list(found.statement.Resource).includes('*'))
        .flatMap((found) =>
          list(found.statement.Action).map((action) => ({ where: found.where, action })),
        );

      const unscopable = wildcardActions.filter(
        ({ action }) => typeof action !== 'string' || !(action in ACTIONS_THAT_CANNOT_BE_SCOPED),
      );

      expect(unscopable).toEqual([]);
    });

    it('never allows NotAction or NotResource (a wildcard by another name)', () => {
      const negated = statements
        .filter((found) => found.statement.Effect === 'Allow')
        .filter((found) => 'NotAction' in found.statement || 'NotResource' in found.statement)
        .map((found) => found.where);

      expect(negated).toEqual([]);
    });

    it('names the resource in every resource policy but a KMS key policy (where "*" means the key itself)', () => {
      const wildcards = statements
        .filter((found) => !IDENTITY_POLICY_TYPES.has(found.type))
        .filter((found) => found.type !== 'AWS::KMS::Key')
        .filter((found) => list(found.statement.Resource).includes('*'))
        .map((found) => `${found.type} ${found.where}`);

      expect(wildcards).toEqual([]);
    });

    it('attaches only the listed AWS-managed policies', () => {
      const attached = Object.entries(resources)
        .filter(([, resource]) => resource.Type === 'AWS::IAM::Role')
        .flatMap(([logicalId, resource]) =>
          list(resource.Properties?.ManagedPolicyArns).map((arn) => ({
            logicalId,
            policy: /:iam::aws:policy\/([\w/+=,.@-]+)/.exec(JSON.stringify(arn))?.[1] ?? arn,
          })),
        );

      const unlisted = attached.filter(
        ({ policy }) => typeof policy !== 'string' || !(policy in MANAGED_POLICIES_ALLOWED),
      );

      expect(unlisted).toEqual([]);
    });
  });
});
