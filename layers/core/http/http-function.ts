import { Logger } from '@aws-lambda-powertools/logger';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import * as z from 'zod/mini';
import { RateLimitExceededError } from '../domain/errors';
import { MetricUnit, publishRecordedMetrics, serviceMetrics } from '../observability/metrics';
import { serviceTracer } from '../observability/tracing';
import type { Dependencies } from '../ports/dependencies.port';
import { apiBaseUrlOf } from './api-base-url';
import { deadlineOptions } from './deadline';
import { authenticate } from './middlewares/authenticate';
import { clientAddress } from './middlewares/client-address';
import { errorResponses } from './middlewares/error-responses';
import { ipAllowlist } from './middlewares/ip-allowlist';
import { jsonBody } from './middlewares/json-body';
import { rateLimit } from './middlewares/rate-limit';
import { requestContext } from './middlewares/request-context';
import { responseHeaders } from './middlewares/response-headers';
import type { Operation } from './operation';
import { organizationPolicies } from './organization-policies';
import { type HttpContext, type HttpRequest, headerValue } from './request-state';
import type { Route } from './route';
import { cookieOf, sessionCookieOf } from './session-cookie';
import { assertPathIds, invalidRequest, singleValuedQuery, snakeCaseKeys } from './validation';

/** What every HTTP family needs before its operation runs: keys, limits, plans (the middlewares). */
export type HttpPlatformDependencies = Pick<
  Dependencies,
  | 'environment'
  | 'clock'
  | 'apiKeys'
  | 'organizations'
  | 'rateLimiter'
  | 'planQuota'
  | 'dailyUsage'
  | 'concurrencyLeases'
  | 'users'
  | 'sessionTokens'
  | 'sessionRevocations'
  | 'passwordSessionCutoffs'
  | 'groupGrants'
  | 'consoleOrigin'
  | 'originSecret'
>;

export interface HttpFunctionOptions<Deps extends HttpPlatformDependencies> {
  /** The function's name, for logs: the folder under functions/. */
  readonly family: string;
  /**
   * The family's rows of the route table (layers/core/http/routes/<family>.ts), for
   * routing and for 404 and 405 answers. No path belongs to two families
   * (test/unit/http/routes/route-table.test.ts), so the family's own rows answer a 405
   * as the whole table would, and the bundle carries no other family's.
   */
  readonly routes: readonly Route[];
  /** Operation name → operation, one for each of the family's routes. */
  // biome-ignore lint/suspicious/noExplicitAny: each operation has its own query and body schemas.
  readonly operations: Record<string, Operation<any, any, Deps>>;
  /** The family's composition root (functions/<family>/wiring.ts). */
  readonly dependencies: () => Deps;
}

/**
 * Builds a family's Lambda handler: the middy chain every endpoint shares
 * (ARCHITECTURE.md, "A request's way"), then validation and the operation.
 *
 * Order of `before`: request id and route → the client's address →
 * API key and scope, or session,
 * CSRF and role → the organization's IP allowlist → rate
 * limits and plan limits (the concurrency
 * lease is released when the response ends) → JSON body → validation →
 * operation, so an unauthenticated caller learns nothing but 401.
 * `after`/`onError` run in reverse, so
 * errors are shaped first and headers added last, on every response.
 */
