import { Duration, NestedStack, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as acm from 'aws-cdk-lib/aws-certificatemanager';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { Route } from '../../layers/core/http/route';
import {
  ACCESS_LOG_FORMAT,
  errorTemplate,
  GATEWAY_ERRORS,
  GATEWAY_RESPONSE_HEADERS,
} from './api-gateway-formats';
import {
  constructId,
  deploymentFingerprint,
  pathPrefixes,
  type RouteGroup,
  relativePath,
  routeGroups,
  validateRoutes,
} from './api-route-groups';
import { ServiceFunction, type ServiceFunctionNetworkProps } from './service-function';

export interface HttpApiDomain {
  /** Lower-case DNS name, e.g. `api.example.com`. */
  readonly domainName: string;
  /** Regional ACM certificate for `domainName`, in the stack's region. */
  readonly certificate: acm.ICertificate;
}

/** One endpoint family: one function (functions/<name>/handler.ts) serving its routes. */
export interface HttpApiFamily {
  /** The folder under functions/, and the `family` every one of its routes names. */
  readonly name: string;
  readonly routes: readonly Route[];
  /**
   * How long its function may run, where `functionTimeout` is too short (a
   * family that waits on an outside server). At most 29 s, or 15 minutes
   * for a family whose routes stream (`streaming: true`); a streaming
   * family's integration waits exactly as long as its function runs.
   * @default `functionTimeout`
   */
  readonly timeout?: Duration;
  /** @default `functionMemorySize` */
  readonly memorySize?: number;
  /**
   * VPC placement, for a family that talks to something only reachable
   * inside a VPC (P50: the search domain in `live`) or must leave through
   * known addresses.
   * @default - outside any VPC
   */
  readonly network?: ServiceFunctionNetworkProps;
}

export interface HttpApiProps {
  /**
   * The endpoint families, one function each (functions/families.ts): every
   * row of their routes becomes a method on its resource path, in this order.
   */
  readonly families: readonly HttpApiFamily[];
  /** Variables every family function gets (the configuration layers/core/config.ts parses). */
  readonly functionEnvironment: Readonly<Record<string, string>>;
  /** Key for the API's and the functions' log groups. */
  readonly encryptionKey: kms.IKey;
  /**
   * Name of the REST API.
   * @default - the construct path
   */
  readonly restApiName?: string;
  /**
   * Stage name; the execute-api URL is `https://<id>.execute-api.<region>.amazonaws.com/<stage>/`.
   * @default 'prod' (the CDK convention)
   */
  readonly stageName?: string;
  /**
   * Stage-wide throttling: steady-state requests per second.
   * @default 50
   */
  readonly throttlingRateLimit?: number;
  /**
   * Stage-wide throttling: burst size.
   * @default 100
   */
  readonly throttlingBurstLimit?: number;
  /**
   * Retention of the access, execution and function log groups.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
  /**
   * What happens to the log groups when they leave the stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly logRemovalPolicy?: RemovalPolicy;
  /**
   * Serve the API on this custom domain and turn the default execute-api
   * endpoint off, so there is one way in.
   * @default - the execute-api endpoint only
   */
  readonly domain?: HttpApiDomain;
  /**
   * Set the account-wide API Gateway CloudWatch Logs role (needed once per
   * account and region for access and execution logs).
   * @default true
   */
  readonly cloudWatchRole?: boolean;
  /**
   * Memory of a family function that names none, in MB.
   * @default 1024
   */
  readonly functionMemorySize?: number;
  /**
   * Timeout of a family function that names none; API Gateway gives up on a
   * buffered response after 29 s anyway.
   * @default Duration.seconds(10)
   */
  readonly functionTimeout?: Duration;
  /**
   * Where functions/ is.
   * @default the repository's functions/ folder
   */
  readonly functionsDir?: string;
}

/** The function (functions/fallback) that answers what no route serves with 404/405. */
export const FALLBACK_FOLDER = 'fallback';

/** What a family function may run when no timeout is given. */
const DEFAULT_FUNCTION_TIMEOUT = Duration.seconds(10);

/** API Gateway's integration timeout for buffered responses (without a quota increase). */
export const BUFFERED_TIMEOUT_LIMIT = Duration.seconds(29);

/**
 * How long API Gateway streams one response (`ResponseTransferMode.STREAM`):
 * 15 minutes, which is also Lambda's longest run.
 */
export const STREAMING_TIMEOUT_LIMIT = Duration.minutes(15);

/**
 * The public API: an API Gateway REST API built from the route table, one
 * Lambda per route family behind Lambda proxy integrations, and the fallback
 * function on `ANY` of every resource and on the root catch-all, so unknown
 * paths and methods get the service's own 404/405 rather than API
 * Gateway's "Missing Authentication Token".
 *
 * Routes marked `streaming: true` (ARCHITECTURE "Streaming") use
 * API Gateway's response streaming: `ResponseTransferMode.STREAM`, the
 * function invoked with `InvokeWithResponseStream`, and an integration
 * timeout equal to the function's, which may exceed 29 s (up to 15 minutes).
 *
 * API Gateway only serves HTTPS (it has no plain-HTTP listener), so there is
 * nothing to redirect; HSTS comes from the functions and gateway responses.
 *
 * Authentication, scopes and rate limits are middleware inside each
 * function (ARCHITECTURE, "A request's way"), not an API Gateway authorizer;
 * the cdk-nag findings asking for one are acknowledged per method.
 */
export class HttpApi extends Construct {
  readonly api: apigateway.RestApi;
  readonly stage: apigateway.Stage;
  /** The family functions, by family name (`agents`, `data-sources`, …). */
  readonly functions: ReadonlyMap<string, ServiceFunction>;
  /**
   * Families whose routes stream: API Gateway invokes their functions
   * with `InvokeWithResponseStream` (`ResponseTransferMode.STREAM`).
   */
  readonly streamingFamilies: ReadonlySet<string>;
  readonly fallback: ServiceFunction;
  /** Every method of the API, the route groups' nested stacks' included. */
  readonly methods: readonly apigateway.Method[];
  readonly accessLogGroup: logs.LogGroup;
  readonly domainName: apigateway.DomainName | undefined;
  /** Base URL callers use: the custom domain when there is one, else the stage URL. */
  readonly url: string;

  private readonly logRetention: logs.RetentionDays;
  private readonly logRemovalPolicy: RemovalPolicy;
  /** The routes of every family, in the families' order. */
  private readonly routes: readonly Route[];
  private readonly timeoutOf: (family: string) => Duration;
  private readonly fallbackMethods = new Set<apigateway.Method>();

  constructor(scope: Construct, id: string, props: HttpApiProps) {
    super(scope, id);
    const stageName = props.stageName ?? 'prod';
    this.logRetention = props.logRetention ?? logs.RetentionDays.ONE_MONTH;
    this.logRemovalPolicy = props.logRemovalPolicy ?? RemovalPolicy.RETAIN;
    this.routes = props.families.flatMap((family) => family.routes);

    // Checked before building: a duplicate route would otherwise fail deep
    // inside API Gateway's constructs with a message about construct ids.
    const problems = [...familyProblems(props.families), ...validateRoutes(this.routes)];
    if (problems.length > 0) {
      throw new Error(`${this.node.path}: invalid route table: ${problems.join('; ')}`);
    }
    // validateRoutes made sure every route of a family agrees on `streaming`.
    this.streamingFamilies = new Set(
      this.routes.filter((route) => route.streaming).map((route) => route.family),
    );
    const timeouts = new Map(props.families.map((family) => [family.name, family.timeout]));
    this.timeoutOf = (family) =>
      timeouts.get(family) ?? props.functionTimeout ?? DEFAULT_FUNCTION_TIMEOUT;
    this.validateLimits(props);

    this.functions = this.createFamilyFunctions(props);
    this.fallback = this.createFallback(props);
    for (const fn of [...this.functions.values(), this.fallback]) {
      Validations.of(fn.function).acknowledge({
        id: 'Serverless-LambdaDLQ',
        reason:
          'Invoked only synchronously by API Gateway (Lambda proxy integration, RequestResponse); a Lambda DLQ applies to asynchronous invocations, and a failed request is answered to its caller.',
      });
    }

    this.accessLogGroup = new logs.LogGroup(this, 'AccessLogs', {
      retention: this.logRetention,
      encryptionKey: props.encryptionKey,
      removalPolicy: this.logRemovalPolicy,
    });
    this.api = this.createRestApi(props, stageName);
    const { methods, groupStacks } = this.addMethods();
    this.methods = methods;
    this.stage = this.deploy(props, stageName, groupStacks);

    for (const { type, code, statusCode } of GATEWAY_ERRORS) {
      this.api.addGatewayResponse(`GatewayResponse${type.responseType}`, {
        type,
        statusCode,
        responseHeaders: GATEWAY_RESPONSE_HEADERS,
        templates: { 'application/json': errorTemplate(code) },
      });
    }

    if (props.domain) {
      this.domainName = new apigateway.DomainName(this, 'DomainName', {
        domainName: props.domain.domainName,
        certificate: props.domain.certificate,
        endpointType: apigateway.EndpointType.REGIONAL,
        securityPolicy: apigateway.SecurityPolicy.TLS_1_2,
        mapping: this.api,
      });
      this.url = `https://${props.domain.domainName}/`;
    } else {
      this.domainName = undefined;
      this.url = this.api.url;
    }

    this.acknowledgeDesignFindings(this.fallbackMethods);
  }

  /** The stage's throttling, and each family's timeout against what API Gateway waits. */
  private validateLimits(props: HttpApiProps): void {
    const throttlingRateLimit = props.throttlingRateLimit ?? 50;
    const throttlingBurstLimit = props.throttlingBurstLimit ?? 100;
    this.node.addValidation({
      validate: () =>
        throttlingRateLimit > 0 && throttlingBurstLimit > 0
          ? []
          : ['throttlingRateLimit and throttlingBurstLimit must be positive'],
    });
    this.node.addValidation({
      validate: () =>
        props.families.flatMap(({ name }) => {
          // A buffered run longer than API Gateway waits is never answered.
          const streamed = this.streamingFamilies.has(name);
          const limit = streamed ? STREAMING_TIMEOUT_LIMIT : BUFFERED_TIMEOUT_LIMIT;
          const timeout = this.timeoutOf(name);
          return timeout.toSeconds() > limit.toSeconds()
            ? [
                `the timeout of family "${name}" (${timeout.toHumanString()}) is over API Gateway's ${limit.toHumanString()} for ${streamed ? 'streamed' : 'buffered'} responses`,
              ]
            : [];
        }),
    });
  }

  private createFamilyFunctions(props: HttpApiProps): Map<string, ServiceFunction> {
    const functions = new Map<string, ServiceFunction>();
    for (const family of props.families) {
      const streaming = this.streamingFamilies.has(family.name) ? ', response streaming' : '';
      functions.set(
        family.name,
        new ServiceFunction(this, constructId(family.name), {
          folder: family.name,
          description: `Agent Query Service: ${family.name} endpoints (${family.routes.length} routes${streaming})`,
          environment: props.functionEnvironment,
          memorySize: family.memorySize ?? props.functionMemorySize,
          timeout: this.timeoutOf(family.name),
          logRetention: this.logRetention,
          logEncryptionKey: props.encryptionKey,
          logRemovalPolicy: this.logRemovalPolicy,
          functionsDir: props.functionsDir,
          ...family.network,
        }),
      );
    }
    return functions;
  }

  /** No table, no key, no queue: it only reads the route table it is bundled with. */
  private createFallback(props: HttpApiProps): ServiceFunction {
    return new ServiceFunction(this, 'Fallback', {
      folder: FALLBACK_FOLDER,
      description: 'Agent Query Service: 404/405 for anything no route serves',
      memorySize: 256,
      timeout: Duration.seconds(5),
      logRetention: this.logRetention,
      logEncryptionKey: props.encryptionKey,
      logRemovalPolicy: this.logRemovalPolicy,
      functionsDir: props.functionsDir,
    });
  }

  private createRestApi(props: HttpApiProps, stageName: string): apigateway.RestApi {
    const api = new apigateway.RestApi(this, 'RestApi', {
      restApiName: props.restApiName,
      description: 'Agent Query Service API (routes from layers/core/http/routes/route-table.ts)',
      endpointConfiguration: { types: [apigateway.EndpointType.REGIONAL] },
      disableExecuteApiEndpoint: props.domain !== undefined,
      cloudWatchRole: props.cloudWatchRole ?? true,
      // The role is an account-wide setting other APIs rely on too.
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      // Every request body reaches the function as the bytes the
      // client sent (base64 in the proxy event), so the JSON body rules' strict UTF-8 check
      // sees them; text responses (isBase64Encoded false) pass unchanged.
      binaryMediaTypes: ['*/*'],
      // The deployment is made below, once the route groups' nested stacks
      // exist: the RestApi's own would not see methods added in them.
      deploy: false,
    });
    // The RestApi's own "Endpoint" output has a generated name; the stack
    // exports the URL under a stable one instead.
    api.node.tryRemoveChild('Endpoint');

    // API Gateway creates this group on first use with no expiry; creating
    // it here gives execution logs the same retention and key.
    new logs.LogGroup(this, 'ExecutionLogs', {
      logGroupName: `API-Gateway-Execution-Logs_${api.restApiId}/${stageName}`,
      retention: this.logRetention,
      encryptionKey: props.encryptionKey,
      removalPolicy: this.logRemovalPolicy,
    });
    return api;
  }

  /**
   * One integration (and one invoke permission, scoped to this API) per
   * function instead of one permission per method. A streaming family's
   * handler is a response-streaming one inside Lambda (layers/core/http/
   * streaming.ts), so API Gateway must call it through
   * InvokeWithResponseStream (the integration URI's
   * `…/response-streaming-invocations`; lambda:InvokeFunction covers it)
   * and may wait for the stream as long as the function runs. Every other
   * integration stays BUFFERED with API Gateway's default 29 s.
   */
  private familyIntegrations(): Map<string, apigateway.LambdaIntegration> {
    return new Map(
      [...this.functions].map(
        ([family, fn]) =>
          [
            family,
            integrationOf(
              fn,
              this.streamingFamilies.has(family) ? this.timeoutOf(family) : undefined,
            ),
          ] as const,
      ),
    );
  }

  /**
   * P195: the methods and resources under each route group's base path
   * live in a nested stack of their own, so the API can grow past what
   * one CloudFormation stack holds (500 resources). The base paths
   * themselves, the root and the root catch-all stay here.
   */
  private addMethods(): { methods: apigateway.Method[]; groupStacks: NestedStack[] } {
    const methods: apigateway.Method[] = [];
    const fallbackIntegration = integrationOf(this.fallback);
    const addFallback = (resource: apigateway.IResource) => {
      const method = resource.addMethod('ANY', fallbackIntegration);
      this.fallbackMethods.add(method);
      methods.push(method);
    };
    const integrations = this.familyIntegrations();
    const groups = routeGroups(this.routes);
    const groupStacks: NestedStack[] = [];
    for (const group of groups) {
      const base = this.api.root.resourceForPath(group.basePath);
      if (group.stackId === undefined) {
        for (const route of group.routes) {
          methods.push(addRoute(base, route, group, integrations));
        }
        for (const path of group.resourcePaths) addFallback(base.resourceForPath(path));
        continue;
      }
      const stack = new NestedStack(this, group.stackId, {
        description: `Agent Query Service API: the methods under ${group.basePath}`,
      });
      groupStacks.push(stack);
      const restApi = apigateway.RestApi.fromRestApiAttributes(stack, 'RestApi', {
        restApiId: this.api.restApiId,
        rootResourceId: this.api.restApiRootResourceId,
      });
      // Named after its path, so logical ids differ between the groups'
      // templates too (both have a `webhooks` resource, say).
      const importedBase = apigateway.Resource.fromResourceAttributes(
        stack,
        constructId(group.basePath),
        { restApi, resourceId: base.resourceId, path: group.basePath },
      );
      // Integrations are bound per stack: each nested stack grants its own
      // invoke permission, scoped to this API, once per function.
      const groupIntegrations = this.familyIntegrations();
      for (const route of group.routes) {
        methods.push(addRoute(importedBase, route, group, groupIntegrations));
      }
      for (const path of group.resourcePaths) addFallback(importedBase.resourceForPath(path));
    }

    // The fallback takes every other method of each resource (405 with
    // Allow), the root, and every path no resource matches (404).
    for (const basePath of new Set(groups.flatMap((group) => pathPrefixes(group.basePath)))) {
      addFallback(this.api.root.resourceForPath(basePath));
    }
    addFallback(this.api.root);
    addFallback(this.api.root.addResource('{proxy+}'));
    return { methods, groupStacks };
  }

  /**
   * A deployment sees only the methods of its own stack, so it depends on
   * every method here and on each group's nested stack, and its logical id
   * changes with the route table: a changed route is a new deployment.
   */
  private deploy(
    props: HttpApiProps,
    stageName: string,
    groupStacks: readonly NestedStack[],
  ): apigateway.Stage {
    const deployment = new apigateway.Deployment(this.api, 'Deployment', {
      api: this.api,
      description: 'Agent Query Service API (routes from layers/core/http/routes/route-table.ts)',
    });
    deployment.addToLogicalId(deploymentFingerprint(this.routes, this.timeoutOf));
    for (const method of this.methods) {
      if (Stack.of(method) === Stack.of(this)) deployment.node.addDependency(method);
    }
    for (const stack of groupStacks) deployment.node.addDependency(stack);
    // The same construct id as the RestApi's own stage, so the stage keeps
    // its logical id (a stage replaced in place fails: its name is taken).
    const stage = new apigateway.Stage(this.api, `DeploymentStage.${stageName}`, {
      deployment,
      stageName,
      tracingEnabled: true,
      metricsEnabled: true,
      // Execution logs at ERROR only, and never bodies: requests carry API
      // keys and customers' data.
      loggingLevel: apigateway.MethodLoggingLevel.ERROR,
      dataTraceEnabled: false,
      throttlingRateLimit: props.throttlingRateLimit ?? 50,
      throttlingBurstLimit: props.throttlingBurstLimit ?? 100,
      accessLogDestination: new apigateway.LogGroupLogDestination(this.accessLogGroup),
      accessLogFormat: apigateway.AccessLogFormat.custom(ACCESS_LOG_FORMAT),
    });
    this.api.deploymentStage = stage;
    return stage;
  }

  /**
   * APIG4 (no authorizer) and COG4 (no Cognito authorizer) are acknowledged
   * on each method, with what actually guards that method; APIG2 on the API.
   */
  private acknowledgeDesignFindings(fallbackMethods: ReadonlySet<apigateway.Method>): void {
    // ARCHITECTURE "A request's way": an authorizer Lambda would be a second
    // invocation, and a second key lookup, for every request.
    const inFunction =
      "Authentication is middleware in the family's function, before any use case (ARCHITECTURE, \"A request's way\"; layers/core/http/middlewares/authenticate.ts): the Bearer API key (format and checksum first, then its SHA-256 hash looked up, of this deployment's environment only) and the route's scope, or the svc_session cookie (an HS256 JWT under the stack's session secret, not revoked, of an active user, with the CSRF token for changes) and the route's role; 401 or 403 otherwise, then the per-key or per-user and per-organization rate limits or 429. The sign-in routes take no credential and are throttled per account and address. An authorizer would be a second Lambda invocation and a second key lookup per request. Unauthenticated floods are held off by the stage throttling and the web ACL's per-address rate rule.";
    const fallbackOnly =
      "This method is served by the fallback function, which holds no data and reaches nothing (no table, queue or key): it answers 404 or 405 from the route table it is bundled with, so there is nothing to authenticate for. Floods are held off by the stage throttling and the web ACL's per-address rate rule.";
    for (const method of this.methods) {
      const guard = fallbackMethods.has(method) ? fallbackOnly : inFunction;
      Validations.of(method).acknowledge(
        { id: 'AwsSolutions-APIG4', reason: guard },
        {
          id: 'AwsSolutions-COG4',
          reason: `Callers are API clients holding the service's own API keys and web users signed in with the service's own sessions, not Cognito user pool users. ${guard}`,
        },
      );
    }
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG2',
      reason:
        "Requests are validated in the functions with zod (STYLE.md §2), which answers in the service's own error shapes and lists unknown fields; an API Gateway validator would answer differently, before the route is known.",
    });
    const cloudWatchRole = this.api.node.tryFindChild('CloudWatchRole');
    if (cloudWatchRole) {
      Validations.of(cloudWatchRole).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason:
          'The account-wide API Gateway logging role uses the AWS-managed policy AWS documents for it; API Gateway needs it to write access and execution logs.',
      });
    }
  }
}

