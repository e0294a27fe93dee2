import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, type CfnElement, NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import type { ServiceFunction } from '../../lib/constructs/service-function';
import { readDeploymentSettings } from '../../lib/deployment-settings';
import { ServiceStack } from '../../lib/service-stack';

/** A certificate ARN of the right shape; nothing looks it up at synth time. */
export const EXAMPLE_CERTIFICATE_ARN =
  'arn:aws:acm:eu-west-1:123456789012:certificate/12345678-1234-1234-1234-123456789012';

/** cdk.json's context (feature flags, default environment), as `cdk synth` would pass it. */
function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(
    fs.readFileSync(path.resolve(__dirname, '..', '..', 'cdk.json'), 'utf8'),
  ) as { context?: Record<string, unknown> };
  return cdkJson.context ?? {};
}

let consoleFixture: string | undefined;

/**
 * A small built console (index.html, one hashed file under assets/ and a
 * favicon at the top), made once per test process, so the infrastructure
 * tests never depend on the real console build (web/build.mjs).
 */
export function consoleFixtureDirectory(): string {
  if (consoleFixture) return consoleFixture;
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'aqs-console-'));
  fs.mkdirSync(path.join(directory, 'assets'));
  fs.writeFileSync(
    path.join(directory, 'index.html'),
    '<!doctype html><title>Console</title><script type="module" src="/assets/index-3f2a9c1d.js"></script>\n',
  );
  fs.writeFileSync(path.join(directory, 'assets', 'index-3f2a9c1d.js'), 'export {};\n');
  fs.writeFileSync(
    path.join(directory, 'favicon.svg'),
    '<svg xmlns="http://www.w3.org/2000/svg"/>\n',
  );
  consoleFixture = directory;
  return directory;
}

export interface BuiltServiceStack {
  readonly app: App;
  readonly stack: ServiceStack;
}

/**
 * Builds the service stack the way bin/app.ts does, from cdk.json's context
 * plus `context` (which wins).
 * `bundle: false` skips esbuild (assets become placeholders) for tests that
 * only look at configuration; the main template test bundles for real.
 */
export function buildServiceStack(
  context: Record<string, unknown> = {},
  options: { readonly bundle?: boolean } = {},
): BuiltServiceStack {
  const app = new App({
    context: {
      ...cdkJsonContext(),
      ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
      ...context,
    },
  });
  const settings = readDeploymentSettings(app);
  const stack = new ServiceStack(app, `AgentQueryService-${settings.environment}`, {
    settings,
    consoleAssetsDirectory: consoleFixtureDirectory(),
  });
  return { app, stack };
}

/** Every function the stack builds from functions/, by folder name. */
export function ownFunctions(stack: ServiceStack): Array<[string, ServiceFunction]> {
  return [
    ...stack.http.functions,
    ['fallback', stack.http.fallback],
    ['sync-worker', stack.syncWorker.worker],
    ['ingestion-worker', stack.ingestionWorker.worker],
    ['eval-worker', stack.evalWorker.worker],
    ['webhook-dispatcher', stack.webhookDispatcher.worker],
    ['event-publisher', stack.eventPublisher.publisher],
    ['scheduler', stack.syncScheduler.scheduler],
    ['search-index-bootstrap', stack.searchIndexes.handler],
  ];
}

/**
 * The stack's template, with the resources of its nested stacks (the alarms
 * and their topic, P94; the API's route groups, P195) inlined, each nested
 * stack's parameters replaced by the parent's values they receive: one view
 * of everything the deployment creates, in which an alarm names a function
 * by the parent's logical id as it would if it were in the same stack.
 */
export function templateOf(built: BuiltServiceStack): Template {
  const parent = Template.fromStack(built.stack).toJSON();
  const resources: Record<string, unknown> = { ...parent.Resources };
  const nestedStacks = built.stack.node
    .findAll()
    .filter((construct): construct is NestedStack => construct instanceof NestedStack)
    .filter((nested) => nested.nestedStackParent === built.stack);
  for (const nested of nestedStacks) {
    const nestedId = built.stack.getLogicalId(nested.nestedStackResource as CfnElement);
    const parameters: Record<string, unknown> =
      parent.Resources?.[nestedId]?.Properties?.Parameters ?? {};
    const resolve = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(resolve);
      if (value === null || typeof value !== 'object') return value;
      const entries = Object.entries(value);
      const [only] = entries;
      if (entries.length === 1 && only?.[0] === 'Ref' && typeof only[1] === 'string') {
        if (only[1] in parameters) return parameters[only[1]];
      }
      return Object.fromEntries(entries.map(([key, inner]) => [key, resolve(inner)]));
    };
    const inlined = resolve(Template.fromStack(nested).toJSON().Resources ?? {}) as object;
    for (const [logicalId, resource] of Object.entries(inlined)) {
      if (logicalId in resources) {
        throw new Error(`${logicalId} of ${nested.node.path} is also a logical id elsewhere`);
      }
      resources[logicalId] = resource;
    }
  }
  return Template.fromJSON(
    { ...parent, Resources: resources },
    { skipCyclicalDependenciesCheck: true },
  );
}

/** The logical id of `construct`'s resource in its own stack (the parent's or the nested Monitoring's). */
export function logicalIdOf(construct: IConstruct): string {
  return Stack.of(construct).getLogicalId(construct.node.defaultChild as CfnElement);
}

type TemplateResource = { Type: string; Properties?: Record<string, any> };

/**
 * API Gateway resource paths by logical id, rebuilt from `PathPart` and
 * `ParentId` (the root resource is `/`).
 */
export function apiResourcePaths(template: Template): Map<string, string> {
  const resources = template.findResources('AWS::ApiGateway::Resource') as Record<
    string,
    TemplateResource
  >;
  const paths = new Map<string, string>();
  const pathOf = (logicalId: string): string => {
    const known = paths.get(logicalId);
    if (known) return known;
    const resource = resources[logicalId];
    if (!resource?.Properties) throw new Error(`No API resource ${logicalId}`);
    const parent = resource.Properties.ParentId;
    const parentPath = parent?.Ref ? pathOf(parent.Ref as string) : '';
    const path = `${parentPath}/${resource.Properties.PathPart as string}`;
    paths.set(logicalId, path);
    return path;
  };
  for (const logicalId of Object.keys(resources)) pathOf(logicalId);
  return paths;
}

export interface ApiMethod {
  readonly path: string;
  readonly httpMethod: string;
  /** Logical id of the Lambda function the proxy integration invokes. */
  readonly functionLogicalId: string | undefined;
  readonly properties: Record<string, any>;
}

/** Every method of the API with its path and the function behind it. */
export function apiMethods(template: Template): ApiMethod[] {
  const paths = apiResourcePaths(template);
  const methods = template.findResources('AWS::ApiGateway::Method') as Record<
    string,
    TemplateResource
  >;
  return Object.values(methods).map((method) => {
    const properties = method.Properties ?? {};
    const resourceId = properties.ResourceId;
    const path = resourceId?.Ref ? (paths.get(resourceId.Ref as string) ?? '?') : '/';
    return {
      path,
      httpMethod: properties.HttpMethod as string,
      functionLogicalId: integrationFunction(properties.Integration?.Uri),
      properties,
    };
  });
}

/** Finds the `Fn::GetAtt [<function>, Arn]` inside an integration URI. */
function integrationFunction(uri: unknown): string | undefined {
  const text = JSON.stringify(uri ?? null);
  return /"Fn::GetAtt":\["([A-Za-z0-9]+)","Arn"\]/.exec(text)?.[1];
}
