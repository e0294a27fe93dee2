import type { CfnElement } from 'aws-cdk-lib';
import { FAMILIES } from '../../layers/core/http/routes/route-table';
import type { ServiceFunction } from '../../lib/constructs/service-function';
import type { ServiceStack } from '../../lib/service-stack';
import { buildServiceStack, templateOf } from './service-stack-fixture';

type Resource = { Type: string; Properties: Record<string, any> };

describe('The session signing secret (D12, P64)', () => {
  let stack: ServiceStack;
  let resources: Record<string, Resource>;

  const idOf = (construct: { node: { defaultChild?: unknown } }) =>
    stack.getLogicalId(construct.node.defaultChild as CfnElement);
  const allFunctions = (): Array<[string, ServiceFunction]> => [
    ...stack.http.functions,
    ['fallback', stack.http.fallback],
    ['sync-worker', stack.syncWorker.worker],
    ['ingestion-worker', stack.ingestionWorker.worker],
    ['webhook-dispatcher', stack.webhookDispatcher.worker],
    ['event-publisher', stack.eventPublisher.publisher],
    ['scheduler', stack.syncScheduler.scheduler],
    ['search-index-bootstrap', stack.searchIndexes.handler],
  ];
  const secretActionsOf = (fn: ServiceFunction): string[] => {
    const policy = fn.role.node.tryFindChild('DefaultPolicy') as
      | { node: { defaultChild: unknown } }
      | undefined;
    if (!policy) return [];
    const secretId = idOf(stack.sessionSecret.secret);
    const statements = resources[idOf(policy)]?.Properties.PolicyDocument.Statement as Array<{
      Action: string | string[];
      Resource: unknown;
    }>;
    return statements
      .filter((statement) => JSON.stringify(statement.Resource).includes(secretId))
      .flatMap((statement) => [statement.Action].flat())
      .sort();
  };

  beforeAll(() => {
    const built = buildServiceStack({ environment: 'test' });
    stack = built.stack;
    resources = templateOf(built).toJSON().Resources as Record<string, Resource>;
  });

  it('is read by every HTTP family, which checks sessions (P63), and by nothing else', () => {
    for (const [name, fn] of allFunctions()) {
      const checksSessions = FAMILIES.includes(name);
      expect({ name, actions: secretActionsOf(fn) }).toEqual({
        name,
        actions: checksSessions
          ? ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue']
          : [],
      });
    }
  });

  it("tells those functions the secret's ARN, never its value", () => {
    for (const [name, fn] of allFunctions()) {
      const variables = resources[idOf(fn.function)]?.Properties.Environment?.Variables ?? {};
      expect({ name, arn: variables.SESSION_SECRET_ARN }).toEqual({
        name,
        arn: FAMILIES.includes(name) ? { Ref: idOf(stack.sessionSecret.secret) } : undefined,
      });
    }
  });
});
