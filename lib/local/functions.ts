import type { MiddyfiedHandler } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { handler as agents } from '../../functions/agents/handler';
import { handler as analytics } from '../../functions/analytics/handler';
import { handler as auth } from '../../functions/auth/handler';
import { handler as connections } from '../../functions/connections/handler';
import { handler as dataSources } from '../../functions/data-sources/handler';
import { handler as evalWorker } from '../../functions/eval-worker/handler';
import { handler as evals } from '../../functions/evals/handler';
import { handler as fallback } from '../../functions/fallback/handler';
import { handler as ingestionWorker } from '../../functions/ingestion-worker/handler';
import { handler as interactions } from '../../functions/interactions/handler';
import { handler as kb } from '../../functions/kb/handler';
import { handler as mcp } from '../../functions/mcp/handler';
import { handler as modelKeys } from '../../functions/model-keys/handler';
import { handler as openai } from '../../functions/openai/handler';
import { handler as organizations } from '../../functions/organizations/handler';
import { handler as query } from '../../functions/query/handler';
import { handler as search } from '../../functions/search/handler';
import { handler as sso } from '../../functions/sso/handler';
import { handler as syncWorker } from '../../functions/sync-worker/handler';
import { handler as users } from '../../functions/users/handler';
import { handler as webhookDispatcher } from '../../functions/webhook-dispatcher/handler';
import { handler as webhooks } from '../../functions/webhooks/handler';
import type { HttpContext } from '../../layers/core/http/request-state';
import { API_GATEWAY_TIMEOUT_MS } from './apigw-event';
import type { ProxyHandler } from './gateway';

/**
 * Calls a handler export as the Lambda runtime does: a plain context (the
 * request-context middleware adds the request state to it) and an abort
 * signal that fires when API Gateway would give up.
 */
export const asProxyHandler =
  (
    handler: MiddyfiedHandler<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>,
  ): ProxyHandler =>
  async (event, context) => {
    const result = await handler(event, context as HttpContext, {
      signal: AbortSignal.timeout(API_GATEWAY_TIMEOUT_MS),
    });
    if (!result) throw new Error('The handler returned no response');
    return result;
  };

/** The handler export of each family's Lambda, as the local gateway calls them. */
export const LOCAL_FUNCTIONS: Readonly<Record<string, ProxyHandler>> = {
  agents: asProxyHandler(agents),
  'data-sources': asProxyHandler(dataSources),
  webhooks: asProxyHandler(webhooks),
  // Streaming-capable (D19): the gateway finds its streaming entry on the export itself.
  query,
  search: asProxyHandler(search),
  interactions: asProxyHandler(interactions),
  analytics: asProxyHandler(analytics),
  users: asProxyHandler(users),
  organizations: asProxyHandler(organizations),
  auth: asProxyHandler(auth),
  sso: asProxyHandler(sso),
  connections: asProxyHandler(connections),
  kb: asProxyHandler(kb),
  'model-keys': asProxyHandler(modelKeys),
  evals: asProxyHandler(evals),
  mcp: asProxyHandler(mcp),
  // Streaming-capable, as query is.
  openai,
};

/** functions/sync-worker, as the local sync-jobs consumer calls it. */
export const SYNC_WORKER = syncWorker;

/** functions/eval-worker, as the local evaluation-runs consumer calls it (issue 11 item 5). */
export const EVAL_WORKER = evalWorker;

/** functions/ingestion-worker, as the local ingestion consumer calls it (S3's events in the cloud). */
export const INGESTION_WORKER = ingestionWorker;

/** functions/webhook-dispatcher, as the local deliveries consumer calls it. */
export const WEBHOOK_DISPATCHER = webhookDispatcher;

export const FALLBACK_FUNCTION: ProxyHandler = asProxyHandler(fallback);
