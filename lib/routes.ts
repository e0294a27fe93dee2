import type { Route } from '../layers/core/http/route';
import { AGENTS_ROUTES } from './routes/agents';
import { ANALYTICS_ROUTES } from './routes/analytics';
import { AUTH_ROUTES } from './routes/auth';
import { CONNECTIONS_ROUTES } from './routes/connections';
import { DATA_SOURCES_ROUTES } from './routes/data-sources';
import { EVALS_ROUTES } from './routes/evals';
import { INTERACTIONS_ROUTES } from './routes/interactions';
import { KB_ROUTES } from './routes/kb';
import { MODEL_KEYS_ROUTES } from './routes/model-keys';
import { ORGANIZATIONS_ROUTES } from './routes/organizations';
import { QUERY_ROUTES } from './routes/query';
import { SEARCH_ROUTES } from './routes/search';
import { SSO_ROUTES } from './routes/sso';
import { USERS_ROUTES } from './routes/users';
import { WEBHOOKS_ROUTES } from './routes/webhooks';

export { INVITATION_ACCEPT_PATH } from '../layers/core/http/auth-paths';

/**
 * THE route table: every endpoint, the Lambda (family) that serves it, what
 * it requires of each credential — the scope an API key needs (D9) and the
 * least role a signed-in user needs (D13), or that it takes a session only
 * or no credential at all — and its path family (D5, D7). The CDK API construct
 * builds API Gateway from it and the local gateway routes by it, so the two
 * cannot drift. Legacy rows name their v1 successor (D7, D8).
 *
 * Each family's rows live in lib/routes/<family>.ts and its function
 * imports only those (issue 8: a Lambda bundles its own routes, not every
 * family's); this table is their union, in this order.
 */
export const ROUTES: readonly Route[] = [
  ...AGENTS_ROUTES,
  ...DATA_SOURCES_ROUTES,
  ...WEBHOOKS_ROUTES,
  ...QUERY_ROUTES,
  ...SEARCH_ROUTES,
  ...INTERACTIONS_ROUTES,
  ...ANALYTICS_ROUTES,
  ...USERS_ROUTES,
  ...ORGANIZATIONS_ROUTES,
  ...AUTH_ROUTES,
  ...SSO_ROUTES,
  ...CONNECTIONS_ROUTES,
  ...KB_ROUTES,
  ...MODEL_KEYS_ROUTES,
  ...EVALS_ROUTES,
];

/** The Lambda families, one function each, in the order they appear in the table. */
export const FAMILIES: readonly string[] = [...new Set(ROUTES.map((route) => route.family))];
