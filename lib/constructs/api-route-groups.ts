import type { Duration } from 'aws-cdk-lib';
import type { Route } from '../../layers/core/http/route';

/** `agents` → `Agents`, `/api/v1` → `ApiV1`: a construct id from a family or a path. */
export function constructId(name: string): string {
  return name
    .split(/[^a-zA-Z0-9]+/)
    .filter((part) => part.length > 0)
    .map((part) => part[0]?.toUpperCase() + part.slice(1))
    .join('');
}

/** `/api/v1/agents/{id}` → `/api`, `/api/v1`, `/api/v1/agents`, `/api/v1/agents/{id}`. */
export function pathPrefixes(path: string): string[] {
  const segments = path.split('/').filter((segment) => segment.length > 0);
  return segments.map((_, index) => `/${segments.slice(0, index + 1).join('/')}`);
}

/** What makes a route table unbuildable, said before anything is built. */
export function validateRoutes(routes: readonly Route[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  // One function serves a family, and it either streams (a response-streaming
  // handler in Lambda) or it does not: its routes must agree.
  const streamingOf = new Map<string, boolean>();
  for (const route of routes) {
    const streaming = route.streaming === true;
    const known = streamingOf.get(route.family);
    if (known === undefined) streamingOf.set(route.family, streaming);
    else if (known !== streaming) {
      problems.push(
        `family "${route.family}" mixes streaming and buffered routes (${route.method} ${route.path}); one function serves them all`,
      );
    }
    const key = `${route.method} ${route.path}`;
    if (seen.has(key)) problems.push(`route ${key} appears twice`);
    seen.add(key);
    if (!route.path.startsWith('/') || (route.path.length > 1 && route.path.endsWith('/'))) {
      problems.push(`route ${key}: the path must start with "/" and not end with one`);
    }
    if (route.path.includes('+')) {
      problems.push(`route ${key}: greedy parameters belong to the fallback's catch-all`);
    }
  }
  if (routes.length === 0) problems.push('the route table is empty');
  return problems;
}

/**
 * Where the API's methods are built. Routes under `/api/v1` and the
 * legacy routes under `/api` each have a nested stack; anything else stays
 * in the API's own stack. Groups are fixed by path, never by size, so a
 * route never moves between stacks as the table grows (moving an API
 * Gateway resource between stacks fails: its path is taken until the old
 * stack lets it go).
 */
const ROUTE_GROUPS: ReadonlyArray<{ readonly basePath: string; readonly stackId?: string }> = [
  { basePath: '/api/v1', stackId: 'RoutesV1' },
  { basePath: '/api', stackId: 'RoutesLegacy' },
  { basePath: '/' },
];

export interface RouteGroup {
  readonly basePath: string;
  readonly stackId: string | undefined;
  readonly routes: readonly Route[];
  /** Paths below the base, relative to it, that get the fallback's `ANY`. */
  readonly resourcePaths: readonly string[];
}

export function groupOf<T extends { readonly basePath: string }>(
  path: string,
  groups: readonly T[],
): T {
  const group = groups.find(
    (candidate) => candidate.basePath === '/' || path.startsWith(`${candidate.basePath}/`),
  );
  if (!group) throw new Error(`no route group for ${path}`);
  return group;
}

/** `/api/v1/agents/{id}` under `/api/v1` → `agents/{id}` (what `resourceForPath` takes below a resource). */
export function relativePath(path: string, basePath: string): string {
  return path.slice(basePath === '/' ? 1 : basePath.length + 1);
}

export function routeGroups(routes: readonly Route[]): RouteGroup[] {
  return ROUTE_GROUPS.map(({ basePath, stackId }) => {
    const own = routes.filter((route) => groupOf(route.path, ROUTE_GROUPS).basePath === basePath);
    return {
      basePath,
      stackId,
      routes: own,
      resourcePaths: [
        ...new Set(
          own.flatMap((route) =>
            pathPrefixes(relativePath(route.path, basePath)).map((prefix) => prefix.slice(1)),
          ),
        ),
      ],
    };
  }).filter((group) => group.routes.length > 0);
}

/** What the deployed API depends on in the route table. */
export function deploymentFingerprint(
  routes: readonly Route[],
  timeoutOf: (family: string) => Duration,
): string {
  return JSON.stringify(
    routes.map((route) => [
      route.method,
      route.path,
      route.family,
      route.operation,
      route.api,
      route.streaming === true ? timeoutOf(route.family).toSeconds() : 0,
    ]),
  );
}
