import { App, Duration, NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as kms from 'aws-cdk-lib/aws-kms';
import type { Route } from '../../../layers/core/http/route';
import { HttpApi, type HttpApiFamily } from '../../../lib/constructs/http-api';

type KeyOrSessionRoute = Extract<Route, { scope: string }>;

const route = (overrides: Partial<KeyOrSessionRoute> = {}): Route => ({
  method: 'GET',
  path: '/api/v1/agents',
  family: 'agents',
  operation: 'listAgents',
  scope: 'Read',
  role: 'readonly',
  api: 'v1',
  ...overrides,
});

/** A streaming route of a family that has a handler (functions/query). */
const streamingRoute = (overrides: Partial<KeyOrSessionRoute> = {}): Route =>
  route({
    method: 'POST',
    path: '/api/v1/query',
    family: 'query',
    operation: 'query',
    scope: 'Execute',
    streaming: true,
    ...overrides,
  });

/** The routes' families, each with its own routes, as functions/families.ts lists them. */
function familiesOf(
  routes: readonly Route[],
  timeouts: Record<string, Duration> = {},
): HttpApiFamily[] {
  return [...new Set(routes.map((candidate) => candidate.family))].map((name) => ({
    name,
    routes: routes.filter((candidate) => candidate.family === name),
    timeout: timeouts[name],
  }));
}

function apiWith(families: readonly HttpApiFamily[]) {
  // No bundling: these tests look at the construct tree, not the code.
  const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Api');
  const encryptionKey = new kms.Key(stack, 'Key', { enableKeyRotation: true });
  return new HttpApi(stack, 'Http', { families, functionEnvironment: {}, encryptionKey });
}

function apiIn(routes: readonly Route[], timeouts?: Record<string, Duration>) {
  return apiWith(familiesOf(routes, timeouts));
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
    [
      [streamingRoute(), streamingRoute({ path: '/api/chat', streaming: undefined })],
      /family "query" mixes streaming and buffered routes \(POST \/api\/chat\)/,
    ],
  ])('refuses a broken route table before building anything (%#)', (routes, message) => {
    expect(() => apiIn(routes)).toThrow(message);
  });

  it.each([
    [
      [{ name: 'agents', routes: [route({ family: 'search' })] }],
      /family "agents" lists GET \/api\/v1\/agents, a route of family "search"/,
    ],
    [[{ name: 'agents', routes: [] }], /family "agents" has no routes/],
    [
      [
        { name: 'agents', routes: [route()] },
        { name: 'agents', routes: [route({ method: 'POST', operation: 'createAgent' })] },
      ],
      /family "agents" appears twice/,
    ],
  ])('refuses families that do not each serve their own routes (%#)', (families, message) => {
    expect(() => apiWith(families)).toThrow(message);
  });

  it('gives a family its own timeout, and refuses one over 29 s', () => {
    const api = apiIn([route()], { agents: Duration.seconds(20) });
    expect(api.node.validate()).toEqual([]);
    expect(api.functions.get('agents')?.function.timeout?.toSeconds()).toBe(20);

    expect(apiIn([route()], { agents: Duration.seconds(30) }).node.validate()).toEqual([
      'the timeout of family "agents" (30 seconds) is over API Gateway\'s 29 seconds for buffered responses',
    ]);
  });

  it('lets a streaming family run past 29 s, up to the 15 minutes of a stream', () => {
    expect(apiIn([streamingRoute()], { query: Duration.seconds(60) }).node.validate()).toEqual([]);
    expect(apiIn([streamingRoute()], { query: Duration.minutes(16) }).node.validate()).toEqual([
      'the timeout of family "query" (16 minutes) is over API Gateway\'s 15 minutes for streamed responses',
    ]);
  });

  it('streams the streaming routes through InvokeWithResponseStream, for as long as the function runs', () => {
    // Prepare
    const api = apiIn([route(), streamingRoute()], { query: Duration.seconds(60) });

    // Act
    // The parent's methods and those of the route groups' nested stacks (P195).
    const stacks = [Stack.of(api), ...api.node.findAll().filter(NestedStack.isNestedStack)];
    const methods = stacks.flatMap((stack) =>
      Object.values(Template.fromStack(stack).findResources('AWS::ApiGateway::Method')).map(
        (method) => method.Properties,
      ),
    );

    // Assess
    expect([...api.streamingFamilies]).toEqual(['query']);
    const post = methods.find((method) => method.HttpMethod === 'POST');
    expect(post?.Integration).toMatchObject({
      Type: 'AWS_PROXY',
      ResponseTransferMode: 'STREAM',
      TimeoutInMillis: 60_000,
    });
    expect(JSON.stringify(post?.Integration.Uri)).toContain('/response-streaming-invocations');
    for (const method of methods.filter((m) => m.HttpMethod !== 'POST')) {
      expect(method.Integration.ResponseTransferMode).toBeUndefined();
      expect(method.Integration.TimeoutInMillis).toBeUndefined();
      expect(JSON.stringify(method.Integration.Uri)).toMatch(
        /2015-03-31\/functions\/.*\/invocations/,
      );
    }
  });

  it('names the missing handler when a family has no functions/<family>/handler.ts', () => {
    expect(() => apiIn([route({ family: 'no-such-family' })])).toThrow(
      /No handler for function "no-such-family"/,
    );
  });
});
