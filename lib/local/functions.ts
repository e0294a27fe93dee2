import type { MiddyfiedHandler } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { FamilyEntry } from '../../functions/endpoint-family';
import { handler as evalWorker } from '../../functions/eval-worker/handler';
import { handler as fallback } from '../../functions/fallback/handler';
import { ENDPOINT_FAMILIES } from '../../functions/families';
import { handler as ingestionWorker } from '../../functions/ingestion-worker/handler';
import { handler as syncWorker } from '../../functions/sync-worker/handler';
import { handler as webhookDispatcher } from '../../functions/webhook-dispatcher/handler';
import type { HttpContext } from '../../layers/core/http/request-state';
import { type StreamableHandlerExport, streamingHandlerOf } from '../../layers/core/http/streaming';
import { API_GATEWAY_TIMEOUT_MS } from './apigw-event';
import type { ProxyHandler } from './gateway';

function isStreamable(handler: FamilyEntry['handler']): handler is StreamableHandlerExport {
  return streamingHandlerOf(handler) !== undefined;
}

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

/**
 * The handler export of each endpoint family's Lambda (functions/families.ts),
 * as the local gateway calls them. A family whose routes stream exports a
 * handler the gateway calls as it is: it finds the streaming entry on it.
 */
export const LOCAL_FUNCTIONS: Readonly<Record<string, ProxyHandler>> = Object.fromEntries(
  ENDPOINT_FAMILIES.map((family) => {
    const { handler } = family.entry();
    return [family.name, isStreamable(handler) ? handler : asProxyHandler(handler)];
  }),
);

/** functions/sync-worker, as the local sync-jobs consumer calls it. */
export const SYNC_WORKER = syncWorker;

/** functions/eval-worker, as the local evaluation-runs consumer calls it (issue 11 item 5). */
export const EVAL_WORKER = evalWorker;

/** functions/ingestion-worker, as the local ingestion consumer calls it (S3's events in the cloud). */
export const INGESTION_WORKER = ingestionWorker;

/** functions/webhook-dispatcher, as the local deliveries consumer calls it. */
export const WEBHOOK_DISPATCHER = webhookDispatcher;

export const FALLBACK_FUNCTION: ProxyHandler = asProxyHandler(fallback);
