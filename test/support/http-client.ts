import { expectDocumented } from './openapi-contract';

/**
 * A small fetch wrapper for tests: JSON in, status/headers/JSON out. Every
 * answer of an `/api/v1` route is held to docs/openapi.json on the way
 * (openapi-contract.ts): a drift fails the test that met it.
 */
export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
  readonly text: string;
  /** The address that answered (after redirects), when the request went through fetch. */
  readonly url?: string;
}

export interface ApiRequest {
  readonly method?: string;
  readonly key?: string;
  readonly body?: unknown;
  /** A raw body sent as-is (bypasses JSON encoding). */
  readonly rawBody?: string | Buffer;
  readonly headers?: Record<string, string>;
  /** `manual` keeps a redirect as the answer (fetch follows by default). */
  readonly redirect?: 'follow' | 'manual';
}

export async function api(
  baseUrl: string,
  path: string,
  request: ApiRequest = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...request.headers };
  if (request.key) headers.authorization = `Bearer ${request.key}`;
  let body: string | Buffer | undefined;
  if (request.rawBody !== undefined) body = request.rawBody;
  else if (request.body !== undefined) {
    body = JSON.stringify(request.body);
    headers['content-type'] ??= 'application/json';
  }
  const url = new URL(`${baseUrl}${path}`);
  const response = await fetch(url, {
    method: request.method ?? 'GET',
    headers,
    ...(body !== undefined ? { body } : {}),
    ...(request.redirect ? { redirect: request.redirect } : {}),
  });
  const text = await response.text();
  expectDocumented({
    method: request.method ?? 'GET',
    // As sent: the URL parser resolves `.` and `..` segments before the service sees them.
    path: `${url.pathname}${url.search}`,
    status: response.status,
    headers: response.headers,
    text,
  });
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  return {
    status: response.status,
    headers: response.headers,
    body: parsed,
    text,
    url: response.url,
  };
}

/** Narrows an unknown JSON body for assertions. */
export function json(response: ApiResponse): Record<string, any> {
  return (response.body ?? {}) as Record<string, any>;
}
