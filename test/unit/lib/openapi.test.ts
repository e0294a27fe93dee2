import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROUTES } from '../../../layers/core/http/routes/route-table';
import { buildOpenApiDocument } from '../../../lib/openapi';
import { DECISION_CITATION } from '../../../lib/openapi-document/reader-text';
import { TAG_DESCRIPTIONS } from '../../../lib/openapi-document/tags';

describe('OpenAPI reference (docs/openapi.json)', () => {
  const document = buildOpenApiDocument() as {
    paths: Record<string, Record<string, any>>;
    components: { schemas: Record<string, any> };
    tags: Array<{ name: string; description: string }>;
  };
  const committedText = readFileSync(join(__dirname, '../../../docs/openapi.json'), 'utf8');
  /** A schema with its `$ref` followed. */
  const resolved = (schema: any): any =>
    schema.$ref ? document.components.schemas[schema.$ref.split('/').pop()] : schema;

  it('is current: regenerate with `npm run openapi` after changing routes or schemas', () => {
    const committed = JSON.parse(committedText);
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
      Object.keys(resolved(operation.responses[200].content['application/json'].schema).properties),
    ).toEqual(['fixed', 'cidrs', 'updated_at', 'reason']);
  });

  it("cites none of the project's decision records in what API users read", () => {
    const cited = committedText
      .split('\n')
      .filter((line) => DECISION_CITATION.test(line))
      .map((line) => line.trim());
    expect(cited).toEqual([]);
  });

  it('names every resource and error once, and refers to it with $ref', () => {
    const named = Object.keys(document.components.schemas);
    expect(named).toEqual(
      expect.arrayContaining([
        'Agent',
        'DataSource',
        'SyncJob',
        'Interaction',
        'KbArticle',
        'Webhook',
        'Delivery',
        'User',
        'Group',
        'ApiKey',
        'ModelKey',
        'Organization',
        'ApiError',
        'InvalidRequestError',
        'ForbiddenError',
        'RateLimitError',
      ]),
    );
    const getAgent = document.paths['/api/v1/agents/{id}']?.get;
    expect(getAgent.responses[200].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Agent',
    });
    expect(document.components.schemas.AgentList.properties.agents.items).toEqual({
      $ref: '#/components/schemas/Agent',
    });
    expect(getAgent.responses[404].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/NotFoundError',
    });
  });

  it('types the details of each error code: the offending fields of a 400, the reason of a 403', () => {
    const { schemas } = document.components;
    const detailsOf = (name: string) => resolved(schemas[name].properties.error.properties.details);
    expect(schemas.InvalidRequestError.properties.error.properties.code).toMatchObject({
      const: 'invalid_request',
    });
    expect(detailsOf('InvalidRequestError').properties.fields.items).toEqual({
      $ref: '#/components/schemas/FieldIssue',
    });
    expect(detailsOf('ForbiddenError').properties.reason.enum).toContain('ip_not_allowed');
    expect(detailsOf('RateLimitError').required).toEqual(['reason', 'retry_after']);
  });

  it('describes every tag an operation uses', () => {
    const used = new Set(
      Object.values(document.paths).flatMap((item) =>
        Object.values(item).flatMap((operation) => operation.tags as string[]),
      ),
    );
    expect(document.tags.map((tag) => tag.name).sort()).toEqual([...used].sort());
    for (const tag of document.tags) expect(TAG_DESCRIPTIONS[tag.name]).toBe(tag.description);
  });

  it("documents the streamed answer's events", () => {
    const answer = document.paths['/api/v1/query']?.post.responses[200].content;
    expect(Object.keys(answer)).toEqual(['application/json', 'text/event-stream']);
    expect(answer['text/event-stream']['x-itemSchema']).toEqual({
      $ref: '#/components/schemas/QueryStreamEvent',
    });
    const events = document.components.schemas.QueryStreamEvent.oneOf.map(
      (event: any) => event.properties.event.const,
    );
    expect(events).toEqual(['sources', 'delta', 'done', 'error']);
  });

  it('bounds integers only where the service does', () => {
    expect(committedText).not.toContain(String(Number.MAX_SAFE_INTEGER));
    const query = document.paths['/api/v1/query']?.post.requestBody.content['application/json'];
    expect(query.schema.properties.max_tokens).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: expect.any(Number),
    });
    expect(document.components.schemas.AgentList.properties.total).toEqual({ type: 'integer' });
  });

  it('documents the SSO pages as HTML, and the SAML metadata of an organization without SAML as 404', () => {
    const start = document.paths['/api/v1/sso/start']?.get.responses;
    expect(Object.keys(start[401].content)).toEqual(['text/html']);
    const metadata = document.paths['/api/v1/sso/saml/{org_id}']?.get.responses;
    expect(Object.keys(metadata[200].content)).toEqual(['application/samlmetadata+xml']);
    expect(metadata[404].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/NotFoundError',
    });
  });
});
