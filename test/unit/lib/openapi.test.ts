import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROUTES } from '../../../layers/core/http/routes/route-table';
import { buildOpenApiDocument } from '../../../lib/openapi';

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

  it("documents D16's 429 with Retry-After, the scope bucket's headers and the reasons that apply", () => {
    for (const route of ROUTES.filter((candidate) => candidate.access !== 'public')) {
      const refusal = document.paths[route.path]?.[route.method.toLowerCase()].responses['429'];
      expect(Object.keys(refusal.headers)).toEqual(
        expect.arrayContaining(['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining']),
      );
      expect(refusal.description).toContain('concurrency');
      // Only answers that spend model tokens are held to tokens/day (P57): queries, and
      // starting an evaluation, whose questions are queries (P139); the MCP server (its
      // ask tool) and OpenAI-compatible chat completions, which answer as queries do.
      expect(refusal.description.includes('daily_tokens')).toBe(
        route.family === 'query' ||
          route.family === 'mcp' ||
          (['evals', 'openai'].includes(route.family) && route.method === 'POST'),
      );
      expect(refusal.description).not.toContain('login_attempts');
    }
  });

  it('documents the sign-in throttle as the only 429 of public routes (P62)', () => {
    const publicRoutes = ROUTES.filter(
      (route) => route.access === 'public' && !route.publicInformation,
    );
    expect(publicRoutes.length).toBeGreaterThan(0);
    for (const route of publicRoutes) {
      const refusal = document.paths[route.path]?.[route.method.toLowerCase()].responses['429'];
      expect(Object.keys(refusal.headers)).toEqual(['Retry-After']);
      expect(refusal.description).toContain('login_attempts');
      expect(refusal.description).not.toContain('concurrency');
    }
  });

  it('gives the public list of webhook source addresses no credential, and no 401 or 429 of ours (P241)', () => {
    const operation = document.paths['/api/v1/webhooks/source-ips']?.get;
    expect(operation.security).toEqual([]);
    expect(Object.keys(operation.responses).sort()).toEqual(['200', '400', '503']);
    expect(
      Object.keys(operation.responses[200].content['application/json'].schema.properties),
    ).toEqual(['fixed', 'cidrs', 'updated_at', 'reason']);
  });
});
