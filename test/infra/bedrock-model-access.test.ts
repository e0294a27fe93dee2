import type { CfnElement } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { SEARCH_INDEXES_RESOURCE_TYPE } from '../../lib/constructs/search-index-bootstrap';
import type { ServiceFunction } from '../../lib/constructs/service-function';
import type { ServiceStack } from '../../lib/service-stack';
import { buildServiceStack, ownFunctions, templateOf } from './service-stack-fixture';

type Resource = { Type: string; Properties: Record<string, any> };
type Statement = { Sid?: string; Action: string | string[]; Resource: unknown };

/** Answers (and embeds the question): query, the MCP server, OpenAI-compatible chat and the eval worker. */
const ANSWERERS = ['query', 'mcp', 'openai', 'eval-worker'];
/** Embeds only: search, and the workers that index. */
const EMBEDDERS = ['search', 'sync-worker', 'ingestion-worker'];

const ANSWER_ACTIONS = ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'];
const FOUNDATION = (region: string, model: string) =>
  `arn:<AWS::Partition>:bedrock:${region}::foundation-model/${model}`;

/** An ARN as the template writes it (`Fn::Join` of strings and `Ref`s), with `<Ref>` for each reference. */
function arnText(value: unknown): string {
  if (typeof value === 'string') return value;
  const object = value as Record<string, any>;
  if (object.Ref) return `<${object.Ref}>`;
  if (object['Fn::Join']) return (object['Fn::Join'][1] as unknown[]).map(arnText).join('');
  return JSON.stringify(value);
}

function built(context: Record<string, unknown>) {
  const result = buildServiceStack({ environment: 'test', ...context });
  const resources = templateOf(result).toJSON().Resources as Record<string, Resource>;
  const stack: ServiceStack = result.stack;
  const idOf = (construct: { node: { defaultChild?: unknown } }) =>
    stack.getLogicalId(construct.node.defaultChild as CfnElement);
  /** The function's Bedrock statements: sid → actions and ARNs. */
  const bedrockGrants = (fn: ServiceFunction) => {
    const policy = fn.role.node.tryFindChild('DefaultPolicy') as
      | { node: { defaultChild: unknown } }
      | undefined;
    const statements: Statement[] = policy
      ? (resources[idOf(policy)]?.Properties.PolicyDocument.Statement ?? [])
      : [];
    return statements
      .filter((statement) =>
        [statement.Action].flat().some((action) => action.startsWith('bedrock:')),
      )
      .map((statement) => ({
        sid: statement.Sid,
        actions: [statement.Action].flat().sort(),
        resources: [statement.Resource].flat().map(arnText),
      }));
  };
  const environmentOf = (fn: ServiceFunction): Record<string, string> =>
    resources[idOf(fn.function)]?.Properties.Environment?.Variables ?? {};
  return { stack, resources, bedrockGrants, environmentOf, app: result.app };
}

