import type { APIGatewayProxyEvent } from 'aws-lambda';

/**
 * The API's address as this request reached it, from what API Gateway (not
 * the client) reports: `requestContext.domainName` (the execute-api host or
 * the custom domain) and the part of `requestContext.path` before the
 * resource path (the stage, or a custom domain's base path). Undefined when
 * there is no domain name (the local gateway, which knows its own address).
 */
export function apiBaseUrlOf(event: APIGatewayProxyEvent): string | undefined {
  const { domainName, path } = event.requestContext ?? {};
  if (!domainName || !path?.endsWith(event.path)) return undefined;
  return `https://${domainName}${path.slice(0, path.length - event.path.length)}`;
}
