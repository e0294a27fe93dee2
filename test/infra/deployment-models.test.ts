import type { CfnElement } from 'aws-cdk-lib';
import { buildServiceStack, ownFunctions, templateOf } from './service-stack-fixture';

type Resource = { Type: string; Properties: Record<string, any> };

/** Each function's environment, by name, in a stack built with `context`. */
function environments(context: Record<string, unknown>): Map<string, Record<string, unknown>> {
  const built = buildServiceStack({ environment: 'test', ...context });
  const resources = templateOf(built).toJSON().Resources as Record<string, Resource>;
  return new Map(
    ownFunctions(built.stack).map(([name, fn]) => [
      name,
      resources[built.stack.getLogicalId(fn.function.node.defaultChild as CfnElement)]?.Properties
        .Environment?.Variables ?? {},
    ]),
  );
}

/** The deployment-models variables only. */
const told = (variables: Record<string, unknown> | undefined) =>
  Object.fromEntries(
    Object.entries(variables ?? {}).filter(([name]) => name.startsWith('SVC_DEPLOYMENT_')),
  );

describe('Issue 31: the agents function is told what the deployment answers with', () => {
  it.each([
    [{}, { SVC_DEPLOYMENT_MODEL_PROVIDER: 'offline' }],
    [{ modelApiKeySecret: 'svc/openai' }, { SVC_DEPLOYMENT_MODEL_PROVIDER: 'openai' }],
    [
      { modelApiKeySecret: 'svc/compatible', modelBaseUrl: 'https://llm.example.com/v1' },
      { SVC_DEPLOYMENT_MODEL_PROVIDER: 'openai_compatible' },
    ],
    [
      { modelProvider: 'bedrock' },
      {
        SVC_DEPLOYMENT_MODEL_PROVIDER: 'bedrock',
        SVC_DEPLOYMENT_ANSWER_MODEL: 'amazon.nova-lite-v1:0',
      },
    ],
  ])('with %j: %j, and no secret or model to call', (context, expected) => {
    const functions = environments(context);
    const agents = functions.get('agents');

    expect(told(agents)).toEqual(expected);
    expect(agents).not.toHaveProperty('MODEL_API_KEY_SECRET');
    expect(agents).not.toHaveProperty('MODEL_PROVIDER');
    for (const [name, variables] of functions) {
      if (name !== 'agents') expect({ name, told: told(variables) }).toEqual({ name, told: {} });
    }
  });
});