export function httpFunction<Deps extends HttpPlatformDependencies>(
  options: HttpFunctionOptions<Deps>,
) {
  const familyRoutes = options.routes.filter((route) => route.family === options.family);
  for (const route of familyRoutes) {
    const operation = options.operations[route.operation];
    if (!operation) {
      throw new Error(
        `Route ${route.method} ${route.path} names unknown operation ${route.operation}`,
      );
    }
    // A public route must reach a public operation, and only a public one can expect no principal.
    if (operation.public !== (route.access === 'public')) {
      throw new Error(
        `Route ${route.method} ${route.path} and its operation ${route.operation} disagree on being public`,
      );
    }
  }
  const logger = new Logger({ serviceName: `svc-${options.family}` });
  // One read of the caller's organization, cached, serves the allowlist and the plan limits.
  const policies = organizationPolicies({
    organizations: () => options.dependencies().organizations,
    now: () => options.dependencies().clock.now().getTime(),
    onInvalidRange: (orgId, range) =>
      logger.error('an allowlist range could not be compiled; it allows nothing', {
        org_id: orgId,
        range,
      }),
  });

  const dispatch = async (
    event: APIGatewayProxyEvent,
    context: HttpContext,
  ): Promise<APIGatewayProxyResult> => {
    const state = context.svc;
    const route = state.route;
    const principal = state.principal;
    const operation = route ? options.operations[route.operation] : undefined;
    if (!route || !operation || (!principal && route.access !== 'public'))
      throw new Error('dispatch reached without route or principal');
    assertPathIds(state.params, operation.pathIds);
    const legacy = route.api === 'legacy';
    const rawQuery = singleValuedQuery(event);
    const query = z.safeParse(operation.query, legacy ? snakeCaseKeys(rawQuery) : rawQuery);
    if (!query.success) throw invalidRequest('query', query.error.issues);
    const body = z.safeParse(operation.body, legacy ? snakeCaseKeys(state.body) : state.body);
    if (!body.success) throw invalidRequest('body', body.error.issues);
    return operation.handle({
      query: query.data,
      body: body.data,
      params: state.params,
      principal,
      client: {
        sourceIp: state.sourceIp || 'unknown',
        sessionToken: sessionCookieOf(event),
        cookie: (name) => cookieOf(event, name),
        header: (name) => headerValue(event, name),
        apiBaseUrl: apiBaseUrlOf(event),
      },
      session: state.session,
      route,
      deps: options.dependencies(),
      requestId: state.requestId,
    });
  };

  const accessLog = {
    after: (request: HttpRequest) => {
      logRequest(logger, request);
      publishRecordedMetrics();
    },
    onError: (request: HttpRequest) => {
      logRequest(logger, request);
      if (request.error instanceof RateLimitExceededError) countRefusal(request.error);
      publishRecordedMetrics();
    },
  };

  return (
    middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>(deadlineOptions)
      // X-Ray: a subsegment for the invocation, with cold start and the response or error.
      .use(captureLambdaHandler(serviceTracer(), { captureResponse: false }))
      .use(requestContext({ routes: familyRoutes, allRoutes: options.routes }))
      .use(accessLog)
      .use(responseHeaders())
      .use(errorResponses({ logger }))
      // The viewer's address behind the console's distribution, proven by its secret.
      .use(clientAddress({ originSecret: () => options.dependencies().originSecret }))
      .use(
        authenticate({
          apiKeys: () => options.dependencies().apiKeys,
          clock: () => options.dependencies().clock,
          environment: () => options.dependencies().environment,
          sessions: () => options.dependencies(),
          consoleOrigin: () => options.dependencies().consoleOrigin,
        }),
      )
      .use(ipAllowlist({ policies, logger }))
      .use(
        rateLimit({
          limits: () => options.dependencies(),
          policies,
          now: () => options.dependencies().clock.now().getTime(),
          logger,
        }),
      )
      .use(jsonBody())
      .handler(dispatch)
  );
}

/** The rate limits' refusals by reason (`scope_rate`, `plan_rate`, …), each as its own metric with that dimension. */
function countRefusal(error: RateLimitExceededError): void {
  const refusal = serviceMetrics().singleMetric();
  refusal.addDimension('reason', error.reason);
  refusal.addMetric('RateLimitRefusals', MetricUnit.Count, 1);
}

/** One line per request; never headers or bodies, so keys and secrets stay out of logs. */
function logRequest(logger: Logger, request: HttpRequest): void {
  const state = request.context.svc;
  if (!state) return;
  logger.info('request', {
    request_id: state.requestId,
    method: request.event.httpMethod,
    path: request.event.path,
    status: request.response?.statusCode,
    latency_ms: Date.now() - state.startedAt,
    org_id: state.principal?.orgId,
    key_id: state.principal?.kind === 'api_key' ? state.principal.keyId : undefined,
    user_id: state.principal?.kind === 'session' ? state.principal.userId : undefined,
  });
}
