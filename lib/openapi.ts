import * as z from 'zod/mini';
import { ENDPOINT_FAMILIES } from '../functions/families';
import { FIELD_DESCRIPTIONS as WEBHOOK_FIELD_DESCRIPTIONS } from '../functions/webhooks/webhook.schema';
import { RATE_LIMIT_REASONS, type RateLimitReason } from '../layers/core/domain/errors';
import { ID_PREFIXES } from '../layers/core/domain/ids';
import { ERROR_BODY_OF_STATUS } from '../layers/core/http/error-body.schema';
import {
  NO_BODY,
  NO_QUERY,
  type Operation,
  type OperationResponse,
} from '../layers/core/http/operation';
import type { Route } from '../layers/core/http/route';
import { ROUTES } from '../layers/core/http/routes/route-table';
import { COMPONENT_NAMES, registerComponentNames } from './openapi-document/component-names';
import { withReaderText } from './openapi-document/reader-text';
import {
  componentRef,
  type JsonSchema,
  SchemaComponents,
} from './openapi-document/schema-components';
import { TAG_DESCRIPTIONS } from './openapi-document/tags';

/** Each endpoint family's operations (functions/families.ts), loaded before the descriptions below are attached. */
export const OPERATIONS_BY_FAMILY: Readonly<Record<string, Readonly<Record<string, Operation>>>> =
  Object.fromEntries(ENDPOINT_FAMILIES.map((family) => [family.name, family.entry().operations]));

// Descriptions kept out of function bundles (their size is bounded), attached for the document only.
for (const { object, fields } of WEBHOOK_FIELD_DESCRIPTIONS) {
  const shape: Record<string, z.ZodMiniType> = object.shape;
  for (const [field, description] of Object.entries(fields)) {
    const schema = shape[field];
    if (schema) z.globalRegistry.add(schema, { description });
  }
}

/** The rate-limit headers: what describes the scope bucket on every response, and when to retry on a 429. */
const RATE_LIMIT_HEADERS: Record<
  string,
  { description: string; type: 'integer' | 'string'; minimum?: number }
> = {
  'Retry-After': {
    description: 'Seconds to wait before retrying (429 and 503)',
    type: 'integer',
    minimum: 0,
  },
  'X-RateLimit-Limit': {
    description: "Requests per minute the key's bucket for this scope refills at",
    type: 'integer',
    minimum: 1,
  },
  'X-RateLimit-Remaining': {
    description:
      'Requests the bucket allows right now. The bucket holds a burst above the per-minute rate (the `burst` of RateLimit-Policy), so a rested bucket shows more than X-RateLimit-Limit',
    type: 'integer',
    minimum: 0,
  },
  'X-RateLimit-Reset': {
    description: 'Unix seconds when the bucket is full again',
    type: 'integer',
    minimum: 0,
  },
  'X-RateLimit-Used': {
    description: 'X-RateLimit-Limit minus X-RateLimit-Remaining, never below 0',
    type: 'integer',
    minimum: 0,
  },
  'RateLimit-Policy': {
    description: 'IETF draft: the bucket, its requests per window, window seconds and burst',
    type: 'string',
  },
  RateLimit: {
    description: 'IETF draft: requests remaining and seconds until the bucket is full',
    type: 'string',
  },
};

/**
 * The reasons a route can be refused for: tokens/day only where answers
 * spend tokens. Public routes (signing in) are held to no scope bucket or
 * plan limit, only to the sign-in throttle.
 */
function refusalReasons(route: Route): RateLimitReason[] {
  if (route.access === 'public') return ['login_attempts'];
  return RATE_LIMIT_REASONS.filter(
    (reason) => reason !== 'login_attempts' && (reason !== 'daily_tokens' || route.spendsTokens),
  );
}

/** The body of an error of this status, in the path family's shape. */
function errorContent(route: Route, status: number): Record<string, unknown> {
  const name =
    route.family === 'openai'
      ? 'OpenAiError'
      : route.api === 'v1'
        ? (ERROR_BODY_OF_STATUS[status] ?? 'ApiError')
        : 'FlatError';
  return { 'application/json': { schema: componentRef(name) } };
}

/** The 429, with the reasons that apply and the headers. */
function rateLimitResponse(route: Route): Record<string, unknown> {
  // A sign-in refusal describes no scope bucket: it says only when to retry.
  const headers = route.access === 'public' ? ['Retry-After'] : Object.keys(RATE_LIMIT_HEADERS);
  const what = route.access === 'public' ? 'too many failed sign-ins' : 'a limit was reached';
  return {
    description: `rate_limit_exceeded (${what}), reason ${refusalReasons(route).join(', ')}; retry after Retry-After seconds`,
    headers: Object.fromEntries(
      headers.map((name) => [name, { $ref: `#/components/headers/${name}` }]),
    ),
    content: errorContent(route, 429),
  };
}

