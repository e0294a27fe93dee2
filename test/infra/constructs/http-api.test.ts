import { App, Stack } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import type { Route } from '../../../layers/core/http/route';
import { HttpApi } from '../../../lib/constructs/http-api';

const route = (overrides: Partial<Route> = {}): Route => ({
  method: 'GET',
  path: '/api/v1/agents',
  family: 'agents',
  operation: 'listAgents',
  scope: 'Read',
  api: 'v1',
  ...overrides,
});

function apiIn(routes: readonly Route[]) {
  // No bundling: these tests look at the construct tree, not the code.
  const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Api');
  const encryptionKey = new kms.Key(stack, 'Key', { enableKeyRotation: true });
  return new HttpApi(stack, 'Http', { routes, functionEnvironment: {}, encryptionKey });
}

describe('Class: HttpApi', () => {
  it('builds one function per family of the routes it is given', () => {
    const api = apiIn([
      route(),
      route({ method: 'POST', operation: 'createAgent', scope: 'Write' }),
    ]);

    expect(api.node.validate()).toEqual([]);
    expect([...api.functions.keys()]).toEqual(['agents']);
  });

  it.each([
    [[route(), route()], /route GET \/api\/v1\/agents appears twice/],
    [[route({ path: '/api/v1/agents/' })], /must start with "\/" and not end with one/],
    [[route({ path: '/api/{proxy+}' })], /greedy parameters belong to the fallback/],
    [[], /the route table is empty/],
  ])('refuses a broken route table before building anything (%#)', (routes, message) => {
    expect(() => apiIn(routes)).toThrow(message);
  });

  it('names the missing handler when a family has no functions/<family>/handler.ts', () => {
    expect(() => apiIn([route({ family: 'no-such-family' })])).toThrow(
      /No handler for function "no-such-family"/,
    );
  });
});
