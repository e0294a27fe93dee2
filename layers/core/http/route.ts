import type { Scope } from '../domain/scopes';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** One row of the route table (lib/routes.ts), read by the CDK API construct and the local gateway alike. */
export interface Route {
  readonly method: HttpMethod;
  /** API Gateway resource path, parameters in braces: `/api/v1/agents/{id}`. */
  readonly path: string;
  /** The Lambda function (folder under functions/) that serves it. */
  readonly family: string;
  /** The operation within that function. */
  readonly operation: string;
  /** D9: the scope the endpoint needs; its rate-limit bucket too (D16). */
  readonly scope: Scope;
  /** Which path family: decides the error shape (D5) and deprecation headers (D7). */
  readonly api: 'v1' | 'legacy';
  /** For legacy routes: the v1 path that replaces it (D7 `Link: rel="successor-version"`). */
  readonly successor?: string;
  /** Answers may stream (D19): API Gateway's STREAM transfer mode and a response-streaming Lambda. */
  readonly streaming?: true;
  /** Answers spend model tokens: refused once the organization's tokens/day are spent (D16, P57). */
  readonly spendsTokens?: true;
}

export interface RouteMatch {
  readonly route: Route;
  readonly params: Record<string, string>;
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
      try {
        params[param] = decodeURIComponent(actual);
      } catch {
        return null;
      }
    } else if (expected !== actual) {
      return null;
    }
  }
  return params;
}

/**
 * Finds the route for a request path (what API Gateway does before it picks a
 * Lambda). `allowedMethods` lists the methods of a path that exists but does
 * not serve `method`, for 405 answers.
 */
export function matchRoute(
  routes: readonly Route[],
  method: string,
  path: string,
): { match: RouteMatch | null; allowedMethods: HttpMethod[] } {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  const allowedMethods: HttpMethod[] = [];
  for (const route of routes) {
    const params = segmentsMatch(route.path, trimmed);
    if (!params) continue;
    if (route.method === method) return { match: { route, params }, allowedMethods: [] };
    allowedMethods.push(route.method);
  }
  return { match: null, allowedMethods };
}

/** D5: `/api/v1/…` (and any unknown `/api/vN/…`) answers in the nested shape; legacy `/api/…` flat. */
export function errorShapeForPath(path: string): 'nested' | 'flat' {
  return path.startsWith('/api/') && !/^\/api\/v\d+(\/|$)/.test(path) ? 'flat' : 'nested';
}
