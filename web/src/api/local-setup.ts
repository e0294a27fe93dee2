import type { components } from './schema';

/**
 * The first administrator's two routes, which only the local runtime
 * has (lib/local/first-administrator.ts), so docs/openapi.json, which
 * describes the API everywhere, does not list them. Their shapes, in the
 * form openapi-typescript writes: the session they answer is sign-in's.
 */
type SignedIn = components['schemas']['Session'];
type Refused = { content: { 'application/json': components['schemas']['ApiError'] } };

export interface LocalSetupPaths {
  '/api/v1/setup': {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: { query?: never; header?: never; path?: never; cookie?: never };
      requestBody?: never;
      responses: {
        200: {
          headers: Record<string, unknown>;
          content: { 'application/json': { available: boolean } };
        };
        404: Refused & { headers: Record<string, unknown> };
      };
    };
  };
  '/api/v1/setup/administrator': {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    post: {
      parameters: { query?: never; header?: never; path?: never; cookie?: never };
      requestBody: {
        content: { 'application/json': { email: string; name: string; password: string } };
      };
      responses: {
        200: { headers: Record<string, unknown>; content: { 'application/json': SignedIn } };
        400: Refused & { headers: Record<string, unknown> };
        404: Refused & { headers: Record<string, unknown> };
        409: Refused & { headers: Record<string, unknown> };
      };
    };
  };
}
