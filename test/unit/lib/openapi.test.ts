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

  it("documents D16's 429 with Retry-After, the scope bucket's headers and the reasons that apply", () => {
    for (const route of ROUTES) {
      const refusal = document.paths[route.path]?.[route.method.toLowerCase()].responses['429'];
      expect(Object.keys(refusal.headers)).toEqual(
        expect.arrayContaining(['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining']),
      );
      expect(refusal.description).toContain('concurrency');
      // Only answers that spend model tokens are held to tokens/day (P57).
      expect(refusal.description.includes('daily_tokens')).toBe(route.family === 'query');
    }
  });
});
