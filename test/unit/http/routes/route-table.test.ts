import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Route } from '../../../../layers/core/http/route';
import {
  FAMILIES,
  INVITATION_ACCEPT_PATH,
  ROUTES,
} from '../../../../layers/core/http/routes/route-table';
import { FALLBACK_FUNCTION, LOCAL_FUNCTIONS } from '../../../../lib/local/functions';

const root = join(__dirname, '..', '..', '..', '..');

describe('Route table (layers/core/http/routes/route-table.ts)', () => {
  it('has no duplicate method and path', () => {
    const keys = ROUTES.map((route) => `${route.method} ${route.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it.each(FAMILIES)(
    'gives family %s a function folder, a local handler and every operation',
    async (family) => {
      expect(existsSync(join(root, 'functions', family, 'handler.ts'))).toBe(true);
      expect(LOCAL_FUNCTIONS[family]).toBeDefined();
      const module = (await import(join(root, 'functions', family, 'handler.ts'))) as {
        operations: Record<string, unknown>;
      };
      for (const route of ROUTES.filter((candidate) => candidate.family === family)) {
        expect(module.operations[route.operation]).toBeDefined();
      }
    },
  );

  it('serves v1 paths under /api/v1 and legacy paths outside it, each legacy with a v1 successor', () => {
    for (const route of ROUTES) {
      if (route.api === 'v1') {
        // D26 names the connector sign-in's callback outside /api/v1 (the providers' registered redirect URI).
        expect(route.path.startsWith('/api/v1/') || route.path === '/api/oauth/callback').toBe(
          true,
        );
        expect(route.successor).toBeUndefined();
      } else {
        expect(route.path.startsWith('/api/v1/')).toBe(false);
        const successor = ROUTES.find(
          (candidate) =>
            candidate.api === 'v1' &&
            candidate.method === route.method &&
            candidate.path === route.successor,
        );
        // D8: legacy feedback names the interaction in its body, and the dashboard has no granularity.
        const legacyVariants: Record<string, string> = {
          giveFeedbackLegacy: 'giveFeedback',
          getDashboard: 'getAnalytics',
        };
        expect(successor?.operation).toBe(legacyVariants[route.operation] ?? route.operation);
        expect(successor?.scope).toBe(route.scope);
        expect(successor?.role).toBe(route.role);
        expect(successor?.access).toBe(route.access);
      }
    }
  });

  it.each(FAMILIES)(
    'keeps the rows of family %s, and only them, in layers/core/http/routes/<family>.ts',
    async (family) => {
      const module = (await import(
        join(root, 'layers', 'core', 'http', 'routes', `${family}.ts`)
      )) as Record<string, readonly Route[]>;
      const rows = Object.values(module).flat();
      expect(rows).toEqual(ROUTES.filter((route) => route.family === family));
    },
  );

  it('has no other file under layers/core/http/routes/ than one per family and the table', () => {
    const files = readdirSync(join(root, 'layers', 'core', 'http', 'routes')).sort();
    expect(files).toEqual([...FAMILIES.map((family) => `${family}.ts`), 'route-table.ts'].sort());
  });

  it('gives every path to one family, so its function answers 405 from its own rows', () => {
    const owners = new Map<string, Set<string>>();
    for (const route of ROUTES) {
      owners.set(route.path, (owners.get(route.path) ?? new Set()).add(route.family));
    }
    const shared = [...owners].filter(([, families]) => families.size > 1).map(([path]) => path);
    expect(shared).toEqual([]);
  });

  it('names the v1 invitation-acceptance route as where invitations are accepted (P61)', () => {
    const accept = ROUTES.find(
      (route) => route.operation === 'acceptInvitation' && route.api === 'v1',
    );
    expect(accept).toMatchObject({ method: 'POST', path: INVITATION_ACCEPT_PATH, family: 'auth' });
  });

  it('has a fallback for what no route serves', () => {
    expect(FALLBACK_FUNCTION).toBeInstanceOf(Function);
  });
});
