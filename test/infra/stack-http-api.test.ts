import { type CfnElement, NestedStack, type Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { SECURITY_HEADERS } from '../../layers/core/http/middlewares/response-headers';
import { FAMILIES, ROUTES } from '../../layers/core/http/routes/route-table';
import type { ServiceStack } from '../../lib/service-stack';
import {
  type ApiMethod,
  apiMethods,
  apiResourcePaths,
  buildServiceStack,
  templateOf,
} from './service-stack-fixture';

/** The logical id of a construct's CloudFormation resource. */
function logicalId(stack: Stack, construct: { node: { defaultChild?: unknown } }): string {
  return stack.getLogicalId(construct.node.defaultChild as CfnElement);
}

describe('Class: ServiceStack, its HTTP API (environment "test")', () => {
  let stack: ServiceStack;
  let template: Template;
  let methods: ApiMethod[];

  beforeAll(() => {
    // Prepare: one synth for the whole file; the methods and resources need no bundled code.
    const built = buildServiceStack({ environment: 'test' });
    stack = built.stack;
    template = templateOf(built);
    methods = apiMethods(template);
  });

  describe('HTTP API', () => {
    it("keeps every stack of the deployment well under CloudFormation's 500 resources (P94, P195)", () => {
      const stacks = [stack, ...stack.node.findAll().filter(NestedStack.isNestedStack)];
      const counts = Object.fromEntries(
        stacks.map((each) => [
          each.node.path,
          Object.keys(Template.fromStack(each).toJSON().Resources ?? {}).length,
        ]),
      );
      // 400 leaves room for a few more families before a stack must be split.
      for (const [path, count] of Object.entries(counts)) {
        expect({ path, underLimit: count <= 400 }).toEqual({ path, underLimit: true });
      }
    });

    it('builds the v1 and the legacy methods in nested stacks, and deploys the API after them (P195)', () => {
      const [v1, legacy] = ['RoutesV1', 'RoutesLegacy'].map((id) => {
        const nested = stack.http.node.tryFindChild(id);
        if (!(nested instanceof NestedStack)) throw new Error(`no nested stack ${id}`);
        return nested;
      });
      const methodsOf = (nested: NestedStack | undefined) =>
        Object.keys(
          Template.fromStack(nested as NestedStack).findResources('AWS::ApiGateway::Method'),
        ).length;
      const v1Routes = ROUTES.filter((route) => route.path.startsWith('/api/v1/')).length;
      expect(methodsOf(v1)).toBeGreaterThan(v1Routes);
      expect(methodsOf(legacy)).toBeGreaterThan(ROUTES.length - v1Routes);
      const parent = Template.fromStack(stack);
      const [deployment] = Object.values(parent.findResources('AWS::ApiGateway::Deployment'));
      for (const nested of [v1, legacy]) {
        expect(deployment?.DependsOn).toContain(
          stack.getLogicalId(nested?.nestedStackResource as CfnElement),
        );
      }
      parent.resourceCountIs('AWS::ApiGateway::Deployment', 1);
      parent.hasResourceProperties('AWS::ApiGateway::Stage', {
        DeploymentId: { Ref: Match.stringLikeRegexp('Deployment') },
      });
    });

    it('hands functions every request body as the client sent it: binary media types */* (P196)', () => {
      template.hasResourceProperties('AWS::ApiGateway::RestApi', { BinaryMediaTypes: ['*/*'] });
    });

    it('has a method for every route in ROUTES, proxying to the route family function', () => {
      for (const route of ROUTES) {
        const fn = stack.http.functions.get(route.family);
        if (!fn) throw new Error(`No function for family ${route.family}`);
        const method = methods.find((m) => m.path === route.path && m.httpMethod === route.method);
        expect({ route: `${route.method} ${route.path}`, fn: method?.functionLogicalId }).toEqual({
          route: `${route.method} ${route.path}`,
          fn: logicalId(stack, fn.function),
        });
        expect(method?.properties.Integration).toMatchObject({
          Type: 'AWS_PROXY',
          IntegrationHttpMethod: 'POST',
        });
      }
      const routed = methods.filter((method) => method.httpMethod !== 'ANY');
      expect(routed).toHaveLength(ROUTES.length);
    });

    it('sends ANY of every resource, the root and the catch-all to the fallback function', () => {
      const fallbackId = logicalId(stack, stack.http.fallback.function);
      const resourcePaths = [...apiResourcePaths(template).values()];
      for (const path of [...resourcePaths, '/']) {
        const any = methods.find((method) => method.path === path && method.httpMethod === 'ANY');
        expect({ path, fn: any?.functionLogicalId }).toEqual({ path, fn: fallbackId });
      }
      expect(resourcePaths).toContain('/{proxy+}');
    });

    it('creates one function per family, ARM64 on Node.js 22 or 24, handler `handler`', () => {
      expect([...stack.http.functions.keys()]).toEqual([...FAMILIES]);
      const functions = template.findResources('AWS::Lambda::Function');
      for (const fn of [...stack.http.functions.values(), stack.http.fallback]) {
        const properties = functions[logicalId(stack, fn.function)]?.Properties;
        expect(properties).toMatchObject({
          Architectures: ['arm64'],
          Runtime: expect.stringMatching(/^nodejs(22|24)\.x$/),
          Handler: 'index.handler',
          TracingConfig: { Mode: 'Active' },
          MemorySize: expect.any(Number),
          Timeout: expect.any(Number),
          LoggingConfig: { LogGroup: { Ref: logicalId(stack, fn.logGroup) } },
        });
      }
      // Plus the fallback, the sync worker, the ingestion worker, the eval
      // worker, the webhook dispatcher, the event publisher, the sync
      // scheduler, the search index bootstrap and its provider framework, and
      // CDK's bucket-notifications, bucket-emptying and (issue 21) console
      // bucket-deployment handlers (deploy time only).
      template.resourceCountIs('AWS::Lambda::Function', FAMILIES.length + 12);
    });

    it('gives family functions the configuration layers/core/config.ts parses', () => {
      const functions = template.findResources('AWS::Lambda::Function');
      const consoleOrigin = {
        'Fn::Join': [
          '',
          [
            'https://',
            { 'Fn::GetAtt': [logicalId(stack, stack.console.distribution), 'DomainName'] },
          ],
        ],
      };
      for (const [family, fn] of stack.http.functions) {
        const variables =
          functions[logicalId(stack, fn.function)]?.Properties.Environment.Variables;
        expect(variables).toEqual({
          // P236: the console's origin for the CSRF check; P237: SSO and connector callbacks there.
          SVC_CONSOLE_ORIGIN: consoleOrigin,
          ...(family === 'sso' || family === 'connections'
            ? { SVC_PUBLIC_URL: consoleOrigin }
            : {}),
          // Issue 31: agents are checked against what the deployment answers with (offline here).
          ...(family === 'agents' ? { SVC_DEPLOYMENT_MODEL_PROVIDER: 'offline' } : {}),
          TABLE_NAME: { Ref: logicalId(stack, stack.data.table) },
          SVC_ENVIRONMENT: 'test',
          SYNC_QUEUE_URL: { Ref: logicalId(stack, stack.queues.syncJobs.queue) },
          DELIVERY_QUEUE_URL: { Ref: logicalId(stack, stack.queues.webhookDeliveries.queue) },
          EVAL_QUEUE_URL: { Ref: logicalId(stack, stack.queues.evaluations.queue) },
          SECRETS_KEY_ARN: { 'Fn::GetAtt': [logicalId(stack, stack.secretsKey.key), 'Arn'] },
          FILE_BUCKET_NAME: { Ref: logicalId(stack, stack.files.bucket) },
          OPENSEARCH_ENDPOINT: {
            'Fn::GetAtt': [stack.getLogicalId(stack.search.domain), 'DomainEndpoint'],
          },
          // P64: every family checks sessions.
          SESSION_SECRET_ARN: { Ref: logicalId(stack, stack.sessionSecret.secret) },
          // P242: every family judges addresses, the console's by the viewer's.
          ORIGIN_VERIFY_SECRET_ARN: { Ref: logicalId(stack, stack.originVerify.secret) },
          // P54: no --enable-source-maps, it slows every cold start.
          POWERTOOLS_SERVICE_NAME: expect.stringMatching(/^svc-/),
        });
      }
    });

    it('grants table item access to every family; each queue sender sends to its queue only', () => {
      const policies = template.findResources('AWS::IAM::Policy');
      const statementsOf = (fn: { role: { node: { findChild(id: string): unknown } } }) => {
        const policy = fn.role.node.findChild('DefaultPolicy') as {
          node: { defaultChild: unknown };
        };
        const document = policies[logicalId(stack, policy)]?.Properties.PolicyDocument;
        return document.Statement as Array<{ Action: string | string[]; Resource: unknown }>;
      };
      const actionsOf = (fn: { role: { node: { findChild(id: string): unknown } } }) =>
        statementsOf(fn).flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
      const queueArn = (queue: { node: { defaultChild?: unknown } }) => ({
        'Fn::GetAtt': [logicalId(stack, queue), 'Arn'],
      });
      const sendTargets: Record<string, unknown> = {
        'data-sources': queueArn(stack.queues.syncJobs.queue),
        // P119: article changes go to the sync worker.
        kb: queueArn(stack.queues.syncJobs.queue),
        webhooks: queueArn(stack.queues.webhookDeliveries.queue),
        // Issue 11 item 5: a started evaluation is queued for the eval worker.
        evals: queueArn(stack.queues.evaluations.queue),
      };
      for (const [family, fn] of stack.http.functions) {
        const actions = actionsOf(fn);
        expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query']));
        expect(actions).not.toContain('dynamodb:Scan');
        const sends = statementsOf(fn).filter((s) => [s.Action].flat().includes('sqs:SendMessage'));
        expect({ family, sendsTo: sends.map((s) => s.Resource) }).toEqual({
          family,
          sendsTo: family in sendTargets ? [sendTargets[family]] : [],
        });
      }
      expect(actionsOf(stack.http.fallback).filter((a) => !/^(logs|xray):/.test(a))).toEqual([]);
    });

    it('has a stage with JSON access logs, tracing, metrics and default throttling', () => {
      template.hasResourceProperties('AWS::ApiGateway::Stage', {
        StageName: 'test',
        TracingEnabled: true,
        AccessLogSetting: {
          DestinationArn: Match.anyValue(),
          Format: Match.serializedJson(Match.objectLike({ requestId: '$context.requestId' })),
        },
        MethodSettings: [
          Match.objectLike({
            HttpMethod: '*',
            ResourcePath: '/*',
            MetricsEnabled: true,
            DataTraceEnabled: false,
            ThrottlingRateLimit: 50,
            ThrottlingBurstLimit: 100,
          }),
        ],
      });
    });

    it('answers gateway errors in the nested error shape with the security headers (D5)', () => {
      for (const [type, code] of [
        ['DEFAULT_4XX', 'invalid_request'],
        ['DEFAULT_5XX', 'internal_error'],
      ] as const) {
        template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
          ResponseType: type,
          ResponseTemplates: {
            'application/json': `{"error":{"code":"${code}","message":$context.error.messageString,"details":{}},"request_id":"$context.requestId"}`,
          },
          ResponseParameters: Match.objectLike({
            'gatewayresponse.header.Strict-Transport-Security': `'${SECURITY_HEADERS['Strict-Transport-Security']}'`,
          }),
        });
      }
    });

    it('keeps the execute-api endpoint when no custom domain is configured', () => {
      template.hasResourceProperties('AWS::ApiGateway::RestApi', {
        DisableExecuteApiEndpoint: false,
        EndpointConfiguration: { Types: ['REGIONAL'] },
      });
      template.resourceCountIs('AWS::ApiGateway::DomainName', 0);
    });

    it('puts a WAF web ACL with AWS managed rules and a rate rule in front of the stage', () => {
      template.hasResourceProperties('AWS::WAFv2::WebACL', {
        Scope: 'REGIONAL',
        Rules: Match.arrayWith([
          Match.objectLike({ Name: 'AWSManagedRulesAmazonIpReputationList' }),
          Match.objectLike({ Name: 'RateLimitPerAddress' }),
          Match.objectLike({ Name: 'AWSManagedRulesKnownBadInputsRuleSet' }),
          Match.objectLike({ Name: 'AWSManagedRulesCommonRuleSet' }),
        ]),
      });
      template.resourceCountIs('AWS::WAFv2::WebACLAssociation', 1);
    });
  });
});
