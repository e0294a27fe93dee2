import * as z from 'zod/mini';
import { ENDPOINT_FAMILIES } from '../functions/families';
import { FIELD_DESCRIPTIONS as WEBHOOK_FIELD_DESCRIPTIONS } from '../functions/webhooks/webhook.schema';
import { RATE_LIMIT_REASONS, type RateLimitReason } from '../layers/core/domain/errors';
import { ID_PREFIXES } from '../layers/core/domain/ids';
import { NO_BODY, NO_QUERY, type Operation } from '../layers/core/http/operation';
import type { Route } from '../layers/core/http/route';
import { ROUTES } from '../layers/core/http/routes/route-table';

/** Each endpoint family's operations (functions/families.ts), loaded before the descriptions below are attached. */
const OPERATIONS_BY_FAMILY: Readonly<Record<string, Readonly<Record<string, Operation>>>> =
  Object.fromEntries(ENDPOINT_FAMILIES.map((family) => [family.name, family.entry().operations]));

// P301: descriptions kept out of function bundles, attached for the document only.
for (const { object, fields } of WEBHOOK_FIELD_DESCRIPTIONS) {
  const shape: Record<string, z.ZodMiniType> = object.shape;
  for (const [field, description] of Object.entries(fields)) {
    const schema = shape[field];
    if (schema) z.globalRegistry.add(schema, { description });
  }
}

type JsonSchema = Record<string, unknown>;

const inputSchema = (schema: z.core.$ZodType): JsonSchema => {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  return rest;
};
const outputSchema = (schema: z.core.$ZodType): JsonSchema => {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' });
  return rest;
};

/** D16: what describes the scope bucket on every response, and when to retry on a 429. */
const RATE_LIMIT_HEADERS: Record<string, { description: string; type: 'integer' | 'string' }> = {
  'Retry-After': { description: 'Seconds to wait before retrying (429 and 503)', type: 'integer' },
  'X-RateLimit-Limit': { description: "The scope bucket's requests per minute", type: 'integer' },
  'X-RateLimit-Remaining': {
    description: 'Whole tokens left in the scope bucket',
    type: 'integer',
  },
  'X-RateLimit-Reset': {
    description: 'Unix seconds when the scope bucket is full again',
    type: 'integer',
  },
  'X-RateLimit-Used': { description: 'Limit minus remaining', type: 'integer' },
  'RateLimit-Policy': { description: 'IETF draft: the scope bucket policy', type: 'string' },
  RateLimit: { description: 'IETF draft: remaining and seconds until full', type: 'string' },
};

/**
 * D16's reasons a route can be refused for: tokens/day only where answers
 * spend tokens (P57). Public routes (signing in) are held to no scope bucket
 * or plan limit, only to the sign-in throttle (P62).
 */
function refusalReasons(route: Route): RateLimitReason[] {
  if (route.access === 'public') return ['login_attempts'];
  return RATE_LIMIT_REASONS.filter(
    (reason) => reason !== 'login_attempts' && (reason !== 'daily_tokens' || route.spendsTokens),
  );
}

/** D16 429, in the path family's shape (D5), with the reasons that apply and the headers. */
function rateLimitResponse(route: Route): Record<string, unknown> {
  const schema = route.api === 'v1' ? 'NestedRateLimitError' : 'FlatError';
  // A sign-in refusal describes no scope bucket: it says only when to retry (P62).
  const headers = route.access === 'public' ? ['Retry-After'] : Object.keys(RATE_LIMIT_HEADERS);
  const what = route.access === 'public' ? 'too many failed sign-ins (P62)' : 'D16';
  return {
    description: `rate_limit_exceeded (${what}), reason ${refusalReasons(route).join(', ')}; retry after Retry-After seconds`,
    headers: Object.fromEntries(
      headers.map((name) => [name, { $ref: `#/components/headers/${name}` }]),
    ),
    content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
  };
}

