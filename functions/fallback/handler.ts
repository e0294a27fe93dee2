import { Logger } from '@aws-lambda-powertools/logger';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { errorResponses } from '../../layers/core/http/middlewares/error-responses';
import { requestContext } from '../../layers/core/http/middlewares/request-context';
import { responseHeaders } from '../../layers/core/http/middlewares/response-headers';
import type { HttpContext } from '../../layers/core/http/request-state';
import { ROUTES } from '../../layers/core/http/routes/route-table';

/**
 * Answers what no endpoint serves: unknown paths (including unknown versions)
 * with `404 not_found`, and known paths with another method with `405`
 * and `Allow`, in the path family's error shape. API Gateway sends it the
 * catch-all resource and every resource's unmatched methods; the local
 * gateway sends it whatever matches no route. It owns no routes, so the
 * request-context middleware always throws, and no key is ever looked at.
 */
export const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>()
  .use(requestContext({ routes: [], allRoutes: ROUTES }))
  .use(responseHeaders())
  .use(errorResponses({ logger: new Logger({ serviceName: 'svc-fallback' }) }))
  .handler(async () => {
    throw new Error('unreachable: the fallback owns no routes');
  });
