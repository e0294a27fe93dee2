import { Duration, NestedStack, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as acm from 'aws-cdk-lib/aws-certificatemanager';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { SECURITY_HEADERS } from '../../layers/core/http/middlewares/response-headers';
import type { Route } from '../../layers/core/http/route';
import { ServiceFunction, type ServiceFunctionNetworkProps } from './service-function';

export interface HttpApiDomain {
  /** Lower-case DNS name, e.g. `api.example.com`. */
  readonly domainName: string;
  /** Regional ACM certificate for `domainName`, in the stack's region. */
  readonly certificate: acm.ICertificate;
}

export interface HttpApiProps {
  /** The route table (layers/core/http/routes/route-table.ts): every row becomes a method on its resource path. */
  readonly routes: readonly Route[];
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
   * Memory of each family function, in MB.
   * @default 1024
   */
  readonly functionMemorySize?: number;
  /**
   * Timeout of each family function; API Gateway gives up on a buffered
   * response after 29 s anyway.
   * @default Duration.seconds(10)
   */
  readonly functionTimeout?: Duration;
  /**
   * Timeouts of particular families, by family name, where `functionTimeout`
   * is too short (a family that waits on an outside server). At most 29 s,
   * or 15 minutes for a family whose routes stream (`streaming: true`); a
   * streaming family's integration waits exactly as long as its function runs.
   * @default - every family gets `functionTimeout`
   */
  readonly familyTimeouts?: Readonly<Record<string, Duration>>;
  /**
   * VPC placement of particular families, by family name: the families that
   * talk to something only reachable inside a VPC (P50: the search domain
   * in `live`). The fallback never runs in a VPC; it reaches nothing.
   * @default - every family runs outside any VPC
   */
  readonly familyNetworks?: Readonly<Record<string, ServiceFunctionNetworkProps>>;
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
 * Gateway errors (throttling, WAF, oversized bodies, integration failures)
 * happen before any function runs, so API Gateway writes them. They use the
 * D5 nested shape; `$context.error.messageString` is already a quoted JSON
 * string. Legacy paths get the nested shape here too: a gateway response
 * cannot tell path families apart.
 */
function errorTemplate(code: string): string {
  return `{"error":{"code":"${code}","message":$context.error.messageString,"details":{}},"request_id":"$context.requestId"}`;
}

const GATEWAY_ERRORS: ReadonlyArray<{
  readonly type: apigateway.ResponseType;
  readonly code: string;
  readonly statusCode?: string;
}> = [
  { type: apigateway.ResponseType.DEFAULT_4XX, code: 'invalid_request' },
  { type: apigateway.ResponseType.DEFAULT_5XX, code: 'internal_error' },
  // Stage throttling, before the per-key limits of D16 are even reached.
  { type: apigateway.ResponseType.THROTTLED, code: 'rate_limit_exceeded', statusCode: '429' },
  // D4: oversized bodies are invalid_request.
  { type: apigateway.ResponseType.REQUEST_TOO_LARGE, code: 'invalid_request', statusCode: '413' },
  { type: apigateway.ResponseType.WAF_FILTERED, code: 'forbidden', statusCode: '403' },
];

/**
 * Gateway response header values are single-quoted literals, so values that
 * contain a quote themselves (the CSP) are left to the functions.
 */
const GATEWAY_RESPONSE_HEADERS: Record<string, string> = Object.fromEntries(
  Object.entries(SECURITY_HEADERS)
    .filter(([, value]) => !value.includes("'"))
    .map(([name, value]) => [name, `'${value}'`]),
);

/** One access-log line per request, as JSON (CloudWatch Logs Insights reads it as fields). */
const ACCESS_LOG_FORMAT = JSON.stringify({
  requestId: '$context.requestId',
  extendedRequestId: '$context.extendedRequestId',
  requestTime: '$context.requestTimeEpoch',
  ip: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  httpMethod: '$context.httpMethod',
  resourcePath: '$context.resourcePath',
  path: '$context.path',
  protocol: '$context.protocol',
  status: '$context.status',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationStatus: '$context.integration.status',
  integrationLatency: '$context.integration.latency',
  errorType: '$context.error.responseType',
  errorMessage: '$context.error.message',
  wafStatus: '$context.waf.status',
  xrayTraceId: '$context.xrayTraceId',
});

function constructId(folder: string): string {
  return folder
    .split(/[^a-zA-Z0-9]+/)
    .filter((part) => part.length > 0)
    .map((part) => part[0]?.toUpperCase() + part.slice(1))
    .join('');
}

/** `/api/v1/agents/{id}` → `/api`, `/api/v1`, `/api/v1/agents`, `/api/v1/agents/{id}`. */
function pathPrefixes(path: string): string[] {
  const segments = path.split('/').filter((segment) => segment.length > 0);
  return segments.map((_, index) => `/${segments.slice(0, index + 1).join('/')}`);
}

/**
 * The public API: an API Gateway REST API built from the route table, one
 * Lambda per route family behind Lambda proxy integrations, and the fallback
 * function on `ANY` of every resource and on the root catch-all, so unknown
 * paths and methods get the service's own 404/405 (D5, D7) rather than API
 * Gateway's "Missing Authentication Token".
 *
 * Routes marked `streaming: true` (D19, ARCHITECTURE "Streaming") use
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
   * Families whose routes stream (D19): API Gateway invokes their functions
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

  constructor(scope: Construct, id: string, props: HttpApiProps) {
    super(scope, id);
    const stageName = props.stageName ?? 'prod';
    const logRetention = props.logRetention ?? logs.RetentionDays.ONE_MONTH;
    const logRemovalPolicy = props.logRemovalPolicy ?? RemovalPolicy.RETAIN;
    const throttlingRateLimit = props.throttlingRateLimit ?? 50;
    const throttlingBurstLimit = props.throttlingBurstLimit ?? 100;

    // Checked before building: a duplicate route would otherwise fail deep
    // inside API Gateway's constructs with a message about construct ids.
    const routeProblems = validateRoutes(props.routes);
    if (routeProblems.length > 0) {
      throw new Error(`${this.node.path}: invalid route table: ${routeProblems.join('; ')}`);
    }
    this.node.addValidation({
      validate: () =>
        throttlingRateLimit > 0 && throttlingBurstLimit > 0
          ? []
          : ['throttlingRateLimit and throttlingBurstLimit must be positive'],
    });

    const families = [...new Set(props.routes.map((route) => route.family))];
    // validateRoutes made sure every route of a family agrees on `streaming`.
    this.streamingFamilies = new Set(
      props.routes.filter((route) => route.streaming).map((route) => route.family),
    );
    const familyTimeouts = props.familyTimeouts ?? {};
    const timeoutOf = (family: string): Duration =>
      familyTimeouts[family] ?? props.functionTimeout ?? DEFAULT_FUNCTION_TIMEOUT;
    const familyNetworks = props.familyNetworks ?? {};
    this.node.addValidation({
      validate: () => [
        ...Object.keys(familyTimeouts)
          .filter((family) => !families.includes(family))
          .map((family) => `familyTimeouts names "${family}", which no route serves`),
        ...Object.keys(familyNetworks)
          .filter((family) => !families.includes(family))
          .map((family) => `familyNetworks names "${family}", which no route serves`),
        ...families.flatMap((family) => {
          // A buffered run longer than API Gateway waits is never answered.
          const limit = this.streamingFamilies.has(family)
            ? STREAMING_TIMEOUT_LIMIT
            : BUFFERED_TIMEOUT_LIMIT;
          return timeoutOf(family).toSeconds() > limit.toSeconds()
            ? [
                `the timeout of family "${family}" (${timeoutOf(family).toHumanString()}) is over API Gateway's ${limit.toHumanString()} for ${this.streamingFamilies.has(family) ? 'streamed' : 'buffered'} responses`,
              ]
            : [];
        }),
      ],
    });
    const functions = new Map<string, ServiceFunction>();
    for (const family of families) {
      const routeCount = props.routes.filter((route) => route.family === family).length;
      const streaming = this.streamingFamilies.has(family) ? ', response streaming' : '';
      functions.set(
        family,
        new ServiceFunction(this, constructId(family), {
          folder: family,
          description: `Agent Query Service: ${family} endpoints (${routeCount} routes${streaming})`,
          environment: props.functionEnvironment,
          memorySize: props.functionMemorySize,
          timeout: timeoutOf(family),
          logRetention,
          logEncryptionKey: props.encryptionKey,
          logRemovalPolicy,
          functionsDir: props.functionsDir,
          ...familyNetworks[family],
        }),
      );
    }
    this.functions = functions;

    // No table, no key, no queue: it only reads the route table it is bundled with.
    this.fallback = new ServiceFunction(this, 'Fallback', {
      folder: FALLBACK_FOLDER,
      description: 'Agent Query Service: 404/405 for anything no route serves',
      memorySize: 256,
      timeout: Duration.seconds(5),
      logRetention,
      logEncryptionKey: props.encryptionKey,
      logRemovalPolicy,
      functionsDir: props.functionsDir,
    });

    for (const fn of [...functions.values(), this.fallback]) {
      Validations.of(fn.function).acknowledge({
        id: 'Serverless-LambdaDLQ',
        reason:
          'Invoked only synchronously by API Gateway (Lambda proxy integration, RequestResponse); a Lambda DLQ applies to asynchronous invocations, and a failed request is answered to its caller.',
      });
    }

    this.accessLogGroup = new logs.LogGroup(this, 'AccessLogs', {
      retention: logRetention,
      encryptionKey: props.encryptionKey,
      removalPolicy: logRemovalPolicy,
    });

    this.api = new apigateway.RestApi(this, 'RestApi', {
      restApiName: props.restApiName,
      description: 'Agent Query Service API (routes from layers/core/http/routes/route-table.ts)',
      endpointConfiguration: { types: [apigateway.EndpointType.REGIONAL] },
      disableExecuteApiEndpoint: props.domain !== undefined,
      cloudWatchRole: props.cloudWatchRole ?? true,
      // The role is an account-wide setting other APIs rely on too.
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      // P196: every request body reaches the function as the bytes the
      // client sent (base64 in the proxy event), so D4's strict UTF-8 check
      // sees them; text responses (isBase64Encoded false) pass unchanged.
      binaryMediaTypes: ['*/*'],
      // The deployment is made below, once the route groups' nested stacks
      // exist: the RestApi's own would not see methods added in them.
      deploy: false,
    });
    // The RestApi's own "Endpoint" output has a generated name; the stack
    // exports the URL under a stable one instead.
    this.api.node.tryRemoveChild('Endpoint');

    // API Gateway creates this group on first use with no expiry; creating
    // it here gives execution logs the same retention and key.
    new logs.LogGroup(this, 'ExecutionLogs', {
      logGroupName: `API-Gateway-Execution-Logs_${this.api.restApiId}/${stageName}`,
      retention: logRetention,
      encryptionKey: props.encryptionKey,
      removalPolicy: logRemovalPolicy,
    });

    // One integration (and one invoke permission, scoped to this API) per
    // function instead of one permission per method. A streaming family's
    // handler is a response-streaming one inside Lambda (layers/core/http/
    // streaming.ts), so API Gateway must call it through
    // InvokeWithResponseStream (the integration URI's
    // `…/response-streaming-invocations`; lambda:InvokeFunction covers it)
    // and may wait for the stream as long as the function runs. Every other
    // integration stays BUFFERED with API Gateway's default 29 s.
    const integrationOf = (fn: ServiceFunction, streamFor?: Duration) =>
      new apigateway.LambdaIntegration(fn.function, {
        scopePermissionToMethod: false,
        ...(streamFor
          ? { responseTransferMode: apigateway.ResponseTransferMode.STREAM, timeout: streamFor }
          : {}),
      });
    const familyIntegrations = () =>
      new Map(
        [...functions].map(
          ([family, fn]) =>
            [
              family,
              integrationOf(fn, this.streamingFamilies.has(family) ? timeoutOf(family) : undefined),
            ] as const,
        ),
      );
    const integrations = familyIntegrations();
    const fallbackIntegration = integrationOf(this.fallback);

    // P195: the methods and resources under each route group's base path
    // live in a nested stack of their own, so the API can grow past what
    // one CloudFormation stack holds (500 resources). The base paths
    // themselves, the root and the root catch-all stay here.
    const methods: apigateway.Method[] = [];
    const fallbackMethods = new Set<apigateway.Method>();
    const addFallback = (resource: apigateway.IResource) => {
      const method = resource.addMethod('ANY', fallbackIntegration);
      fallbackMethods.add(method);
      methods.push(method);
    };
    const groups = routeGroups(props.routes);
    const groupStacks: NestedStack[] = [];
    for (const group of groups) {
      const base = this.api.root.resourceForPath(group.basePath);
      if (group.stackId === undefined) {
        for (const route of group.routes) {
          methods.push(addRoute(base, route));
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
        {
          restApi,
          resourceId: base.resourceId,
          path: group.basePath,
        },
      );
      // Integrations are bound per stack: each nested stack grants its own
      // invoke permission, scoped to this API, once per function.
      const groupIntegrations = familyIntegrations();
      for (const route of group.routes) {
        methods.push(addRoute(importedBase, route, groupIntegrations));
      }
      for (const path of group.resourcePaths) {
        const method = importedBase.resourceForPath(path).addMethod('ANY', fallbackIntegration);
        fallbackMethods.add(method);
        methods.push(method);
      }
    }
    function addRoute(
      base: apigateway.IResource,
      route: Route,
      byFamily: ReadonlyMap<string, apigateway.LambdaIntegration> = integrations,
    ): apigateway.Method {
      const integration = byFamily.get(route.family);
      // unreachable: families come from the same routes
      if (!integration) throw new Error(`no function for family "${route.family}"`);
      return base
        .resourceForPath(relativePath(route.path, groupOf(route.path, groups).basePath))
        .addMethod(route.method, integration, {
          operationName: route.api === 'legacy' ? `${route.operation}Legacy` : route.operation,
        });
    }

    // The fallback takes every other method of each resource (405 with
    // Allow), the root, and every path no resource matches (404).
    for (const basePath of new Set(groups.flatMap((group) => pathPrefixes(group.basePath)))) {
      addFallback(this.api.root.resourceForPath(basePath));
    }
    addFallback(this.api.root);
    addFallback(this.api.root.addResource('{proxy+}'));
    this.methods = methods;

    // A deployment sees only the methods of its own stack, so it depends on
    // every method here and on each group's nested stack, and its logical id
    // changes with the route table: a changed route is a new deployment.
    const deployment = new apigateway.Deployment(this.api, 'Deployment', {
      api: this.api,
      description: 'Agent Query Service API (routes from layers/core/http/routes/route-table.ts)',
    });
    deployment.addToLogicalId(deploymentFingerprint(props.routes, timeoutOf));
    for (const method of methods) {
      if (Stack.of(method) === Stack.of(this)) deployment.node.addDependency(method);
    }
    for (const stack of groupStacks) deployment.node.addDependency(stack);
    // The same construct id as the RestApi's own stage, so the stage keeps
    // its logical id (a stage replaced in place fails: its name is taken).
    this.stage = new apigateway.Stage(this.api, `DeploymentStage.${stageName}`, {
      deployment,
      stageName,
      tracingEnabled: true,
      metricsEnabled: true,
      // Execution logs at ERROR only, and never bodies: requests carry API
      // keys and customers' data.
      loggingLevel: apigateway.MethodLoggingLevel.ERROR,
      dataTraceEnabled: false,
      throttlingRateLimit,
      throttlingBurstLimit,
      accessLogDestination: new apigateway.LogGroupLogDestination(this.accessLogGroup),
      accessLogFormat: apigateway.AccessLogFormat.custom(ACCESS_LOG_FORMAT),
    });
    this.api.deploymentStage = this.stage;

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

    this.acknowledgeDesignFindings(fallbackMethods);
  }

  /**
   * APIG4 (no authorizer) and COG4 (no Cognito authorizer) are acknowledged
   * on each method, with what actually guards that method; APIG2 on the API.
   */
  private acknowledgeDesignFindings(fallbackMethods: ReadonlySet<apigateway.Method>): void {
    // ARCHITECTURE "A request's way": an authorizer Lambda would be a second
    // invocation, and a second key lookup, for every request.
    const inFunction =
      "Authentication is middleware in the family's function, before any use case (ARCHITECTURE, \"A request's way\"; layers/core/http/middlewares/authenticate.ts): the Bearer API key (D10: format and checksum first, then its SHA-256 hash looked up, of this deployment's environment only) and the route's scope (D9), or the svc_session cookie (D12: an HS256 JWT under the stack's session secret, not revoked, of an active user, with the CSRF token for changes) and the route's role (D13); 401 or 403 otherwise, then the per-key or per-user and per-organization rate limits (D16) or 429. The sign-in routes take no credential and are throttled per account and address (P62). An authorizer would be a second Lambda invocation and a second key lookup per request. Unauthenticated floods are held off by the stage throttling and the web ACL's per-address rate rule.";
    const fallbackOnly =
      "This method is served by the fallback function, which holds no data and reaches nothing (no table, queue or key): it answers 404 or 405 from the route table it is bundled with, so there is nothing to authenticate for. Floods are held off by the stage throttling and the web ACL's per-address rate rule.";
    for (const method of this.methods) {
      const guard = fallbackMethods.has(method) ? fallbackOnly : inFunction;
      Validations.of(method).acknowledge(
        { id: 'AwsSolutions-APIG4', reason: guard },
        {
          id: 'AwsSolutions-COG4',
          reason: `Callers are API clients holding the service's own API keys (D10) and web users signed in with the service's own sessions (D12), not Cognito user pool users. ${guard}`,
        },
      );
    }
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG2',
      reason:
        "Requests are validated in the functions with zod (STYLE.md §2, D4), which answers in the service's own error shapes (D5) and lists unknown fields; an API Gateway validator would answer differently, before the route is known.",
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

function validateRoutes(routes: readonly Route[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  // One function serves a family, and it either streams (a response-streaming
  // handler in Lambda) or it does not: its routes must agree.
  const streamingOf = new Map<string, boolean>();
  for (const route of routes) {
    const streaming = route.streaming === true;
    const known = streamingOf.get(route.family);
    if (known === undefined) streamingOf.set(route.family, streaming);
    else if (known !== streaming) {
      problems.push(
        `family "${route.family}" mixes streaming and buffered routes (${route.method} ${route.path}); one function serves them all`,
      );
    }
    const key = `${route.method} ${route.path}`;
    if (seen.has(key)) problems.push(`route ${key} appears twice`);
    seen.add(key);
    if (!route.path.startsWith('/') || (route.path.length > 1 && route.path.endsWith('/'))) {
      problems.push(`route ${key}: the path must start with "/" and not end with one`);
    }
    if (route.path.includes('+')) {
      problems.push(`route ${key}: greedy parameters belong to the fallback's catch-all`);
    }
  }
  if (routes.length === 0) problems.push('the route table is empty');
  return problems;
}

/**
 * P195: where the API's methods are built. Routes under `/api/v1` and the
 * legacy routes under `/api` each have a nested stack; anything else stays
 * in the API's own stack. Groups are fixed by path, never by size, so a
 * route never moves between stacks as the table grows (moving an API
 * Gateway resource between stacks fails: its path is taken until the old
 * stack lets it go).
 */
const ROUTE_GROUPS: ReadonlyArray<{ readonly basePath: string; readonly stackId?: string }> = [
  { basePath: '/api/v1', stackId: 'RoutesV1' },
  { basePath: '/api', stackId: 'RoutesLegacy' },
  { basePath: '/' },
];

interface RouteGroup {
  readonly basePath: string;
  readonly stackId: string | undefined;
  readonly routes: readonly Route[];
  /** Paths below the base, relative to it, that get the fallback's `ANY`. */
  readonly resourcePaths: readonly string[];
}

function groupOf<T extends { readonly basePath: string }>(path: string, groups: readonly T[]): T {
  const group = groups.find(
    (candidate) => candidate.basePath === '/' || path.startsWith(`${candidate.basePath}/`),
  );
  if (!group) throw new Error(`no route group for ${path}`);
  return group;
}

/** `/api/v1/agents/{id}` under `/api/v1` → `agents/{id}` (what `resourceForPath` takes below a resource). */
function relativePath(path: string, basePath: string): string {
  return path.slice(basePath === '/' ? 1 : basePath.length + 1);
}

function routeGroups(routes: readonly Route[]): RouteGroup[] {
  return ROUTE_GROUPS.map(({ basePath, stackId }) => {
    const own = routes.filter((route) => groupOf(route.path, ROUTE_GROUPS).basePath === basePath);
    return {
      basePath,
      stackId,
      routes: own,
      resourcePaths: [
        ...new Set(
          own.flatMap((route) =>
            pathPrefixes(relativePath(route.path, basePath)).map((prefix) => prefix.slice(1)),
          ),
        ),
      ],
    };
  }).filter((group) => group.routes.length > 0);
}

/** What the deployed API depends on in the route table (P195). */
function deploymentFingerprint(
  routes: readonly Route[],
  timeoutOf: (family: string) => Duration,
): string {
  return JSON.stringify(
    routes.map((route) => [
      route.method,
      route.path,
      route.family,
      route.operation,
      route.api,
      route.streaming === true ? timeoutOf(route.family).toSeconds() : 0,
    ]),
  );
}
