import type { Scope } from '../domain/scopes';
import type { Role } from '../domain/user';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

interface RouteBase {
  readonly method: HttpMethod;
  /** API Gateway resource path, parameters in braces: `/api/v1/agents/{id}`. */
  readonly path: string;
  /** The Lambda function (folder under functions/) that serves it. */
  readonly family: string;
  /** The operation within that function. */
  readonly operation: string;
  /** Which path family: decides the error shape and deprecation headers. */
  readonly api: 'v1' | 'legacy';
  /** For legacy routes: the v1 path that replaces it (`Link: rel="successor-version"`). */
  readonly successor?: string;
  /** Answers may stream: API Gateway's STREAM transfer mode and a response-streaming Lambda. */
  readonly streaming?: true;
  /**
   * SAML: an identity provider's HTTP-POST binding. The body is an HTML
   * form (`application/x-www-form-urlencoded`), not JSON, and it arrives
   * cross-site by design (the IdP's page posts it), so the login-CSRF check
   * of public routes does not apply; the sign-in flow it finishes is bound
   * to the browser instead (P90).
   */
  readonly formPost?: true;
  /** Answers spend model tokens: refused once the organization's tokens/day are spent. */
  readonly spendsTokens?: true;
  /**
   * A GET that changes state (`oauth/start` begins a sign-in): a
   * session must send it as POST, PUT and DELETE are sent — same-site, with
   * its X-CSRF-Token — so a cross-site navigation cannot.
   */
  readonly changesState?: true;
  /**
   * A public route that tells what anyone may know (the addresses
   * webhooks come from) and signs nobody in: no credential, no sign-in
   * throttle, nothing read but settings. The stage's per-address firewall
   * rule and throttle hold it; OpenAPI lists no 401 or 429 of ours for it.
   */
  readonly publicInformation?: true;
}

/** Why a session-only route refuses API keys, when it is not D11's "keys never manage keys". */
export interface KeyRefusal {
  readonly message: string;
  /** `details.reason` of the 403. */
  readonly reason: string;
}

/**
 * What a route requires of each credential. By default either one:
 * an API key holding `scope`, or a signed-in user whose role is at
 * least `role`. `access: 'session'` refuses API keys (keys
 * never manage keys; nor SSO). Either way `scope` names the rate bucket a
 * request draws from: the key's, or the user's of the same size.
 * `access: 'public'` takes no credential at all (signing in).
 */
export type RouteAccess =
  | {
      readonly access?: 'key_or_session' | 'session';
      readonly scope: Scope;
      readonly role: Role;
      readonly keyRefusal?: KeyRefusal;
    }
  | { readonly access: 'public'; readonly scope?: undefined; readonly role?: undefined };

/** One row of the route table (layers/core/http/routes/route-table.ts), read by the CDK API construct and the local gateway alike. */
export type Route = RouteBase & RouteAccess;

/** A route that takes a credential, with the scope and role it needs. */
export type AuthenticatedRoute = Route & { readonly scope: Scope; readonly role: Role };

export function isAuthenticated(route: Route): route is AuthenticatedRoute {
  return route.access !== 'public';
}

export interface RouteMatch {
  readonly route: Route;
  readonly params: Record<string, string>;
}

function decodedOrRaw(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function segmentsMatch(pattern: string, path: string): Record<string, string> | null {
  const patternParts = pattern.split('/');
  const pathParts = path.split('/');
  if (patternParts.length !== pathParts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < patternParts.length; i += 1) {
    const expected = patternParts[i] ?? '';
    const actual = pathParts[i] ?? '';
    const param = /^\{(\w+)\}$/.exec(expected)?.[1];
    if (param) {
      if (actual === '') return null;
      // A segment that does not decode (`%ff`, `%zz`) still matches: the
      // route's id check answers it with 400, as API Gateway hands the
      // route's function whatever the segment holds.
      params[param] = decodedOrRaw(actual);
    } else if (expected !== actual) {
      return null;
    }
  }
  return params;
}

/**
 * True when `pattern` names a more specific resource than `other` for the
 * same path: at the first segment where they differ, a literal beats a
 * parameter (`/webhooks/source-ips` over `/webhooks/{id}`), as API Gateway
 * resolves resources.
 */
function moreSpecific(pattern: string, other: string): boolean {
  const parts = pattern.split('/');
  const otherParts = other.split('/');
  for (let i = 0; i < parts.length; i += 1) {
    const literal = !/^\{\w+\}$/.test(parts[i] ?? '');
    const otherLiteral = !/^\{\w+\}$/.test(otherParts[i] ?? '');
    if (literal !== otherLiteral) return literal;
  }
  return false;
}

/**
 * Finds the route for a request path (what API Gateway does before it picks a
 * Lambda): first the resource, the most specific pattern the path matches
 * (a literal segment before a parameter), then the method among that
 * resource's routes. `allowedMethods` lists the methods of a resource that
 * exists but does not serve `method`, for 405 answers.
 */
export function matchRoute(
  routes: readonly Route[],
  method: string,
  path: string,
): { match: RouteMatch | null; allowedMethods: HttpMethod[] } {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  let resource: { readonly pattern: string; readonly params: Record<string, string> } | null = null;
  for (const route of routes) {
    if (resource && !moreSpecific(route.path, resource.pattern)) continue;
    const params = segmentsMatch(route.path, trimmed);
    if (params) resource = { pattern: route.path, params };
  }
  if (!resource) return { match: null, allowedMethods: [] };
  const { pattern, params } = resource;
  const served = routes.filter((route) => route.path === pattern);
  const route = served.find((candidate) => candidate.method === method);
  if (route) return { match: { route, params }, allowedMethods: [] };
  return { match: null, allowedMethods: served.map((candidate) => candidate.method) };
}

/** `/api/v1/…` (and any unknown `/api/vN/…`) answers in the nested shape; legacy `/api/…` flat. */
export function errorShapeForPath(path: string): 'nested' | 'flat' {
  return path.startsWith('/api/') && !/^\/api\/v\d+(\/|$)/.test(path) ? 'flat' : 'nested';
}
