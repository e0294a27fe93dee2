import type { Route } from '../route';
import { AGENTS_ROUTES } from './agents';
import { ANALYTICS_ROUTES } from './analytics';
import { AUTH_ROUTES } from './auth';
import { CONNECTIONS_ROUTES } from './connections';
import { DATA_SOURCES_ROUTES } from './data-sources';
import { EVALS_ROUTES } from './evals';
import { INTERACTIONS_ROUTES } from './interactions';
import { KB_ROUTES } from './kb';
import { MCP_ROUTES } from './mcp';
import { MODEL_KEYS_ROUTES } from './model-keys';
import { OPENAI_ROUTES } from './openai';
import { ORGANIZATIONS_ROUTES } from './organizations';
import { QUERY_ROUTES } from './query';
import { SEARCH_ROUTES } from './search';
import { SSO_ROUTES } from './sso';
import { USERS_ROUTES } from './users';
import { WEBHOOKS_ROUTES } from './webhooks';

export { INVITATION_ACCEPT_PATH } from '../auth-paths';

/**
 * THE route table: every endpoint, the Lambda (family) that serves it, what
 * it requires of each credential — the scope an API key needs and the
 * least role a signed-in user needs, or that it takes a session only
 * or no credential at all — and its path family. The CDK API construct
 * builds API Gateway from it and the local gateway routes by it, so the two
 * cannot drift. Legacy rows name their v1 successor.
 *
 * Each family's rows live in layers/core/http/routes/<family>.ts and its function
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
  ...MCP_ROUTES,
  ...OPENAI_ROUTES,
];

/** The Lambda families, one function each, in the order they appear in the table. */
export const FAMILIES: readonly string[] = [...new Set(ROUTES.map((route) => route.family))];
