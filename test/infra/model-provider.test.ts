import type { CfnElement } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { modelProviders } from '../../layers/core/wiring/model-providers';
import { SEARCH_INDEXES_RESOURCE_TYPE } from '../../lib/constructs/search-index-bootstrap';
import type { ServiceFunction } from '../../lib/constructs/service-function';
import type { ServiceStack } from '../../lib/service-stack';
import { buildServiceStack, ownFunctions, templateOf } from './service-stack-fixture';

type Resource = { Type: string; Properties: Record<string, any> };

const SECRET_NAME = 'agent-query-service/openai';
const BASE_URL = 'https://models.example.com/v1';
/** The functions that call a model: the only ones told the secret and allowed to read it (P55). */
// Issue 11 item 5 (P139): the eval worker answers questions as query does.
// The MCP server and OpenAI-compatible chat answer as query does.
const MODEL_CALLERS = [
  'query',
  'search',
  'mcp',
  'openai',
  'sync-worker',
  'ingestion-worker',
  'eval-worker',
];

describe('Issue 8: the model provider in the cloud (modelApiKeySecret, P55)', () => {
  let stack: ServiceStack;
  let template: Template;
  let resources: Record<string, Resource>;

  const idOf = (construct: { node: { defaultChild?: unknown } }) =>
    stack.getLogicalId(construct.node.defaultChild as CfnElement);
  const secretActionsOf = (fn: ServiceFunction): string[] => {
    const policy = fn.role.node.tryFindChild('DefaultPolicy') as
      | { node: { defaultChild: unknown } }
      | undefined;
    if (!policy) return [];
    const statements = resources[idOf(policy)]?.Properties.PolicyDocument.Statement as Array<{
      Action: string | string[];
      Resource: unknown;
    }>;
    return statements
      .filter((statement) => JSON.stringify(statement.Resource).includes(`secret:${SECRET_NAME}`))
      .flatMap((statement) => [statement.Action].flat());
  };

  beforeAll(() => {
    const built = buildServiceStack({
      environment: 'test',
      modelApiKeySecret: SECRET_NAME,
      modelBaseUrl: BASE_URL,
    });
    stack = built.stack;
    template = templateOf(built);
    resources = template.toJSON().Resources as Record<string, Resource>;
  });

  it('tells exactly the model callers the secret’s name and the base URL, never a key', () => {
    for (const [name, fn] of ownFunctions(stack)) {
      const variables = resources[idOf(fn.function)]?.Properties.Environment?.Variables ?? {};
      const caller = MODEL_CALLERS.includes(name);
      expect({
        name,
        secret: variables.MODEL_API_KEY_SECRET,
        url: variables.OPENAI_BASE_URL,
      }).toEqual({
        name,
        secret: caller ? SECRET_NAME : undefined,
        url: caller ? BASE_URL : undefined,
      });
      expect({ name, key: variables.OPENAI_API_KEY }).toEqual({ name, key: undefined });
    }
  });

  it('lets only the model callers read the secret, and only read it', () => {
    for (const [name, fn] of ownFunctions(stack)) {
      const actions = secretActionsOf(fn).sort();
      expect({ name, actions }).toEqual({
        name,
        actions: MODEL_CALLERS.includes(name)
          ? ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue']
          : [],
      });
    }
  });

  it('grants the secret by name with the suffix Secrets Manager adds, not every secret', () => {
    const query = stack.http.functions.get('query');
    if (!query) throw new Error('no query function');
    const policy = query.role.node.tryFindChild('DefaultPolicy') as {
      node: { defaultChild: unknown };
    };
    const statements = (resources[idOf(policy)]?.Properties.PolicyDocument.Statement ??
      []) as Array<Record<string, unknown>>;
    const statement = statements.find((s) => JSON.stringify(s.Resource).includes('secretsmanager'));
    expect(JSON.stringify(statement?.Resource)).toContain(`:secret:${SECRET_NAME}-??????`);
  });

  it('creates the chunk index of the embedder the cloud wiring then uses, beside the offline one', () => {
    const bootstrap = Object.values(resources).find((r) => r.Type === SEARCH_INDEXES_RESOURCE_TYPE);
    const offline = modelProviders(null).embedder;
    const openAi = modelProviders({ apiKey: 'unused' }).embedder;
    expect(JSON.parse(bootstrap?.Properties.Embedders as string)).toEqual([
      { id: offline.id, dimensions: offline.dimensions },
      { id: openAi.id, dimensions: openAi.dimensions },
    ]);
  });

  it('takes a complete ARN as it is', () => {
    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:shared/openai-AbC123';
    const built = buildServiceStack({ environment: 'test', modelApiKeySecret: arn });
    const variables = Object.values(
      templateOf(built).findResources('AWS::Lambda::Function', {
        Properties: { Environment: { Variables: { MODEL_API_KEY_SECRET: arn } } },
      }),
    );
    expect(variables).toHaveLength(MODEL_CALLERS.length);
    expect(JSON.stringify(templateOf(built).toJSON())).toContain(`"${arn}"`);
  });
});
