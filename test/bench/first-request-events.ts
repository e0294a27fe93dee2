/**
 * The first request the cold-start section sends each function after its
 * init: one its handler answers without the network, so that the figure is
 * the request path's own first run (middlewares, validation, logging,
 * whatever is built on first use along it), not a round trip to a service
 * the bench does not have. An HTTP family gets its first route, without
 * credentials (a 401: authentication runs, nothing is read); a queue worker
 * a message it drops or has nothing to do with. Functions fed by neither (the
 * scheduler, the stream publisher, the index bootstrap) get none.
 */

import { ROUTES } from '../../layers/core/http/routes/route-table';
import { toApiGatewayEvent } from '../../lib/local/apigw-event';
import { toSqsEvent } from '../../lib/local/background-workers';

/** What each queue worker is sent: S3's test event, or a message that is not one of its own. */
const QUEUE_MESSAGES: Readonly<Record<string, unknown>> = {
  'ingestion-worker': { Event: 's3:TestEvent', Service: 'Amazon S3' },
  'sync-worker': { kind: 'not-a-sync-message' },
  'webhook-dispatcher': { kind: 'not-a-delivery' },
  'eval-worker': { kind: 'not-an-evaluation' },
};

/** The event (JSON) for `functionName`'s first request, or `undefined` when it takes none here. */
export function firstRequestEvent(functionName: string): string | undefined {
  const message = QUEUE_MESSAGES[functionName];
  if (message !== undefined) {
    return JSON.stringify(
      toSqsEvent(
        [
          {
            messageId: 'bench-1',
            receiptHandle: 'bench',
            body: message,
            receiveCount: 1,
            sentAt: 0,
          },
        ],
        `bench-${functionName}`,
      ),
    );
  }
  if (functionName === 'fallback') return httpEvent('GET', '/api/v1/no-such-resource', null);
  const route = ROUTES.find((candidate) => candidate.family === functionName);
  if (!route) return undefined;
  // Path parameters stand in as `bench`: the request is refused before any is read.
  return httpEvent(route.method, route.path.replace(/\{[^}]+\}/g, 'bench'), route);
}

function httpEvent(method: string, path: string, route: (typeof ROUTES)[number] | null): string {
  const body = method === 'GET' || method === 'DELETE' ? Buffer.alloc(0) : Buffer.from('{}');
  return JSON.stringify(
    toApiGatewayEvent(
      {
        method,
        url: path,
        headers: {
          host: 'api.bench.example',
          'content-type': 'application/json',
          'user-agent': 'cold-start-bench',
        },
        body,
        sourceIp: '192.0.2.10',
      },
      route,
      {},
      'prod',
    ),
  );
}