/** The error responses every authenticated endpoint can give, in the path family's shape. */
function errorResponses(route: Route): Record<string, Record<string, unknown>> {
  const response = (status: number, description: string) => ({
    description,
    content: errorContent(route, status),
  });
  const common = {
    400: response(
      400,
      'invalid_request: malformed input, an unknown field, a bad id, a body past a bound; details.fields names each offending field',
    ),
    413: response(413, 'invalid_request: a body over 1 MiB'),
    415: response(415, 'invalid_request: a body that is not application/json'),
    503: {
      ...response(
        503,
        'service_unavailable: a backing service or model provider is busy, down or broke an answer off, or the request ran out of time under load; retry after Retry-After seconds',
      ),
      headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
    },
  };
  // Nothing to sign in with, so no 401 or sign-in throttle; a GET, so never cross-site.
  if (route.publicInformation) {
    return { 400: common[400], 503: common[503] };
  }
  // A change can meet the resource in another state, or another change of it at the same moment.
  const conflict: Record<string, Record<string, unknown>> = route.method === 'GET'
    ? {}
    : {
        409: response(
          409,
          'invalid_request: the request conflicts with the current state (details.reason says why where it can), or another change of the same resource was made at the same moment; read it again and retry',
        ),
      };
  if (route.access === 'public') {
    return {
      ...common,
      ...conflict,
      401: response(401, 'unauthorized: unknown email or wrong password (one answer for both)'),
      403: response(403, 'forbidden: a cross-site request'),
      429: rateLimitResponse(route),
    };
  }
  const forbidden =
    route.access === 'session'
      ? `forbidden: API keys are refused (${route.keyRefusal ? `details.reason ${route.keyRefusal.reason}` : 'details.required_credential session'}); a session below the ${route.role} role; a missing or wrong X-CSRF-Token or a cross-site request; an address outside the organization's IP allowlist`
      : `forbidden: the key lacks the ${route.scope} scope; a session below the ${route.role} role; a missing or wrong X-CSRF-Token or a cross-site request; an address outside the organization's IP allowlist`;
  return {
    ...common,
    ...conflict,
    401: response(
      401,
      'unauthorized: a missing, malformed, unknown or revoked key, or a key of the other environment; an invalid, expired or revoked session',
    ),
    403: response(403, forbidden),
    404: response(404, 'not_found: no such resource in your organization'),
    429: rateLimitResponse(route),
  };
}

/** An operation's own answer of one status, as the document describes it. */
function ownResponse(
  route: Route,
  status: number,
  response: OperationResponse,
  components: SchemaComponents,
): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  if (response.contentType) content[response.contentType] = { schema: { type: 'string' } };
  else if (response.schema) {
    content['application/json'] = { schema: components.json(response.schema, 'output') };
  } else if (status >= 400) Object.assign(content, errorContent(route, status));
  if (response.events) {
    const name = `${pascalCase(route.operation)}StreamEvent`;
    components.add(name, eventStreamSchema(response.events, components));
    content['text/event-stream'] = {
      schema: {
        type: 'string',
        description: `Server-sent events, each an \`event:\` line naming it and a \`data:\` line of JSON; comment lines (\`: keep-alive\`) keep a quiet connection open. The events are described by ${name}.`,
      },
      // OpenAPI 3.2's itemSchema for a sequence of events, ahead of this 3.1 document.
      'x-itemSchema': componentRef(name),
    };
  }
  return {
    description: response.description,
    ...(Object.keys(content).length > 0 ? { content } : {}),
  };
}

/** One schema per event of a stream: its name and the JSON object its data line carries. */
function eventStreamSchema(
  events: Readonly<Record<string, z.core.$ZodType>>,
  components: SchemaComponents,
): JsonSchema {
  return {
    description: 'One server-sent event, its `data` line parsed as JSON; told apart by `event`.',
    oneOf: Object.entries(events).map(([event, data]) => ({
      type: 'object',
      required: ['event', 'data'],
      properties: {
        event: { type: 'string', const: event },
        data: components.json(data, 'output'),
      },
    })),
  };
}

const pascalCase = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/**
 * An operation's own answers joined with every route's errors. Where both
 * give one status, the descriptions are joined and either body may come
 * (an SSO page, or the API's JSON refusal); a public route's own 401 (an
 * SSO page) replaces the password sign-in's.
 */
function joinedResponses(
  route: Route,
  own: Record<string, Record<string, unknown>>,
  common: Record<string, Record<string, unknown>>,
): Record<string, unknown> {
  const joined: Record<string, unknown> = { ...common };
  for (const [status, response] of Object.entries(own)) {
    const shared = common[status];
    if (!shared || (route.access === 'public' && status === '401')) {
      joined[status] = response;
      continue;
    }
    joined[status] = {
      ...shared,
      description: `${response.description}; or ${shared.description}`,
      content: {
        ...((response.content as object | undefined) ?? {}),
        ...((shared.content as object | undefined) ?? {}),
      },
    };
  }
  return joined;
}

