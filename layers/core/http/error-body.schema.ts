import * as z from 'zod/mini';
import { RATE_LIMIT_REASONS } from '../domain/errors';

/**
 * The `/api/v1` error bodies (error-body.ts), one schema per error code with
 * the details that code carries, for the OpenAPI document. Details keep room
 * for more keys: a client reads the ones it knows and ignores the rest.
 */

const describe = <T extends z.ZodMiniType>(schema: T, description: string): T =>
  schema.check(z.describe(description)) as T;

/** One offending input field of a 400. */
export const fieldIssue = z.object({
  path: describe(
    z.string(),
    'Dotted path of the field in the body or query, e.g. `data_source_ids.0`; `(body)` or `(query)` for the whole input',
  ),
  message: z.string(),
});

export const invalidRequestDetails = z.looseObject({
  fields: z.optional(describe(z.array(fieldIssue), 'Every field that failed validation')),
  unknown_fields: z.optional(
    describe(z.array(z.string()), 'Fields or query parameters the endpoint does not take'),
  ),
  allowed_methods: z.optional(
    describe(z.array(z.string()), 'A 405: the methods the path serves (also in `Allow`)'),
  ),
  limit_bytes: z.optional(describe(z.int(), 'A 413: the largest body accepted, in bytes')),
  reason: z.optional(
    describe(
      z.string(),
      'A 409: why the request conflicts with the current state, e.g. version_conflict, built_in_data_source, domain_taken, txt_record_not_found, connector_unavailable, connector_app_not_configured',
    ),
  ),
  current_version: z.optional(
    describe(z.int(), 'A version_conflict: the version the article is at now'),
  ),
  agent_ids: z.optional(
    describe(z.array(z.string()), 'A 409: the agents that still use the resource'),
  ),
});

export const FORBIDDEN_REASONS = [
  'cross_site',
  'foreign_origin',
  'csrf_token_missing',
  'csrf_token_mismatch',
  'session_required',
  'admin_role_needs_session',
  'ip_not_allowed',
  'agents_restricted',
  'no_password',
  'plan_required',
  'verified_domain_required',
  'sso_required',
  'unauthorized_domain',
] as const;

export const forbiddenDetails = z.looseObject({
  reason: z.optional(z.enum(FORBIDDEN_REASONS)),
  required_scope: z.optional(describe(z.string(), 'The scope the endpoint needs of an API key')),
  current_scopes: z.optional(describe(z.array(z.string()), "The key's scopes")),
  required_role: z.optional(describe(z.string(), 'The role the endpoint needs')),
  current_role: z.optional(describe(z.string(), "The signed-in user's role")),
  required_credential: z.optional(
    describe(z.enum(['session']), 'The endpoint takes a signed-in session, never an API key'),
  ),
  source_ip: z.optional(
    describe(
      z.string(),
      'ip_not_allowed: the address the request came from, as the service saw it',
    ),
  ),
  required_plan: z.optional(z.string()),
  current_plan: z.optional(z.string()),
  sso_start_url: z.optional(describe(z.string(), 'sso_required: where to sign in instead')),
});

export const rateLimitDetails = z.looseObject({
  reason: describe(
    z.enum([...RATE_LIMIT_REASONS, 'model_provider']),
    "Which limit refused: model_provider when the provider behind the organization's own model key is rate limiting it",
  ),
  limit: z.optional(describe(z.number(), 'The limit that was reached')),
  reset_at: z.optional(describe(z.iso.datetime(), 'When the limit has room again (ISO 8601 UTC)')),
  retry_after: describe(z.int(), 'Seconds to wait before retrying (also in `Retry-After`)'),
});

export const serviceUnavailableDetails = z.looseObject({
  retry_after: describe(z.int(), 'Seconds to wait before retrying (also in `Retry-After`)'),
});

export const modelProviderRefusedDetails = z.looseObject({
  reason: z.optional(z.enum(['model_key_missing', 'model_key_unreadable'])),
  model_key_id: z.optional(z.string()),
});

const noDetails = z.looseObject({});

const requestId = describe(
  z.string().check(z.regex(/^req_/)),
  'The request id (also in `X-Request-Id`): quote it when contacting support',
);

/** The nested `/api/v1` error body for one code and its details. */
function errorBody<Code extends string>(code: Code, details: z.core.$ZodType) {
  return z.object({
    error: z.object({ code: z.literal(code), message: z.string(), details }),
    request_id: requestId,
  });
}

/** Every `/api/v1` error body, by the component name the OpenAPI document gives it. */
export const ERROR_BODIES = {
  InvalidRequestError: errorBody('invalid_request', invalidRequestDetails),
  UnauthorizedError: errorBody('unauthorized', noDetails),
  ForbiddenError: errorBody('forbidden', forbiddenDetails),
  NotFoundError: errorBody('not_found', noDetails),
  ModelProviderRefusedError: errorBody('model_provider_refused', modelProviderRefusedDetails),
  RateLimitError: errorBody('rate_limit_exceeded', rateLimitDetails),
  InternalError: errorBody('internal_error', noDetails),
  ServiceUnavailableError: errorBody('service_unavailable', serviceUnavailableDetails),
} as const;

export type ErrorBodyName = keyof typeof ERROR_BODIES;

/** Which error body each status answers with (error-responses.ts maps errors to statuses). */
export const ERROR_BODY_OF_STATUS: Readonly<Record<number, ErrorBodyName>> = {
  400: 'InvalidRequestError',
  401: 'UnauthorizedError',
  403: 'ForbiddenError',
  404: 'NotFoundError',
  405: 'InvalidRequestError',
  409: 'InvalidRequestError',
  413: 'InvalidRequestError',
  415: 'InvalidRequestError',
  424: 'ModelProviderRefusedError',
  429: 'RateLimitError',
  500: 'InternalError',
  503: 'ServiceUnavailableError',
};

/** Any `/api/v1` error body, told apart by `error.code`. */
export const anyErrorBody = z.union(Object.values(ERROR_BODIES));
