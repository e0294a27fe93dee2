import type { CfnElement, Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import {
  DEFAULT_INDEX_PREFIX,
  DEFINITION_VERSION,
} from '../../layers/core/adapters/opensearch/index-definition';
import { FAMILIES, ROUTES } from '../../layers/core/http/routes/route-table';
import { modelProviders } from '../../layers/core/wiring/model-providers';
import { searchIndexBootstrap } from '../../layers/core/wiring/search-index-bootstrap';
import { BUFFERED_TIMEOUT_LIMIT } from '../../lib/constructs/http-api';
import { SEARCH_INDEXES_RESOURCE_TYPE } from '../../lib/constructs/search-index-bootstrap';
import type { ServiceFunction } from '../../lib/constructs/service-function';
import { ENVIRONMENT_DEFAULTS } from '../../lib/deployment-settings';
import type { ServiceStack } from '../../lib/service-stack';
import { SYNC_MAX_RECEIVE_COUNT } from '../../lib/service-workers';
import { familiesThat } from './family-needs';

const QUERY_FAMILY = 'query';
/** How long a query may run, streamed or not (functions/query/family.ts). */
const QUERY_TIMEOUT_SECONDS = 60;
const RETRIEVAL_FAMILIES = familiesThat((needs) => needs.search === true);

import {
  type ApiMethod,
  apiMethods,
  buildServiceStack,
  ownFunctions,
  templateOf,
} from './service-stack-fixture';

type Resource = { Type: string; Properties: Record<string, any>; DependsOn?: string[] };
type Statement = { Effect: string; Action: string[]; Resource: unknown[] };

function logicalId(stack: Stack, construct: { node: { defaultChild?: unknown } }): string {
  return stack.getLogicalId(construct.node.defaultChild as CfnElement);
}

const arnOf = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** SQS's longest visibility timeout. */
const SQS_MAX_VISIBILITY_SECONDS = 12 * 3600;
/** Lambda's longest run. */
const LAMBDA_MAX_TIMEOUT_SECONDS = 15 * 60;

describe('Issue 3 in the cloud: streaming, OpenSearch access, sync worker, index bootstrap', () => {
  let stack: ServiceStack;
  let template: Template;
  let resources: Record<string, Resource>;
  let methods: ApiMethod[];
  let domainId: string;

  const propertiesOf = (construct: { node: { defaultChild?: unknown } }) =>
    resources[logicalId(stack, construct)]?.Properties ?? {};
  /** The statements of a role's default policy, Action and Resource as arrays. */
  const statementsOf = (role: ServiceFunction['role']): Statement[] => {
    const policy = role.node.tryFindChild('DefaultPolicy') as
      | { node: { defaultChild: unknown } }
      | undefined;
    if (!policy) return [];
    const document = resources[logicalId(stack, policy)]?.Properties.PolicyDocument;
    return (document.Statement as Array<Record<string, unknown>>).map((statement) => ({
      Effect: statement.Effect as string,
      Action: asArray(statement.Action) as string[],
      Resource: asArray(statement.Resource),
    }));
  };
  const timeoutOf = (fn: ServiceFunction) => propertiesOf(fn.function).Timeout as number;

  beforeAll(() => {
    // One synth for the file; no bundling, these tests read configuration only.
    const built = buildServiceStack({ environment: 'test' });
    stack = built.stack;
    template = templateOf(built);
    resources = template.toJSON().Resources as Record<string, Resource>;
    methods = apiMethods(template);
    domainId = stack.getLogicalId(stack.search.domain);
  });

  describe('response streaming (D19, ARCHITECTURE "Streaming")', () => {
    const streamingRoutes = ROUTES.filter((route) => route.streaming);
    const methodOf = (method: string, path: string) =>
      methods.find((m) => m.httpMethod === method && m.path === path);

    /** Query, and OpenAI-compatible chat, whose completions stream as query answers do. */
    const STREAMING_FAMILIES = [QUERY_FAMILY, 'openai'];

    it('marks exactly the query and OpenAI-compatible routes as streaming, v1 and legacy', () => {
      expect(streamingRoutes.map((route) => `${route.method} ${route.path}`).sort()).toEqual([
        'GET /api/v1/openai/models',
        'POST /api/chat',
        'POST /api/v1/openai/chat/completions',
        'POST /api/v1/query',
      ]);
      expect(new Set(streamingRoutes.map((route) => route.family))).toEqual(
        new Set(STREAMING_FAMILIES),
      );
      expect([...stack.http.streamingFamilies].sort()).toEqual([...STREAMING_FAMILIES].sort());
    });

    it('streams those routes: STREAM transfer mode, InvokeWithResponseStream, the function’s timeout', () => {
      for (const route of streamingRoutes) {
        const query = stack.http.functions.get(route.family);
        if (!query) throw new Error(`no ${route.family} function`);
        const queryId = logicalId(stack, query.function);
        const integration = methodOf(route.method, route.path)?.properties.Integration;
        expect({ route: route.path, integration }).toEqual({
          route: route.path,
          integration: expect.objectContaining({
            Type: 'AWS_PROXY',
            IntegrationHttpMethod: 'POST',
            ResponseTransferMode: 'STREAM',
            TimeoutInMillis: timeoutOf(query) * 1000,
          }),
        });
        expect(integration.Uri).toEqual({
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':apigateway:',
              { Ref: 'AWS::Region' },
              ':lambda:path/2021-11-15/functions/',
              arnOf(queryId),
              '/response-streaming-invocations',
            ],
          ],
        });
      }
    });

    it('keeps every other method buffered, within API Gateway’s 29 s, on the plain invocations path', () => {
      const streamed = new Set(streamingRoutes.map((route) => `${route.method} ${route.path}`));
      const others = methods.filter((m) => !streamed.has(`${m.httpMethod} ${m.path}`));
      expect(others.length).toBeGreaterThan(ROUTES.length - streamed.size);
      for (const method of others) {
        const integration = method.properties.Integration;
        expect({
          method: `${method.httpMethod} ${method.path}`,
          mode: integration.ResponseTransferMode,
        }).toEqual({ method: `${method.httpMethod} ${method.path}`, mode: undefined });
        expect(integration.TimeoutInMillis ?? 29_000).toBeLessThanOrEqual(29_000);
        expect(JSON.stringify(integration.Uri)).toContain('lambda:path/2015-03-31/functions/');
      }
    });

    it('lets a streamed answer run a minute, and keeps buffered families within 29 s', () => {
      for (const family of STREAMING_FAMILIES) {
        const query = stack.http.functions.get(family);
        if (!query) throw new Error(`no ${family} function`);
        expect(timeoutOf(query)).toBe(QUERY_TIMEOUT_SECONDS);
        expect(timeoutOf(query)).toBeGreaterThan(BUFFERED_TIMEOUT_LIMIT.toSeconds());
      }
      for (const [family, fn] of stack.http.functions) {
        if (STREAMING_FAMILIES.includes(family)) continue;
        expect({ family, timeout: timeoutOf(fn) }).toEqual({
          family,
          timeout: expect.any(Number),
        });
        expect(timeoutOf(fn)).toBeLessThanOrEqual(BUFFERED_TIMEOUT_LIMIT.toSeconds());
      }
    });

    it('lets API Gateway invoke the query function (lambda:InvokeFunction covers streaming), from this API only', () => {
      const query = stack.http.functions.get(QUERY_FAMILY);
      if (!query) throw new Error('no query function');
      const permissions = Object.values(resources).filter(
        (resource) =>
          resource.Type === 'AWS::Lambda::Permission' &&
          same(resource.Properties.FunctionName, arnOf(logicalId(stack, query.function))),
      );
      // One per route group serving it: its v1 and its legacy routes (P195).
      expect(permissions).toHaveLength(2);
      for (const permission of permissions) {
        expect(permission.Properties).toMatchObject({
          Action: 'lambda:InvokeFunction',
          Principal: 'apigateway.amazonaws.com',
        });
        expect(JSON.stringify(permission.Properties.SourceArn)).toContain(
          `{"Ref":"${logicalId(stack, stack.http.api)}"}`,
        );
      }
    });
  });

  describe('OpenSearch access', () => {
    const granted = [
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

    it('grants the data plane to the retrieval families, the sync, ingestion and eval workers and the bootstrap only', () => {
      expect([...RETRIEVAL_FAMILIES].sort()).toEqual(['mcp', 'openai', 'query', 'search']);
      const withSearch = ownFunctions(stack)
        .filter(([, fn]) =>
          statementsOf(fn.role).some((s) => s.Action.some((a) => a.startsWith('es:'))),
        )
        .map(([name]) => name);
      expect(withSearch.sort()).toEqual(granted);
      // The provider framework's role neither.
      expect(statementsOf(stack.searchIndexes.frameworkRole).flatMap((s) => s.Action)).not.toEqual(
        expect.arrayContaining([expect.stringMatching(/^es:/)]),
      );
    });

    it('grants HTTP verbs on this domain and its paths, nothing more', () => {
      const domainArn = stack.resolve(stack.search.domainArn);
      for (const [name, fn] of ownFunctions(stack).filter(([n]) => granted.includes(n))) {
        const searchStatements = statementsOf(fn.role).filter((s) =>
          s.Action.some((a) => a.startsWith('es:')),
        );
        expect({ name, searchStatements }).toEqual({
          name,
          searchStatements: [
            {
              Effect: 'Allow',
              Action: [
                'es:ESHttpDelete',
                'es:ESHttpGet',
                'es:ESHttpHead',
                'es:ESHttpPost',
                'es:ESHttpPut',
              ],
              Resource: [domainArn, stack.resolve(`${stack.search.domainArn}/*`)],
            },
          ],
        });
      }
    });

    it('names exactly those roles in the domain’s access policy', () => {
      const statements = resources[domainId]?.Properties.AccessPolicies.Statement as Array<
        Record<string, any>
      >;
      expect(statements).toHaveLength(1);
      expect(statements[0]).toMatchObject({ Effect: 'Allow' });
      expect(statements[0]?.Action).not.toContain('es:*');
      const principals = asArray(statements[0]?.Principal.AWS).map((p) => JSON.stringify(p));
      const expected = ownFunctions(stack)
        .filter(([name]) => granted.includes(name))
        .map(([, fn]) => JSON.stringify(arnOf(logicalId(stack, fn.role))));
      expect(principals.sort()).toEqual(expected.sort());
    });

    it('gives every function that builds dependencies, and the bootstrap, the domain’s endpoint host', () => {
      // The endpoint attribute is a host name without a scheme: the client
      // (layers/core/adapters/opensearch/client.ts) prefixes https:// itself.
      const endpoint = { 'Fn::GetAtt': [domainId, 'DomainEndpoint'] };
      const configured = ownFunctions(stack).filter(([name]) => name !== 'fallback');
      // The workers (sync, ingestion, eval, dispatcher), publisher, scheduler and the bootstrap.
      expect(configured).toHaveLength(FAMILIES.length + 7);
      for (const [name, fn] of configured) {
        const variables = propertiesOf(fn.function).Environment?.Variables ?? {};
        expect({ name, endpoint: variables.OPENSEARCH_ENDPOINT }).toEqual({ name, endpoint });
      }
      expect(template.findOutputs('SearchDomainEndpoint').SearchDomainEndpoint?.Value).toEqual({
        'Fn::Join': ['', ['https://', endpoint]],
      });
    });

    it('sets no model provider in any function’s environment without modelApiKeySecret (P55)', () => {
      for (const [name, fn] of ownFunctions(stack)) {
        const variables = propertiesOf(fn.function).Environment?.Variables ?? {};
        for (const key of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'MODEL_API_KEY_SECRET']) {
          expect({ name, set: key in variables }).toEqual({ name, set: false });
        }
      }
    });
  });

  describe('sync worker', () => {
    const syncQueueId = () => logicalId(stack, stack.queues.syncJobs.queue);
    const mappingsOn = (queueId: string) =>
      Object.values(resources).filter(
        (resource) =>
          resource.Type === 'AWS::Lambda::EventSourceMapping' &&
          same(resource.Properties.EventSourceArn, arnOf(queueId)),
      );

    it('consumes the sync queue one job at a time, reporting batch item failures', () => {
      const mappings = mappingsOn(syncQueueId());
      expect(mappings).toHaveLength(1);
      expect(mappings[0]?.Properties).toMatchObject({
        FunctionName: { Ref: logicalId(stack, stack.syncWorker.worker.function) },
        BatchSize: 1,
        MaximumBatchingWindowInSeconds: 0,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: ENVIRONMENT_DEFAULTS.test.syncWorkerConcurrency },
      });
    });

    it('runs up to Lambda’s 15 minutes, with a vCPU’s memory and reserved concurrency', () => {
      const properties = propertiesOf(stack.syncWorker.worker.function);
      expect(properties).toMatchObject({
        Architectures: ['arm64'],
        Handler: 'index.handler',
        Timeout: LAMBDA_MAX_TIMEOUT_SECONDS,
        ReservedConcurrentExecutions: ENVIRONMENT_DEFAULTS.test.syncWorkerConcurrency,
      });
      expect(properties.MemorySize).toBeGreaterThanOrEqual(1024);
      expect(properties.MemorySize).toBeLessThanOrEqual(2048);
      // Outside a VPC: it crawls customer websites on the internet.
      expect(properties.VpcConfig).toBeUndefined();
    });

    it('hides a received job for at least six worker timeouts (within SQS’s 12 h), redriving after 5', () => {
      const queue = resources[syncQueueId()]?.Properties ?? {};
      const timeout = timeoutOf(stack.syncWorker.worker);
      expect(queue.VisibilityTimeout).toBeGreaterThanOrEqual(6 * timeout);
      expect(queue.VisibilityTimeout).toBeLessThanOrEqual(SQS_MAX_VISIBILITY_SECONDS);
      expect(queue.RedrivePolicy.maxReceiveCount).toBe(SYNC_MAX_RECEIVE_COUNT);
      expect(SYNC_MAX_RECEIVE_COUNT).toBe(5);
      // Every redelivery can still happen before the message expires.
      expect(queue.MessageRetentionPeriod).toBeGreaterThan(
        SYNC_MAX_RECEIVE_COUNT * queue.VisibilityTimeout,
      );
    });

    it('reads and writes table items and sends nothing', () => {
      const actions = statementsOf(stack.syncWorker.worker.role).flatMap((s) => s.Action);
      expect(actions).toEqual(
        expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:Query']),
      );
      expect(actions).not.toContain('dynamodb:Scan');
      expect(actions).not.toContain('sqs:SendMessage');
    });

    it('alarms on its errors and on the sync dead-letter queue', () => {
      const alarms = Object.values(resources).filter((r) => r.Type === 'AWS::CloudWatch::Alarm');
      const fnId = logicalId(stack, stack.syncWorker.worker.function);
      const dlqId = logicalId(stack, stack.queues.syncJobs.deadLetterQueue);
      const on = (metric: string, id: string) =>
        alarms.filter(
          (alarm) =>
            alarm.Properties.MetricName === metric &&
            JSON.stringify(alarm.Properties.Dimensions).includes(`"${id}"`),
        );
      expect(on('Errors', fnId)).toHaveLength(1);
      expect(on('ApproximateNumberOfMessagesVisible', dlqId)).toHaveLength(1);
    });

    it('takes its concurrency from syncWorkerConcurrency (live defaults to 10)', () => {
      const live = buildServiceStack({ environment: 'live' });
      const liveTemplate = templateOf(live).toJSON().Resources as Record<string, Resource>;
      const fn = liveTemplate[logicalId(live.stack, live.stack.syncWorker.worker.function)];
      expect(fn?.Properties.ReservedConcurrentExecutions).toBe(10);
      expect(ENVIRONMENT_DEFAULTS.live.syncWorkerConcurrency).toBe(10);

      const tuned = buildServiceStack({ environment: 'test', syncWorkerConcurrency: '3' });
      const tunedMapping = Object.values(
        templateOf(tuned).toJSON().Resources as Record<string, Resource>,
      ).find((r) => r.Type === 'AWS::Lambda::EventSourceMapping' && r.Properties.BatchSize === 1);
      expect(tunedMapping?.Properties.ScalingConfig).toEqual({ MaximumConcurrency: 3 });
    });
  });

  describe('search index bootstrap (custom resource)', () => {
    const resourceOf = () => {
      const found = Object.entries(resources).filter(
        ([, r]) => r.Type === SEARCH_INDEXES_RESOURCE_TYPE,
      );
      expect(found).toHaveLength(1);
      return found[0]?.[1] as Resource;
    };
    const frameworkId = () =>
      logicalId(stack, stack.searchIndexes.provider.node.findChild('framework-onEvent') as never);

    it('is a Custom::SearchIndexes resource served by the provider framework, after the domain', () => {
      const resource = resourceOf();
      expect(resource.Properties.ServiceToken).toEqual(arnOf(frameworkId()));
      expect(resource.DependsOn).toContain(domainId);
    });

    it('lists the prefix, the embedder the cloud wiring uses, and the definition version', () => {
      const { embedder } = modelProviders(null);
      expect(resourceOf().Properties).toMatchObject({
        IndexPrefix: DEFAULT_INDEX_PREFIX,
        Embedders: JSON.stringify([{ id: embedder.id, dimensions: embedder.dimensions }]),
        DefinitionVersion: DEFINITION_VERSION,
        DomainEndpoint: { 'Fn::GetAtt': [domainId, 'DomainEndpoint'] },
      });
    });

    it('relays to the bootstrap function, whose environment its wiring accepts', () => {
      const bootstrap = stack.searchIndexes.handler;
      const framework = resources[frameworkId()]?.Properties ?? {};
      expect(framework.Environment.Variables.USER_ON_EVENT_FUNCTION_ARN).toEqual(
        arnOf(logicalId(stack, bootstrap.function)),
      );
      const variables = propertiesOf(bootstrap.function).Environment.Variables;
      expect(timeoutOf(bootstrap)).toBe(300);
      // The same variables, with a concrete host for the endpoint token: no network is used.
      const built = searchIndexBootstrap({
        ...variables,
        OPENSEARCH_ENDPOINT: 'search-aqs-test-abc.eu-west-1.es.amazonaws.com',
        AWS_REGION: 'eu-west-1',
      });
      expect(built.indexPrefix).toBe(DEFAULT_INDEX_PREFIX);
    });

    it('gives the provider a role that only invokes the bootstrap and writes its own logs', () => {
      const role = stack.searchIndexes.frameworkRole;
      expect(propertiesOf(role).ManagedPolicyArns).toBeUndefined();
      const bootstrapArn = arnOf(logicalId(stack, stack.searchIndexes.handler.function));
      const statements = statementsOf(role);
      expect(statements.flatMap((s) => s.Action).sort()).toEqual([
        'lambda:GetFunction',
        'lambda:InvokeFunction',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
      ]);
      for (const statement of statements.filter((s) => s.Action[0]?.startsWith('lambda:'))) {
        expect(JSON.stringify(statement.Resource)).not.toContain('"*"');
        expect(same(statement.Resource[0], bootstrapArn)).toBe(true);
      }
      const logGroupArn = arnOf(logicalId(stack, stack.searchIndexes.frameworkLogGroup));
      expect(statements.find((s) => s.Action.includes('logs:PutLogEvents'))?.Resource).toEqual([
        logGroupArn,
      ]);
    });

    it('logs the provider to a log group with the stack’s retention and key', () => {
      expect(propertiesOf(stack.searchIndexes.frameworkLogGroup)).toMatchObject({
        RetentionInDays: 30,
        KmsKeyId: arnOf(logicalId(stack, stack.encryptionKey.key)),
      });
      expect(resources[frameworkId()]?.Properties.LoggingConfig).toMatchObject({
        LogGroup: { Ref: logicalId(stack, stack.searchIndexes.frameworkLogGroup) },
      });
    });
  });

  it('has two schedules: the outbox sweep and the sync scheduler (D23)', () => {
    const rules = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::Events::Rule');
    expect(rules.map(([id]) => id).sort()).toEqual(
      [
        logicalId(stack, stack.eventPublisher.sweep),
        logicalId(stack, stack.syncScheduler.rule),
      ].sort(),
    );
  });
});
