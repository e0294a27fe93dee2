import createClient, { type Client } from 'openapi-fetch';
import { ApiError } from './api-error';
import type { LocalSetupPaths } from './local-setup';
import type { paths } from './schema';

export type ApiPaths = paths & LocalSetupPaths;
export type ApiClient = Client<ApiPaths>;

/** A cookie-authenticated change must carry the session's CSRF token. */
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** GETs that change state (starting a connector sign-in) and so take the token too. */
const STATE_CHANGING_GETS = new Set(['/api/v1/data-sources/{id}/oauth/start']);
/** Where a 401 is an answer for the page to show (wrong password, no session yet), not a session that ended. */
const SIGN_IN_PATHS = new Set([
  '/api/v1/auth/login',
  '/api/v1/auth/me',
  '/api/v1/auth/invitations/accept',
  '/api/v1/setup/administrator',
]);

export interface ApiClientOptions {
  /** '' in the browser: the API is on the console's own origin. */
  readonly baseUrl?: string;
  readonly fetch?: (request: Request) => Promise<Response>;
  /** The session's CSRF token, kept in memory only (re-read with `me` after a reload). */
  readonly csrfToken: () => string | null;
  /** A 401 from anywhere but signing in: the session ended (expired, revoked, signed out elsewhere). */
  readonly onUnauthorized: () => void;
}

/**
 * The console's one API client (CONSOLE.md §4): typed from
 * docs/openapi.json, so a change to the API that breaks a screen fails the
 * typecheck; screens never call `fetch` themselves.
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const client = createClient<ApiPaths>({
    baseUrl: options.baseUrl ?? '',
    credentials: 'same-origin',
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  client.use({
    onRequest({ request, schemaPath }) {
      const changes =
        UNSAFE_METHODS.has(request.method) ||
        (request.method === 'GET' && STATE_CHANGING_GETS.has(schemaPath));
      if (!changes) return undefined;
      const token = options.csrfToken();
      if (token) request.headers.set('X-CSRF-Token', token);
      return request;
    },
    onResponse({ response, schemaPath }) {
      if (response.status === 401 && !SIGN_IN_PATHS.has(schemaPath)) options.onUnauthorized();
      return undefined;
    },
  });
  return client;
}

/**
 * A call's data, or an `ApiError` people can act on (CONSOLE.md §5):
 * openapi-fetch returns `{ data, error, response }` and throws only when no
 * response came.
 */
export async function unwrap<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await call;
  } catch (cause) {
    throw ApiError.unreachable(cause);
  }
  if (!result.response.ok) throw ApiError.from(result.error, result.response);
  return result.data as T;
}
