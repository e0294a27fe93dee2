import { Logger } from '@aws-lambda-powertools/logger';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { DEADLINE_RETRY_AFTER_SECONDS, deadlineOptions } from '../../../layers/core/http/deadline';
import { errorResponses } from '../../../layers/core/http/middlewares/error-responses';
import { requestContext } from '../../../layers/core/http/middlewares/request-context';
import { responseHeaders } from '../../../layers/core/http/middlewares/response-headers';
import type { HttpContext } from '../../../layers/core/http/request-state';
import { AGENTS_ROUTES } from '../../../layers/core/http/routes/agents';
import { ROUTES } from '../../../layers/core/http/routes/route-table';
import { lambdaContext, toApiGatewayEvent } from '../../../lib/local/apigw-event';

/**
 * The chain every HTTP function starts with (http-function.ts), around a
 * handler that never ends, in a function with 50 ms left: what a request
 * queued behind hundreds of others on a loaded machine met (CI saw it as 500s).
 */
function stuckFunction() {
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>(deadlineOptions)
    .use(requestContext({ routes: AGENTS_ROUTES, allRoutes: ROUTES }))
    .use(responseHeaders())
    .use(errorResponses({ logger: new Logger({ logLevel: 'SILENT' }) }))
    .handler(() => new Promise<APIGatewayProxyResult>(() => undefined));
}

function invoke(path: string) {
  const route = AGENTS_ROUTES.find((candidate) => candidate.path === path) ?? null;
  const event = toApiGatewayEvent(
    { method: 'GET', url: path, headers: {}, body: Buffer.alloc(0), sourceIp: '127.0.0.1' },
    route,
    {},
  );
  const context = { ...lambdaContext('agents'), getRemainingTimeInMillis: () => 50 };
  return stuckFunction()(event, context as HttpContext);
}

describe('Function: deadlineOptions (a request still running at the function deadline)', () => {
  it('answers 503 service_unavailable with Retry-After, not a 500', async () => {
    // Act
    const response = await invoke('/api/v1/agents');

    // Assess
    expect(response.statusCode).toBe(503);
    expect(JSON.parse(response.body).error).toMatchObject({
      code: 'service_unavailable',
      details: { retry_after: DEADLINE_RETRY_AFTER_SECONDS },
    });
    expect(response.headers?.['Retry-After']).toBe(String(DEADLINE_RETRY_AFTER_SECONDS));
  });

  it('answers a legacy path in the flat shape (D5)', async () => {
    const response = await invoke('/api/ai-agent-managers');

    expect(response.statusCode).toBe(503);
    expect(JSON.parse(response.body)).toMatchObject({ status: 503, code: 'service_unavailable' });
  });
});