describe('Issue 32: Amazon Bedrock as the model provider in the cloud (modelProvider=bedrock)', () => {
  describe('with the default models', () => {
    const { stack, resources, bedrockGrants, environmentOf } = built({ modelProvider: 'bedrock' });
    const answerArn = FOUNDATION('<AWS::Region>', 'amazon.nova-lite-v1:0');
    const embeddingArn = FOUNDATION('<AWS::Region>', 'amazon.titan-embed-text-v2:0');

    it('grants both invoke actions on the answer model to query and the eval worker only', () => {
      for (const [name, fn] of ownFunctions(stack)) {
        const answers = bedrockGrants(fn).filter((grant) => grant.sid === 'BedrockAnswers');
        expect({ name, answers }).toEqual({
          name,
          answers: ANSWERERS.includes(name)
            ? [{ sid: 'BedrockAnswers', actions: ANSWER_ACTIONS, resources: [answerArn] }]
            : [],
        });
      }
    });

    it('grants InvokeModel on the embedding model to the functions that embed, and nothing to the rest', () => {
      for (const [name, fn] of ownFunctions(stack)) {
        const embeddings = bedrockGrants(fn).filter((grant) => grant.sid === 'BedrockEmbeddings');
        const embeds = [...ANSWERERS, ...EMBEDDERS].includes(name);
        expect({ name, embeddings }).toEqual({
          name,
          embeddings: embeds
            ? [
                {
                  sid: 'BedrockEmbeddings',
                  actions: ['bedrock:InvokeModel'],
                  resources: [embeddingArn],
                },
              ]
            : [],
        });
        expect({ name, count: bedrockGrants(fn).length }).toEqual({
          name,
          count: ANSWERERS.includes(name) ? 2 : embeds ? 1 : 0,
        });
      }
    });

    it('names no wildcard resource in any Bedrock grant', () => {
      const arns = ownFunctions(stack).flatMap(([, fn]) =>
        bedrockGrants(fn).flatMap((grant) => grant.resources),
      );
      expect(arns.length).toBeGreaterThan(0);
      for (const arn of arns) {
        expect(arn).not.toContain('*');
        expect(arn).toMatch(/:(foundation-model|inference-profile)\//);
      }
    });

    it('tells the model callers the provider and models, and no key or secret', () => {
      for (const [name, fn] of ownFunctions(stack)) {
        const variables = environmentOf(fn);
        const caller = [...ANSWERERS, ...EMBEDDERS].includes(name);
        expect({
          name,
          provider: variables.MODEL_PROVIDER,
          answer: variables.BEDROCK_ANSWER_MODEL,
          embedding: variables.BEDROCK_EMBEDDING_MODEL,
          secret: variables.MODEL_API_KEY_SECRET,
        }).toEqual({
          name,
          provider: caller ? 'bedrock' : undefined,
          answer: caller ? 'amazon.nova-lite-v1:0' : undefined,
          embedding: caller ? 'amazon.titan-embed-text-v2:0' : undefined,
          secret: undefined,
        });
      }
    });

    it('creates the chunk index of Titan V2 beside the offline one', () => {
      const bootstrap = Object.values(resources).find(
        (resource) => resource.Type === SEARCH_INDEXES_RESOURCE_TYPE,
      );
      expect(JSON.parse(bootstrap?.Properties.Embedders)).toEqual([
        { id: 'offline-hash-v1/384', dimensions: 384 },
        { id: 'bedrock/amazon.titan-embed-text-v2:0/1024', dimensions: 1024 },
      ]);
    });

    it('has no unacknowledged cdk-nag finding', () => {
      const violations = [new AwsSolutionsChecks(), new ServerlessChecks()].flatMap(
        (pack) => pack.validateScope(stack).violations,
      );
      expect(violations.map((violation) => violation.ruleName)).toEqual([]);
    });
  });

  it('grants no Bedrock action and sets no Bedrock variable without modelProvider', () => {
    const { stack, bedrockGrants, environmentOf } = built({});

    for (const [name, fn] of ownFunctions(stack)) {
      expect({ name, grants: bedrockGrants(fn) }).toEqual({ name, grants: [] });
      expect({ name, provider: environmentOf(fn).MODEL_PROVIDER }).toEqual({
        name,
        provider: undefined,
      });
    }
  });

  it('grants an inference profile and its model in each region it routes to', () => {
    const { stack, bedrockGrants, environmentOf } = built({
      modelProvider: 'bedrock',
      bedrockAnswerModel: 'us.anthropic.claude-3-5-haiku-20241022-v1:0',
      bedrockEmbeddingDimensions: 512,
    });
    const query = stack.http.functions.get('query');
    if (!query) throw new Error('no query function');

    const answers = bedrockGrants(query).find((grant) => grant.sid === 'BedrockAnswers');

    const model = 'anthropic.claude-3-5-haiku-20241022-v1:0';
    expect(answers?.resources).toEqual([
      'arn:<AWS::Partition>:bedrock:<AWS::Region>:<AWS::AccountId>:inference-profile/us.anthropic.claude-3-5-haiku-20241022-v1:0',
      FOUNDATION('<AWS::Region>', model),
      FOUNDATION('us-east-1', model),
      FOUNDATION('us-east-2', model),
      FOUNDATION('us-west-2', model),
    ]);
    expect(environmentOf(query).BEDROCK_EMBEDDING_DIMENSIONS).toBe('512');
  });

  it('grants a global profile’s model with the empty region IAM uses for it', () => {
    const { stack, bedrockGrants } = built({
      modelProvider: 'bedrock',
      bedrockAnswerModel: 'global.anthropic.claude-sonnet-4-5-20250929-v1:0',
    });
    const evalWorker = stack.evalWorker.worker;

    const answers = bedrockGrants(evalWorker).find((grant) => grant.sid === 'BedrockAnswers');

    expect(answers?.resources).toContain(
      FOUNDATION('', 'anthropic.claude-sonnet-4-5-20250929-v1:0'),
    );
  });

  describe('context checks', () => {
    // The app reads its context first: a bad value fails the synth before any construct.
    const settingsOf = (context: Record<string, unknown>) => () =>
      buildServiceStack({ environment: 'test', ...context });

    it.each([
      [{ modelProvider: 'bedrock', modelApiKeySecret: 'openai' }, /exclude each other/],
      [{ bedrockAnswerModel: 'amazon.nova-pro-v1:0' }, /needs "modelProvider" "bedrock"/],
      [{ modelProvider: 'bedrock', bedrockEmbeddingDimensions: 768 }, /not a vector length/],
      [{ modelProvider: 'openai' }, /must be "bedrock"/],
      [{ modelProvider: 'bedrock', bedrockAnswerModel: 'Nova Lite' }, /Bedrock model id/],
      [
        { modelProvider: 'bedrock', bedrockAnswerModel: 'ca.amazon.nova-lite-v1:0' },
        /bedrockModelRegions/,
      ],
      [{ modelProvider: 'bedrock', bedrockModelRegions: 'us-east-1' }, /for an inference profile/],
    ])('refuses %j', (context, message) => {
      expect(settingsOf(context)).toThrow(message);
    });
  });
});
