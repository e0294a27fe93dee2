import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildOpenApiDocument } from '../../../lib/openapi';
import { ROUTES } from '../../../lib/routes';

describe('OpenAPI reference (docs/openapi.json)', () => {
  const document = buildOpenApiDocument() as { paths: Record<string, Record<string, any>> };

  it('is current: regenerate with `npm run openapi` after changing routes or schemas', () => {
    const committed = JSON.parse(
      readFileSync(join(__dirname, '../../../docs/openapi.json'), 'utf8'),
    );
    expect(committed).toEqual(JSON.parse(JSON.stringify(document)));
  });

  it('documents what every route needs of each credential, and marks legacy routes deprecated', () => {
    for (const route of ROUTES) {
      const operation = document.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation).toBeDefined();
      // P63: a key's scope where keys are taken, a session's role where sessions are, neither on public routes.
      expect(operation['x-required-scope']).toBe(
        route.access === undefined || route.access === 'key_or_session' ? route.scope : undefined,
      );
      expect(operation['x-required-role']).toBe(route.role);
      expect(operation.security.length).toBe(
        route.access === 'public' ? 0 : route.access === 'session' ? 1 : 2,
      );
      expect(Boolean(operation.deprecated)).toBe(route.api === 'legacy');
    }
  });
});
