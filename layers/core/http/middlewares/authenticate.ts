import { timingSafeEqual } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Environment } from '../../domain/environments';
import {
  ForbiddenError,
  RequestRefusedError,
  RoleForbiddenError,
  SessionUnauthorizedError,
  UnauthorizedError,
} from '../../domain/errors';
import type { ApiKeyPrincipal } from '../../domain/principal';
import { grantsScope } from '../../domain/scopes';
import { roleAtLeast } from '../../domain/user';
import type { ApiKeyRepository } from '../../ports/api-key-repository.port';
import type { Clock } from '../../ports/clock.port';
import { authenticateApiKey } from '../../use-cases/api-keys/api-key-use-cases';
import {
  continueSession,
  type SessionDependencies,
  verifySession,
} from '../../use-cases/auth/sessions';
import { type HttpMiddleware, type HttpRequest, headerValue } from '../request-state';
import type { AuthenticatedRoute } from '../route';
import { clearedSessionCookie, sessionCookie, sessionCookieOf } from '../session-cookie';

/** Methods that change state, which a cookie alone must never authorize (CSRF); routes may add a GET (`changesState`). */
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The header carrying the CSRF token the sign-in gave. */
export const CSRF_HEADER = 'X-CSRF-Token';

/**
 * A state change a browser sends on another site's behalf is refused:
 * `Sec-Fetch-Site: cross-site`, or an `Origin` other than the API's own
 * (the web application is served from the API's origin; there is no
 * CORS, so no other origin could read an answer anyway) or the console's
 * (in the cloud the console's CloudFront distribution routes `/api/*`
 * to API Gateway, so the browser's `Origin` is the distribution's while the
 * function sees API Gateway's `Host`). Requests without either header
 * (curl, server-side clients) pass; for a session they still need the CSRF
 * token.
 */
export function refuseCrossSite(event: APIGatewayProxyEvent, consoleOrigin?: string): void {
  if (headerValue(event, 'sec-fetch-site')?.toLowerCase() === 'cross-site') {
    throw new RequestRefusedError('Cross-site requests cannot change anything (Sec-Fetch-Site)', {
      reason: 'cross_site',
    });
  }
  const origin = headerValue(event, 'origin');
  if (origin === undefined) return;
  const host = headerValue(event, 'host');
  let sent: URL | undefined;
  try {
    sent = new URL(origin);
  } catch {
    sent = undefined;
  }
  const ownHost = host !== undefined && sent?.host.toLowerCase() === host.toLowerCase();
  // The whole origin, scheme included: the console is only ever https.
  const fromConsole = consoleOrigin !== undefined && sent?.origin === consoleOrigin;
  if (!ownHost && !fromConsole) {
    throw new RequestRefusedError(
      `Requests from origin ${origin.slice(0, 200)} cannot change anything`,
      {
        reason: 'foreign_origin',
      },
    );
  }
}

function sameToken(sent: string, expected: string): boolean {
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Who is calling, and whether they may: one model for both credentials.
 *
 * - `Authorization` present, or no session cookie: an API key (401 when
 *   missing, malformed, unknown or of the other environment), which
 *   must hold the route's scope (403) and is refused on session-only
 *   routes (403: keys: SSO).
 * - Otherwise the `svc_session` cookie: a valid, unrevoked session of
 *   an active user (401, and the cookie is cleared); for a state change,
 *   same-site and carrying the session's `X-CSRF-Token` (403); a role at
 *   least the route's (403). The session is then continued: the
 *   response re-issues the cookie, 7 more days within the 30-day cap.
 *
 * Public routes (signing in) take no credential, but refuse cross-site
 * requests all the same (no login CSRF).
 */
export function authenticate(options: {
  readonly apiKeys: () => Pick<ApiKeyRepository, 'findByHash' | 'recordUse'>;
  readonly clock: () => Clock;
  readonly environment: () => Environment;
  readonly sessions: () => SessionDependencies;
  /** The console's public origin, accepted beside the API's own (undefined: none). */
  readonly consoleOrigin: () => string | undefined;
}): HttpMiddleware {
  const authenticateBefore = async (request: HttpRequest): Promise<void> => {
    const state = request.context.svc;
    const route = state.route;
    if (!route) return;
    const { event } = request;
    const unsafe =
      UNSAFE_METHODS.has(event.httpMethod.toUpperCase()) || route.changesState === true;
    if (route.access === 'public') {
      // An identity provider's form POST comes from its own site (SAML).
      if (unsafe && !route.formPost) refuseCrossSite(event, options.consoleOrigin());
      return;
    }
    const authorization = headerValue(event, 'authorization');
    const cookie = sessionCookieOf(event);
    if (authorization === undefined && cookie === undefined) {
      throw route.access === 'session'
        ? new SessionUnauthorizedError(
            'Sign in first: this endpoint needs the svc_session cookie (POST /api/v1/auth/login)',
          )
        : new UnauthorizedError(
            'Missing API key: send Authorization: Bearer <key>, or sign in (POST /api/v1/auth/login)',
          );
    }
    if (authorization !== undefined || cookie === undefined) {
      const principal = await authenticateApiKey(
        { apiKeys: options.apiKeys(), clock: options.clock() },
        authorization,
        options.environment(),
      );
      state.principal = principal;
      authorizeKey(principal, route);
      return;
    }

    const deps = options.sessions();
    let verified: Awaited<ReturnType<typeof verifySession>>;
    try {
      verified = await verifySession(deps, cookie);
    } catch (error) {
      // A cookie that no longer works is removed rather than sent again and again.
      if (error instanceof SessionUnauthorizedError) state.setCookie = clearedSessionCookie();
      throw error;
    }
    state.principal = verified.principal;
    if (unsafe) {
      refuseCrossSite(event, options.consoleOrigin());
      const sent = headerValue(event, CSRF_HEADER);
      const expected = await deps.sessionTokens.csrfToken(verified.claims.jti);
      if (!sent || !sameToken(sent, expected)) {
        throw new RequestRefusedError(
          `Changes made with a session cookie must send the ${CSRF_HEADER} header the sign-in gave`,
          { reason: sent ? 'csrf_token_mismatch' : 'csrf_token_missing' },
        );
      }
    }
    if (!roleAtLeast(verified.principal.role, route.role)) {
      throw new RoleForbiddenError(
        `This endpoint needs the ${route.role} role; you are ${verified.principal.role}`,
        route.role,
        verified.principal.role,
      );
    }
    const continued = await continueSession(deps, verified.claims);
    state.session = continued;
    state.setCookie = sessionCookie(continued.token, continued.claims.exp, continued.claims.iat);
  };
  return { before: authenticateBefore };
}

/** D9 scopes, and D11: keys never reach session-only routes (keys, SSO). */
function authorizeKey(principal: ApiKeyPrincipal, route: AuthenticatedRoute): void {
  if (!grantsScope(principal.scopes, route.scope)) {
    throw new ForbiddenError(
      `This endpoint needs the ${route.scope} scope; the key has ${principal.scopes.join(', ')}`,
      route.scope,
      principal.scopes,
    );
  }
  if (route.access === 'session') {
    if (route.keyRefusal) {
      throw new RequestRefusedError(route.keyRefusal.message, {
        reason: route.keyRefusal.reason,
        required_credential: 'session',
      });
    }
    throw new RequestRefusedError(
      'Only a signed-in administrator can do this: API keys cannot manage keys or sign-in settings',
      { required_credential: 'session' },
    );
  }
}
