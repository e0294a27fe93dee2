import { type ApiResponse, json } from './http-client';

/** D6: every response carries `X-Request-Id: req_…`. */
export function requestIdOf(response: ApiResponse): string {
  const requestId = response.headers.get('x-request-id');
  expect(requestId).toMatch(/^req_[0-9a-z]{26}$/);
  return requestId ?? '';
}

/** Spec, Transport: HSTS with max-age 31536000 on every response, errors included. */
export function expectSecurityHeaders(response: ApiResponse): void {
  expect(response.headers.get('strict-transport-security')).toMatch(/(^|;)\s*max-age=31536000\b/);
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  requestIdOf(response);
}

/** The OpenAI-compatible routes answer errors in OpenAI's shape too: `type` and `param` besides ours. */
const OPENAI_COMPATIBLE_PATHS = /^\/api\/v1\/openai\//;

/**
 * D5 nested shape (`/api/v1`, unknown versions): exactly
 * `{ error: { code, message, details }, request_id }`, with `request_id` equal
 * to the `X-Request-Id` header (under `/api/v1/openai/`, `error` also has
 * OpenAI's `type` and `param`). Returns `error` for further checks.
 */
export function expectNestedError(
  response: ApiResponse,
  status: number,
  code: string,
): { code: string; message: string; details: Record<string, any> } {
  const openAiCompatible =
    response.url !== undefined && OPENAI_COMPATIBLE_PATHS.test(new URL(response.url).pathname);
  expect({ status: response.status, body: response.body }).toEqual({
    status,
    body: {
      error: {
        code,
        message: expect.any(String),
        details: expect.any(Object),
        ...(openAiCompatible ? { type: expect.any(String), param: null } : {}),
      },
      request_id: expect.any(String),
    },
  });
  const body = json(response);
  expect(body.request_id).toBe(requestIdOf(response));
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return body.error;
}

/**
 * D5 flat shapes (legacy `/api/...`): `error` is a string and `request_id`
 * repeats the header. Returns the body for the status-specific fields.
 */
export function expectFlatError(response: ApiResponse, status: number): Record<string, any> {
  expect(response.status).toBe(status);
  const body = json(response);
  expect(typeof body.error).toBe('string');
  expect(body.request_id).toBe(requestIdOf(response));
  return body;
}

/** The fields a 400 names (D17: "violations are 400 naming the field"). */
export function fieldPaths(error: { details?: Record<string, any> }): string[] {
  return ((error.details?.fields ?? []) as Array<{ path: string }>).map((field) => field.path);
}
