import type { Environment } from '../../domain/environments';
import { ForbiddenError } from '../../domain/errors';
import { grantsScope } from '../../domain/scopes';
import type { ApiKeyRepository } from '../../ports/api-key-repository.port';
import { authenticateApiKey } from '../../use-cases/api-keys/api-key-use-cases';
import { type HttpMiddleware, type HttpRequest, headerValue } from '../request-state';

/**
 * Bearer API key → principal (401 when missing, malformed, unknown or of the
 * other environment, D10), then the route's scope (403, D9).
 */
export function authenticate(options: {
  readonly apiKeys: () => Pick<ApiKeyRepository, 'findByHash'>;
  readonly environment: () => Environment;
}): HttpMiddleware {
  const authenticateBefore = async (request: HttpRequest): Promise<void> => {
    const state = request.context.svc;
    const route = state.route;
    if (!route) return;
    const principal = await authenticateApiKey(
      { apiKeys: options.apiKeys() },
      headerValue(request.event, 'authorization'),
      options.environment(),
    );
    state.principal = principal;
    if (!grantsScope(principal.scopes, route.scope)) {
      throw new ForbiddenError(
        `This endpoint needs the ${route.scope} scope; the key has ${principal.scopes.join(', ')}`,
        route.scope,
        principal.scopes,
      );
    }
  };
  return { before: authenticateBefore };
}
