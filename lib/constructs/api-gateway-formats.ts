import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import { SECURITY_HEADERS } from '../../layers/core/http/middlewares/response-headers';

/**
 * Gateway errors (throttling, WAF, oversized bodies, integration failures)
 * happen before any function runs, so API Gateway writes them. They use the
 * The nested shape; `$context.error.messageString` is already a quoted JSON
 * string. Legacy paths get the nested shape here too: a gateway response
 * cannot tell path families apart.
 */
export function errorTemplate(code: string): string {
  return `{"error":{"code":"${code}","message":$context.error.messageString,"details":{}},"request_id":"$context.requestId"}`;
}

export const GATEWAY_ERRORS: ReadonlyArray<{
  readonly type: apigateway.ResponseType;
  readonly code: string;
  readonly statusCode?: string;
}> = [
  { type: apigateway.ResponseType.DEFAULT_4XX, code: 'invalid_request' },
  { type: apigateway.ResponseType.DEFAULT_5XX, code: 'internal_error' },
  // Stage throttling, before the per-key limits of D16 are even reached.
  { type: apigateway.ResponseType.THROTTLED, code: 'rate_limit_exceeded', statusCode: '429' },
  // Oversized bodies are invalid_request.
  { type: apigateway.ResponseType.REQUEST_TOO_LARGE, code: 'invalid_request', statusCode: '413' },
  { type: apigateway.ResponseType.WAF_FILTERED, code: 'forbidden', statusCode: '403' },
];

/**
 * Gateway response header values are single-quoted literals, so values that
 * contain a quote themselves (the CSP) are left to the functions.
 */
export const GATEWAY_RESPONSE_HEADERS: Record<string, string> = Object.fromEntries(
  Object.entries(SECURITY_HEADERS)
    .filter(([, value]) => !value.includes("'"))
    .map(([name, value]) => [name, `'${value}'`]),
);

/** One access-log line per request, as JSON (CloudWatch Logs Insights reads it as fields). */
export const ACCESS_LOG_FORMAT = JSON.stringify({
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
