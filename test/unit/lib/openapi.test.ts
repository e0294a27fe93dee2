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

  it('documents every route with its scope, and marks legacy routes deprecated', () => {
    for (const route of ROUTES) {
      const operation = document.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation).toBeDefined();
      expect(operation['x-required-scope']).toBe(route.scope);
      expect(Boolean(operation.deprecated)).toBe(route.api === 'legacy');
    }
  });
});