function integrationOf(fn: ServiceFunction, streamFor?: Duration): apigateway.LambdaIntegration {
  return new apigateway.LambdaIntegration(fn.function, {
    scopePermissionToMethod: false,
    ...(streamFor
      ? { responseTransferMode: apigateway.ResponseTransferMode.STREAM, timeout: streamFor }
      : {}),
  });
}

function addRoute(
  base: apigateway.IResource,
  route: Route,
  group: RouteGroup,
  byFamily: ReadonlyMap<string, apigateway.LambdaIntegration>,
): apigateway.Method {
  const integration = byFamily.get(route.family);
  // unreachable: familyProblems made sure each route belongs to its family
  if (!integration) throw new Error(`no function for family "${route.family}"`);
  return base
    .resourceForPath(relativePath(route.path, group.basePath))
    .addMethod(route.method, integration, {
      operationName: route.api === 'legacy' ? `${route.operation}Legacy` : route.operation,
    });
}

/** Families that cannot be built as given: one function per name, serving its own routes. */
function familyProblems(families: readonly HttpApiFamily[]): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  for (const { name, routes } of families) {
    if (names.has(name)) problems.push(`family "${name}" appears twice`);
    names.add(name);
    if (routes.length === 0) problems.push(`family "${name}" has no routes`);
    for (const route of routes.filter((candidate) => candidate.family !== name)) {
      problems.push(
        `family "${name}" lists ${route.method} ${route.path}, a route of family "${route.family}"`,
      );
    }
  }
  return problems;
}
