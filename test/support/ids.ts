import { ulid } from 'ulid';

/** D1: a well-formed id (`<prefix>_<ulid>` in lower case) that nothing has. */
export function unknownId(
  prefix:
    | 'agt'
    | 'ds'
    | 'org'
    | 'key'
    | 'wh'
    | 'dlv'
    | 'int'
    | 'sess'
    | 'chk'
    | 'doc'
    | 'usr'
    | 'grp'
    | 'kb'
    | 'mk'
    | 'eval',
): string {
  return `${prefix}_${ulid().toLowerCase()}`;
}

/**
 * A route's path with ids of the right kinds that do not exist (and a
 * domain for the SSO domain routes), plus the query parameters a GET
 * requires (analytics needs its dates, D3): for tests that call every route.
 */
export function concretePath(path: string): string {
  const prefix = /agents|ai-agent-managers/.test(path)
    ? 'agt'
    : /\/kb(\/|$)/.test(path)
      ? 'kb'
      : /model-keys/.test(path)
        ? 'mk'
        : /\/evals(\/|$)/.test(path)
          ? 'eval'
          : /groups/.test(path)
            ? 'grp'
            : /organizations/.test(path)
              ? 'org'
              : /keys/.test(path)
                ? 'key'
                : /users/.test(path)
                  ? 'usr'
                  : /webhooks/.test(path)
                    ? 'wh'
                    : /interactions/.test(path)
                      ? 'int'
                      : /conversations/.test(path)
                        ? 'sess'
                        : 'ds';
  const query =
    path === '/api/v1/analytics'
      ? '?start_date=2026-11-01&end_date=2026-11-30'
      : path === '/api/analytics/charts/dashboard'
        ? '?startDate=2026-11-01&endDate=2026-11-30'
        : '';
  const concrete = path
    .replace('{id}', unknownId(prefix))
    .replace('{delivery_id}', unknownId('dlv'))
    .replace('{document_id}', unknownId('doc'))
    .replace('{user_id}', unknownId('usr'))
    .replace('{domain}', 'acme.example')
    .replace('{version}', '1');
  return `${concrete}${query}`;
}