/** The error responses every authenticated endpoint can give, by path family (D5). */
function errorResponses(route: Route): Record<string, unknown> {
  const ref = { $ref: `#/components/schemas/${route.api === 'v1' ? 'NestedError' : 'FlatError'}` };
  const response = (description: string) => ({
    description,
    content: { 'application/json': { schema: ref } },
  });
  const common = {
    400: response(
      'invalid_request: malformed input, unknown field, bad id format, body past a shape bound (D1, D4, P197)',
    ),
    413: response('invalid_request: body over 1 MiB (D4)'),
    415: response('invalid_request: body not application/json (D4)'),
    503: response(
      'service_unavailable, with Retry-After: a backing service or model provider is busy, down or broke an answer off, or the request ran out of time under load (P37, P134, P206)',
    ),
  };
  // P241: nothing to sign in with, so no 401 or sign-in throttle; a GET, so never cross-site.
  if (route.publicInformation) {
    return { 400: common[400], 503: common[503] };
  }
  if (route.access === 'public') {
    return {
      ...common,
      401: response('unauthorized: unknown email or wrong password (one answer for both, P62)'),
      403: response('forbidden: a cross-site request (D12)'),
      429: rateLimitResponse(route),
    };
  }
  const forbidden =
    route.access === 'session'
      ? `forbidden: API keys are refused (${route.keyRefusal ? `details.reason ${route.keyRefusal.reason}` : 'D11'}); a session below the ${route.role} role (D13); a missing or wrong X-CSRF-Token or a cross-site request (D12); an address outside the organization's IP allowlist (D15)`
      : `forbidden: the key lacks the ${route.scope} scope (D9); a session below the ${route.role} role (D13); a missing or wrong X-CSRF-Token or a cross-site request (D12); an address outside the organization's IP allowlist (D15)`;
  return {
    ...common,
    401: response(
      'unauthorized: missing, malformed, unknown or revoked key, or a key of the other environment (D10); an invalid, expired or revoked session (D12)',
    ),
    403: response(forbidden),
    404: response('not_found: no such resource in your organization'),
    429: rateLimitResponse(route),
  };
}

function operationObject(route: Route, operation: Operation): Record<string, unknown> {
  // Ids have their D1 shape; other path parameters (an SSO domain) are plain strings.
  const pathParameters = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name = '']) => {
    const kind = operation.pathIds[name];
    return {
      name,
      in: 'path',
      required: true,
      schema: kind
        ? { type: 'string', pattern: `^${ID_PREFIXES[kind]}_[0-9a-hjkmnp-tv-z]{26}$` }
        : { type: 'string' },
    };
  });
  const queryParameterList = operation.query === NO_QUERY ? [] : queryParameters(operation.query);
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(operation.responses)) {
    responses[status] = {
      description: response.description,
      // D14's pages for browsers: "Authentication failed", "Unauthorized domain".
      ...(status === '401' || status === '403'
        ? { content: { 'text/html': { schema: { type: 'string' } } } }
        : {}),
      ...(response.schema
        ? { content: { 'application/json': { schema: outputSchema(response.schema) } } }
        : {}),
    };
  }
  return {
    operationId:
      route.api === 'v1' ? route.operation : `${route.operation}Legacy${legacyTag(route.path)}`,
    summary: operation.summary,
    tags: [route.family],
    ...(route.api === 'legacy'
      ? {
          deprecated: true,
          description: `Legacy path (D7, D8); use ${route.successor}. Accepts camelCase synonyms.`,
        }
      : {}),
    ...securityOf(route),
    parameters: [...pathParameters, ...queryParameterList],
    ...(operation.body === NO_BODY
      ? {}
      : {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: inputSchema(operation.body) } },
          },
        }),
    responses: { ...responses, ...withOwnRefusals(errorResponses(route), operation) },
  };
}

/**
 * Refusals an operation adds to the route's (P225: an API key and the admin
 * role) join the common 403's description rather than replace it.
 */
function withOwnRefusals(
  errors: Record<string, unknown>,
  operation: Operation,
): Record<string, unknown> {
  const own = operation.responses[403];
  const common = errors[403] as { readonly description: string } | undefined;
  if (!own || !common) return errors;
  return {
    ...errors,
    403: { ...common, description: `${common.description}; ${own.description}` },
  };
}

