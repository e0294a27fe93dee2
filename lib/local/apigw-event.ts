import type { IncomingHttpHeaders } from 'node:http';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { ulid } from 'ulid';
import type { Route } from '../../layers/core/http/route';

/** API Gateway's own limit on a request payload; larger requests never reach a function. */
export const API_GATEWAY_MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;
/** API Gateway's integration timeout. */
export const API_GATEWAY_TIMEOUT_MS = 29_000;

export interface IncomingRequest {
  readonly method: string;
  /** Path and query as received, e.g. `/api/v1/agents?limit=5`. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly sourceIp: string;
}

/**
 * Builds the REST API (v1 payload) proxy event API Gateway would send for
 * this request. `route` is the matched resource, or `null` for the catch-all.
 */
export function toApiGatewayEvent(
  request: IncomingRequest,
  route: Route | null,
  pathParameters: Record<string, string>,
  stage = 'local',
): APIGatewayProxyEvent {
  const url = new URL(request.url, 'http://localhost');
  // Names are client input: collected in Maps and turned into objects with
  // Object.fromEntries, so `__proto__`, `constructor` or `toString` become
  // plain own keys (as in the JSON event Lambda receives) instead of reaching
  // Object.prototype.
  const headerValues = new Map<string, string[]>();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    headerValues.set(name, Array.isArray(value) ? value : [value]);
  }
  const multiValueHeaders = Object.fromEntries(headerValues);
  const headers = Object.fromEntries(
    [...headerValues].map(([name, values]) => [name, values[values.length - 1] ?? '']),
  );
  const queryValues = new Map<string, string[]>();
  for (const [name, value] of url.searchParams) {
    queryValues.set(name, [...(queryValues.get(name) ?? []), value]);
  }
  const multiQuery = Object.fromEntries(queryValues);
  const query = Object.fromEntries(
    [...queryValues].map(([name, values]) => [name, values[values.length - 1] ?? '']),
  );
  const hasQuery = queryValues.size > 0;
  const resource = route?.path ?? '/{proxy+}';
  const requestTime = new Date();
  return {
    resource,
    path: url.pathname,
    httpMethod: request.method,
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    pathParameters: route ? pathParameters : { proxy: url.pathname.slice(1) },
    stageVariables: null,
    // The bytes as received, base64-encoded, as API Gateway sends every body
    // with the API's binary media types `*/*`: a body that is not
    // valid UTF-8 reaches the JSON body rules' strict check instead of being decoded with
    // replacement characters on the way in.
    body: request.body.length > 0 ? request.body.toString('base64') : null,
    isBase64Encoded: request.body.length > 0,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: request.method,
      path: `/${stage}${url.pathname}`,
      stage,
      requestId: ulid(),
      requestTimeEpoch: requestTime.getTime(),
      resourceId: 'local',
      resourcePath: resource,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: request.sourceIp,
        user: null,
        userAgent: headers['user-agent'] ?? null,
        userArn: null,
      },
    },
  };
}

/** A Lambda context for one invocation, with the time API Gateway would allow. */
export function lambdaContext(functionName: string): Context {
  const deadline = Date.now() + API_GATEWAY_TIMEOUT_MS;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: ulid(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
