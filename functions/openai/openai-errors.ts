/** OpenAI's error `type` for each status, as its clients sort errors. */
function errorTypeOf(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/**
 * An error body in OpenAI's shape, `{ error: { message, type, param, code } }`,
 * kept a superset of the service's own (`code`, `details` and `request_id`
 * stay), so it is both what OpenAI clients parse and what the API document
 * says every /api/v1 error is.
 */
export function openAiErrorBody(
  nested: { readonly error?: Record<string, unknown> } & Record<string, unknown>,
  status: number,
): Record<string, unknown> {
  return {
    ...nested,
    error: { ...nested.error, type: errorTypeOf(status), param: null },
  };
}

/**
 * Every error answer of a handler (the middlewares' 401 and 429 as well as
 * the operations' own) reshaped for OpenAI clients; successes untouched.
 */
export function withOpenAiErrors<
  Event,
  Context,
  Result extends { readonly statusCode: number; readonly body: unknown },
>(
  handler: (event: Event, context: Context) => Promise<Result>,
): (event: Event, context: Context) => Promise<Result> {
  return async (event, context) => {
    const result = await handler(event, context);
    if (result.statusCode < 400 || typeof result.body !== 'string') return result;
    try {
      const body = JSON.parse(result.body) as Record<string, unknown>;
      return { ...result, body: JSON.stringify(openAiErrorBody(body, result.statusCode)) };
    } catch {
      return result;
    }
  };
}
