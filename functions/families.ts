import { family as agents } from './agents/family';
import { family as analytics } from './analytics/family';
import { family as auth } from './auth/family';
import { family as connections } from './connections/family';
import { family as dataSources } from './data-sources/family';
import type { EndpointFamily } from './endpoint-family';
import { family as evals } from './evals/family';
import { family as interactions } from './interactions/family';
import { family as kb } from './kb/family';
import { family as mcp } from './mcp/family';
import { family as modelKeys } from './model-keys/family';
import { family as openai } from './openai/family';
import { family as organizations } from './organizations/family';
import { family as query } from './query/family';
import { family as search } from './search/family';
import { family as sso } from './sso/family';
import { family as users } from './users/family';
import { family as webhooks } from './webhooks/family';

/**
 * THE list of endpoint families: one Lambda each, declared in its own
 * folder (functions/<name>/family.ts). The CDK stack builds and grants their
 * functions from it, the HTTP API its methods, the OpenAPI generator its
 * operations and the one-machine gateway its handlers. Adding a family is a
 * folder and a line here (docs/architecture.md, "Adding an endpoint family").
 *
 * In the order of the route table (layers/core/http/routes/route-table.ts),
 * whose rows are these families' routes: a test holds the two together.
 * Read by lib/ only; never imported by anything a Lambda runs.
 */
export const ENDPOINT_FAMILIES: readonly EndpointFamily[] = [
  agents,
  dataSources,
  webhooks,
  query,
  search,
  interactions,
  analytics,
  users,
  organizations,
  auth,
  sso,
  connections,
  kb,
  modelKeys,
  evals,
  mcp,
  openai,
];