/** P63: what each credential needs; public routes need none, session-only ones no key. */
function securityOf(route: Route): Record<string, unknown> {
  if (route.access === 'public') return { security: [] };
  if (route.access === 'session') {
    return { 'x-required-role': route.role, security: [{ session: [] }] };
  }
  return {
    'x-required-scope': route.scope,
    'x-required-role': route.role,
    security: [{ apiKey: [] }, { session: [] }],
  };
}

/** Query parameters from a query schema, required where the schema requires them. */
function queryParameters(query: z.core.$ZodType): Record<string, unknown>[] {
  const schema = inputSchema(query);
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>).map(
    ([name, property]) => ({
      name,
      in: 'query',
      required: required.has(name),
      schema: property,
    }),
  );
}

/** `/api/data-specs/…` → `DataSpecs`: keeps legacy operation ids unique beside their v1 twins. */
function legacyTag(path: string): string {
  return (path.split('/')[2] ?? '')
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/** The OpenAPI 3.1 document of every route in layers/core/http/routes/route-table.ts. */
export function buildOpenApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    const operation = OPERATIONS_BY_FAMILY[route.family]?.[route.operation];
    if (!operation) throw new Error(`No operation ${route.operation} in ${route.family}`);
    paths[route.path] ??= {};
    paths[route.path] = {
      ...paths[route.path],
      [route.method.toLowerCase()]: operationObject(route, operation),
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Agent Query Service API',
      version: '1.0.0',
      description:
        "Question-answering agents over an organization's own data. Generated from layers/core/http/routes/route-table.ts and the zod schemas by `npm run openapi`.",
    },
    servers: [{ url: 'http://127.0.0.1:3000', description: 'npm start (local)' }],
    components: {
      headers: Object.fromEntries(
        Object.entries(RATE_LIMIT_HEADERS).map(([name, header]) => [
          name,
          { description: header.description, schema: { type: header.type } },
        ]),
      ),
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'svcsk_live_… or svcsk_test_… API key (D10)',
        },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'svc_session',
          description:
            'The web session (D12) set by POST /api/v1/auth/login; cookie-authenticated POST, PUT and DELETE also send X-CSRF-Token',
        },
      },
      schemas: {
        NestedError: {
          type: 'object',
          required: ['error', 'request_id'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message', 'details'],
              properties: {
                code: {
                  type: 'string',
                  enum: [
                    'invalid_request',
                    'unauthorized',
                    'forbidden',
                    'not_found',
                    'rate_limit_exceeded',
                    'internal_error',
                    'service_unavailable',
                  ],
                },
                message: { type: 'string' },
                details: { type: 'object' },
              },
            },
            request_id: { type: 'string', pattern: '^req_' },
          },
        },
        NestedRateLimitError: {
          description:
            'D5 nested shape of a 429: details say which limit refused (D16) and when to retry.',
          allOf: [
            { $ref: '#/components/schemas/NestedError' },
            {
              type: 'object',
              properties: {
                error: {
                  type: 'object',
                  properties: {
                    details: {
                      type: 'object',
                      required: ['reason', 'limit', 'reset_at', 'retry_after'],
                      properties: {
                        reason: { type: 'string', enum: [...RATE_LIMIT_REASONS] },
                        limit: { type: 'integer' },
                        reset_at: { type: 'string', format: 'date-time' },
                        retry_after: { type: 'integer' },
                      },
                    },
                  },
                },
              },
            },
          ],
        },
        FlatError: {
          type: 'object',
          description:
            'Legacy shapes (D5): {error, status} for 401; {error, required_scope, current_scopes} for 403; {error, limit, reset_at, retry_after, reason} for 429; {error, status, code, details} otherwise. All carry request_id.',
          required: ['error', 'request_id'],
          properties: {
            error: { type: 'string' },
            status: { type: 'integer' },
            code: { type: 'string' },
            details: { type: 'object' },
            required_scope: { type: 'string' },
            current_scopes: { type: 'array', items: { type: 'string' } },
            limit: { type: 'integer' },
            reset_at: { type: 'string' },
            retry_after: { type: 'integer' },
            reason: { type: 'string', enum: [...RATE_LIMIT_REASONS] },
            request_id: { type: 'string' },
          },
        },
      },
    },
    paths,
  };
}