function operationObject(
  route: Route,
  operation: Operation,
  components: SchemaComponents,
): Record<string, unknown> {
  // Ids have their prefixed shape; other path parameters (an SSO domain) are plain strings.
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
  const queryParameterList =
    operation.query === NO_QUERY ? [] : queryParameters(operation.query, components);
  const own = Object.fromEntries(
    Object.entries(operation.responses).map(([status, response]) => [
      status,
      ownResponse(route, Number(status), response, components),
    ]),
  );
  return {
    operationId:
      route.api === 'v1' ? route.operation : `${route.operation}Legacy${legacyTag(route.path)}`,
    summary: operation.summary,
    tags: [route.family],
    ...(route.api === 'legacy'
      ? {
          deprecated: true,
          description: `Legacy path; use ${route.successor}. Accepts camelCase synonyms.`,
        }
      : {}),
    ...securityOf(route),
    parameters: [...pathParameters, ...queryParameterList],
    ...(operation.body === NO_BODY
      ? {}
      : {
          requestBody: {
            required: true,
            content: {
              [route.formPost ? 'application/x-www-form-urlencoded' : 'application/json']: {
                schema: components.json(operation.body, 'input'),
              },
            },
          },
        }),
    responses: joinedResponses(route, own, errorResponses(route)),
  };
}

/** What each credential needs; public routes need none, session-only ones no key. */
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
function queryParameters(
  query: z.core.$ZodType,
  components: SchemaComponents,
): Record<string, unknown>[] {
  const schema = components.json(query, 'input');
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

/** The legacy paths' error shapes, which predate the nested one. */
const FLAT_ERROR: JsonSchema = {
  type: 'object',
  description:
    'Legacy error shapes: {error, status} for 401; {error, required_scope, current_scopes} for 403; {error, limit, reset_at, retry_after, reason} for 429; {error, status, code, details} otherwise. All carry request_id.',
  required: ['error', 'request_id'],
  properties: {
    error: { type: 'string' },
    status: { type: 'integer' },
    code: { type: 'string' },
    message: { type: 'string' },
    details: { type: 'object' },
    required_scope: { type: 'string' },
    current_scopes: { type: 'array', items: { type: 'string' } },
    required_role: { type: 'string' },
    current_role: { type: 'string' },
    limit: { type: 'number' },
    reset_at: { type: 'string' },
    retry_after: { type: 'integer' },
    reason: { type: 'string', enum: [...RATE_LIMIT_REASONS] },
    request_id: { type: 'string' },
  },
};

/**
 * The OpenAI-compatible routes' errors: OpenAI's `{ error: { message, type,
 * param, code } }`, which OpenAI clients parse, keeping the service's own
 * `details` and `request_id` beside them.
 */
const OPENAI_ERROR = {
  type: 'object',
  description:
    "An error in OpenAI's shape: `type` sorts it as OpenAI's clients do, `code` is the service's own error code",
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'type'],
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        type: {
          type: 'string',
          enum: [
            'invalid_request_error',
            'authentication_error',
            'permission_error',
            'not_found_error',
            'rate_limit_error',
            'server_error',
          ],
        },
        param: { type: ['string', 'null'] },
        details: { type: 'object' },
        request_id: { type: 'string' },
      },
    },
  },
};

/** The OpenAPI 3.1 document of every route in layers/core/http/routes/route-table.ts. */
export function buildOpenApiDocument(): Record<string, unknown> {
  registerComponentNames();
  const components = new SchemaComponents();
  for (const [schema] of COMPONENT_NAMES) components.json(schema, 'output');
  components.add('FlatError', FLAT_ERROR);
  components.add('OpenAiError', OPENAI_ERROR);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    const operation = OPERATIONS_BY_FAMILY[route.family]?.[route.operation];
    if (!operation) throw new Error(`No operation ${route.operation} in ${route.family}`);
    paths[route.path] ??= {};
    paths[route.path] = {
      ...paths[route.path],
      [route.method.toLowerCase()]: operationObject(route, operation, components),
    };
  }
  const usedTags = [...new Set(ROUTES.map((route) => route.family))];
  return withReaderText({
    openapi: '3.1.0',
    info: {
      title: 'Agent Query Service API',
      version: '1.0.0',
      description:
        "Question-answering agents over an organization's own data. Every resource and error has a named schema under components.schemas; errors of the /api/v1 paths are one shape per error code (ApiError). Generated from the service's route table and request and response schemas by `npm run openapi`.",
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: 'http://127.0.0.1:3000', description: 'npm start (local)' }],
    tags: usedTags.map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? '' })),
    components: {
      headers: Object.fromEntries(
        Object.entries(RATE_LIMIT_HEADERS).map(([name, { description, ...schema }]) => [
          name,
          { description, schema },
        ]),
      ),
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key, svcsk_live_… or svcsk_test_…',
        },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'svc_session',
          description:
            'The web session set by POST /api/v1/auth/login; cookie-authenticated POST, PUT and DELETE also send X-CSRF-Token',
        },
      },
      schemas: components.schemas,
    },
    paths,
  });
}
