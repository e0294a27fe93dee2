import * as vm from 'node:vm';
import type { CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { ORIGIN_VERIFY_HEADER, VIEWER_ADDRESS_HEADER } from '../../layers/core/http/client-address';
import { FAMILIES } from '../../layers/core/http/routes/route-table';
import { VIEWER_ADDRESS_FUNCTION } from '../../lib/constructs/console-hosting';
import type { ServiceFunction } from '../../lib/constructs/service-function';
import type { ServiceStack } from '../../lib/service-stack';
import { buildServiceStack, ownFunctions, templateOf } from './service-stack-fixture';

type Resource = { Type: string; Properties: Record<string, any> };

/** CloudFront's managed AllViewerExceptHostHeader origin request policy. */
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

/** The dynamic reference CDK writes for a whole secret string (CloudFormation resolves it at deploy). */
const dynamicReferenceTo = (secretId: string) => ({
  'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: secretId }, ':SecretString:::}}']],
});

describe('The viewer address behind the console distribution (P242, P243)', () => {
  let stack: ServiceStack;
  let resources: Record<string, Resource>;
  let secretId: string;

  const idOf = (construct: { node: { defaultChild?: unknown } }) =>
    stack.getLogicalId(construct.node.defaultChild as CfnElement);
  const ofType = (type: string) =>
    Object.values(resources).filter((resource) => resource.Type === type);
  const distributionConfig = () => {
    const [distribution] = ofType('AWS::CloudFront::Distribution');
    return distribution?.Properties.DistributionConfig;
  };
  const webAclRules = () => {
    const [acl] = ofType('AWS::WAFv2::WebACL');
    return acl?.Properties.Rules as Array<Record<string, any>>;
  };

  beforeAll(() => {
    const built = buildServiceStack({ environment: 'test' });
    stack = built.stack;
    resources = templateOf(built).toJSON().Resources as Record<string, Resource>;
    secretId = idOf(stack.originVerify.secret);
  });

  it('generates the origin secret in Secrets Manager at deploy, with the main key, never in the template', () => {
    const secret = resources[secretId];

    expect(secret?.Type).toBe('AWS::SecretsManager::Secret');
    expect(secret?.Properties).toMatchObject({
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true, IncludeSpace: false },
      KmsKeyId: { 'Fn::GetAtt': [idOf(stack.encryptionKey.key), 'Arn'] },
    });
    expect(secret?.Properties.SecretString).toBeUndefined();
  });

  it('sends it to API Gateway, and only there, as the origin custom header X-Svc-Origin-Verify', () => {
    const origins = distributionConfig().Origins as Array<Record<string, any>>;
    const apiOrigin = origins.find((origin) => origin.CustomOriginConfig);
    const bucketOrigin = origins.find((origin) => origin.S3OriginConfig);

    expect(apiOrigin?.OriginCustomHeaders).toEqual([
      { HeaderName: ORIGIN_VERIFY_HEADER, HeaderValue: dynamicReferenceTo(secretId) },
    ]);
    expect(bucketOrigin?.OriginCustomHeaders).toBeUndefined();
  });

  it("writes the viewer's address on /api/* and passes it on with every viewer header but Host", () => {
    const behavior = (distributionConfig().CacheBehaviors as Array<Record<string, any>>).find(
      (candidate) => candidate.PathPattern === '/api/*',
    );
    const [functionId] = Object.entries(resources).find(
      ([, resource]) =>
        resource.Type === 'AWS::CloudFront::Function' &&
        resource.Properties.FunctionCode === VIEWER_ADDRESS_FUNCTION,
    ) ?? [undefined];

    expect(functionId).toBeDefined();
    expect(behavior?.OriginRequestPolicyId).toBe(ALL_VIEWER_EXCEPT_HOST_HEADER);
    expect(behavior?.FunctionAssociations).toEqual([
      {
        EventType: 'viewer-request',
        FunctionARN: { 'Fn::GetAtt': [functionId, 'FunctionARN'] },
      },
    ]);
    expect(resources[functionId as string]?.Properties.FunctionConfig.Runtime).toBe(
      'cloudfront-js-2.0',
    );
  });

  it('tells every HTTP family the secret’s ARN and lets it read the secret; nothing else', () => {
    for (const [name, fn] of ownFunctions(stack)) {
      const judgesAddresses = FAMILIES.includes(name);
      const variables = resources[idOf(fn.function)]?.Properties.Environment?.Variables ?? {};

      expect({ name, arn: variables.ORIGIN_VERIFY_SECRET_ARN }).toEqual({
        name,
        arn: judgesAddresses ? { Ref: secretId } : undefined,
      });
      expect({ name, actions: secretActionsOf(fn) }).toEqual({
        name,
        actions: judgesAddresses
          ? ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue']
          : [],
      });
    }
  });

  function secretActionsOf(fn: ServiceFunction): string[] {
    const policy = fn.role.node.tryFindChild('DefaultPolicy') as
      | { node: { defaultChild: unknown } }
      | undefined;
    if (!policy) return [];
    const statements = (resources[idOf(policy)]?.Properties.PolicyDocument.Statement ??
      []) as Array<{ Action: string | string[]; Resource: unknown }>;
    return statements
      .filter((statement) => JSON.stringify(statement.Resource).includes(`"${secretId}"`))
      .flatMap((statement) => [statement.Action].flat())
      .sort();
  }

  it("counts the console's requests per viewer in the web ACL, every other request per socket address", () => {
    const rules = webAclRules();
    const fromConsole = {
      ByteMatchStatement: {
        FieldToMatch: { SingleHeader: { Name: ORIGIN_VERIFY_HEADER.toLowerCase() } },
        PositionalConstraint: 'EXACTLY',
        SearchString: dynamicReferenceTo(secretId),
        TextTransformations: [{ Priority: 0, Type: 'NONE' }],
      },
    };
    const perAddress = rules.find((rule) => rule.Name === 'RateLimitPerAddress');
    const perViewer = rules.find((rule) => rule.Name === 'RateLimitPerViewer');

    expect(rules.map((rule) => [rule.Priority, rule.Name])).toEqual([
      [0, 'AWSManagedRulesAmazonIpReputationList'],
      [1, 'RateLimitPerAddress'],
      [2, 'RateLimitPerViewer'],
      [3, 'AWSManagedRulesKnownBadInputsRuleSet'],
      [4, 'AWSManagedRulesCommonRuleSet'],
    ]);
    expect(perAddress?.Statement.RateBasedStatement).toMatchObject({
      AggregateKeyType: 'IP',
      ScopeDownStatement: { NotStatement: { Statement: fromConsole } },
    });
    expect(perViewer?.Statement.RateBasedStatement).toMatchObject({
      Limit: perAddress?.Statement.RateBasedStatement.Limit,
      AggregateKeyType: 'FORWARDED_IP',
      ForwardedIPConfig: { HeaderName: VIEWER_ADDRESS_HEADER, FallbackBehavior: 'NO_MATCH' },
      EvaluationWindowSec: 300,
      ScopeDownStatement: fromConsole,
    });
    expect(perViewer?.Action).toEqual({ Block: {} });
  });

  it('rotates by generation: a new secret, and the distribution, web ACL and functions all name it (P243)', () => {
    const built = buildServiceStack({ environment: 'test', consoleOriginSecretGeneration: '2' });
    const rotated = Template.fromStack(built.stack).toJSON().Resources as Record<string, Resource>;
    const rotatedId = built.stack.getLogicalId(
      built.stack.originVerify.secret.node.defaultChild as CfnElement,
    );
    const secrets = Object.entries(rotated).filter(
      ([, resource]) =>
        resource.Type === 'AWS::SecretsManager::Secret' &&
        String(resource.Properties.Description).includes('origin verify header'),
    );
    const text = JSON.stringify(
      Object.values(rotated).filter((resource) =>
        ['AWS::CloudFront::Distribution', 'AWS::WAFv2::WebACL', 'AWS::Lambda::Function'].includes(
          resource.Type,
        ),
      ),
    );

    expect(rotatedId).not.toBe(secretId);
    expect(secrets.map(([id]) => id)).toEqual([rotatedId]);
    expect(rotated[rotatedId]?.Properties.Description).toContain('generation 2');
    expect(text).toContain(`"Ref":"${rotatedId}"`);
    expect(text).not.toContain(`"Ref":"${secretId}"`);
  });

  describe('the viewer-request function', () => {
    type Headers = Record<string, { value: string }>;
    const run = (headers: Headers, viewerIp: string): Headers => {
      const context = vm.createContext({});
      vm.runInContext(VIEWER_ADDRESS_FUNCTION, context);
      const handler = context.handler as (event: unknown) => { headers: Headers };
      return handler({ viewer: { ip: viewerIp }, request: { uri: '/api/v1/agents', headers } })
        .headers;
    };

    it("writes CloudFront's own view of the viewer's address", () => {
      expect(run({}, '203.0.113.7')['x-svc-viewer-address']).toEqual({ value: '203.0.113.7' });
      expect(run({}, '2001:db8::7')['x-svc-viewer-address']).toEqual({ value: '2001:db8::7' });
    });

    it('replaces a viewer address the client sent and drops a would-be secret', () => {
      const headers = run(
        {
          'x-svc-viewer-address': { value: '198.51.100.9' },
          'x-svc-origin-verify': { value: 'guess' },
          authorization: { value: 'Bearer svcsk_test_x' },
        },
        '203.0.113.7',
      );

      expect(headers).toEqual({
        'x-svc-viewer-address': { value: '203.0.113.7' },
        authorization: { value: 'Bearer svcsk_test_x' },
      });
    });
  });
});
