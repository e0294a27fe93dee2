import { MethodNotAllowedError, NotFoundError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import type { HttpMiddleware, HttpRequest } from '../request-state';
import { errorShapeForPath, matchRoute, type Route } from '../route';

/**
 * First in every chain: gives the request its id and finds its route.
 * API Gateway has already matched the resource; a request that reaches a
 * function without a route of its own (the catch-all) is a 404, or a 405
 * when the path exists with other methods.
 *
 * Ours rather than `@middy/http-router` (issue 8): API Gateway already routes
 * each family to its function, and the route found here also carries what
 * the later middlewares need (scope, successor path, D7's 404/405 in the API's
 * shapes), read from the one route table the stack is built from.
 */
export function requestContext(options: {
  readonly routes: readonly Route[];
  readonly allRoutes: readonly Route[];
}): HttpMiddleware {
  const requestContextBefore = (request: HttpRequest): void => {
    const { event } = request;
    const path = event.path ?? '/';
    request.context.svc = {
      requestId: newId('request'),
      startedAt: Date.now(),
      errorShape: errorShapeForPath(path),
      // The socket's peer as API Gateway saw it until clientAddress says otherwise.
      sourceIp: event.requestContext?.identity?.sourceIp ?? '',
      route: null,
      params: {},
      principal: null,
      rateLimit: null,
      body: undefined,
      session: null,
      setCookie: null,
    };
    const route = options.routes.find(
      (candidate) => candidate.method === event.httpMethod && candidate.path === event.resource,
    );
    if (route) {
      request.context.svc.route = route;
      request.context.svc.params = { ...(event.pathParameters ?? {}) } as Record<string, string>;
      return;
    }
    const { allowedMethods } = matchRoute(options.allRoutes, event.httpMethod, path);
    if (allowedMethods.length > 0) {
      throw new MethodNotAllowedError(
        `${event.httpMethod} is not allowed on ${path}`,
        allowedMethods,
      );
    }
    throw new NotFoundError(`No such endpoint: ${event.httpMethod} ${path}`);
  };
  return { before: requestContextBefore };
}
