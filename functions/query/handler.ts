import { Logger } from '@aws-lambda-powertools/logger';
import { publicOriginOf } from '../../layers/core/http/console-url';
import { nestedErrorBody } from '../../layers/core/http/error-body';
import { httpFunction } from '../../layers/core/http/http-function';
import { errorViewOf } from '../../layers/core/http/middlewares/error-responses';
import { operationsWith } from '../../layers/core/http/operation';
import { jsonResponse } from '../../layers/core/http/responses';
import { QUERY_ROUTES } from '../../layers/core/http/routes/query';
import { type ServerSentEvent, sseStream } from '../../layers/core/http/sse';
import { type StreamableResult, streamable } from '../../layers/core/http/streaming';
import {
  MetricUnit,
  publishRecordedMetrics,
  serviceMetrics,
} from '../../layers/core/observability/metrics';
import {
  answerQuery,
  type QueryEvent,
  type QueryResult,
} from '../../layers/core/use-cases/query/answer-query';
import { queryBody, queryResult, queryStreamEvents } from './query.schema';
import { dependencies, type QueryDependencies } from './wiring';

const operation = operationsWith<QueryDependencies>();

const logger = new Logger({ serviceName: 'svc-query' });

/** `sources`, then `delta`s, then `done` (the result without repeating every chunk's text), or `error`. */
async function* serverSentEvents(
  events: AsyncIterable<QueryEvent>,
  requestId: string,
  abandoned: AbortSignal,
): AsyncGenerator<ServerSentEvent> {
  try {
    for await (const event of events) {
      if (event.type === 'sources') yield { event: 'sources', data: { sources: event.sources } };
      else if (event.type === 'delta') yield { event: 'delta', data: { text: event.text } };
      else {
        recordQueryMetrics(event.result);
        yield { event: 'done', data: withoutChunkTexts(event.result) };
      }
    }
  } catch (error) {
    // The client left and the answer was stopped for it: nobody to tell, nothing to log.
    if (abandoned.aborted) return;
    const view = errorViewOf(error, logger, requestId);
    yield { event: 'error', data: nestedErrorBody(view, requestId) };
  } finally {
    // A stream outlives the middleware chain, whose end publishes everything else.
    publishRecordedMetrics();
  }
}

/** What every answered query adds to the function's metrics (published when the request ends). */
function recordQueryMetrics(result: QueryResult): void {
  const metrics = serviceMetrics();
  metrics.addMetric('Queries', MetricUnit.Count, 1);
  metrics.addMetric('QueryLatency', MetricUnit.Milliseconds, result.metadata.latency_ms);
  metrics.addMetric('TokensInput', MetricUnit.Count, result.metadata.tokens_input);
  metrics.addMetric('TokensOutput', MetricUnit.Count, result.metadata.tokens_output);
  metrics.addMetric('CostUsd', MetricUnit.NoUnit, result.metadata.cost_usd);
  if (result.sources.length === 0) metrics.addMetric('QueriesWithoutSources', MetricUnit.Count, 1);
}

function withoutChunkTexts(result: QueryResult): Record<string, unknown> {
  return { ...result, sources: result.sources.map(({ chunk_text: _, ...source }) => source) };
}

/** Query (spec: POST /api/v1/query; legacy /api/chat), streamed when asked. */
export const operations = {
  query: operation({
    summary: 'Ask an agent: an answer with cited sources (stream: true gives text/event-stream)',
    body: queryBody,
    responses: {
      200: {
        description:
          'The answer with its cited sources; with `stream: true`, server-sent events: `sources`, then `delta`s, then `done`, or `error`',
        schema: queryResult,
        events: queryStreamEvents,
      },
      // An agent answering with the organization's own model key.
      424: {
        description:
          "model_provider_refused: the organization's model key was refused by its provider (a bad or revoked key, no access to the model, quota used up), with the provider's reason; or the key is gone",
      },
      503: {
        description: 'The model provider is unavailable, or broke the answer off',
      },
    },
    async handle({ body, principal, client, deps, requestId }) {
      const { stream } = body;
      // A streamed answer whose client goes away is stopped at once (the model call aborted),
      // not left running until the model finishes or falls silent.
      const abandoned = new AbortController();
      const events = answerQuery(deps, principal, body, {
        linkOrigin: publicOriginOf(deps, client),
        signal: abandoned.signal,
      });
      if (!stream) {
        let result: QueryResult | undefined;
        for await (const event of events) if (event.type === 'done') result = event.result;
        if (result) recordQueryMetrics(result);
        return jsonResponse(200, result);
      }
      // The first event (sources) is awaited before answering, so a bad agent id is still a plain 4xx.
      const iterator = events[Symbol.asyncIterator]();
      const first = await iterator.next();
      const rest: AsyncIterable<QueryEvent> = {
        async *[Symbol.asyncIterator]() {
          if (!first.done) yield first.value;
          for (let next = await iterator.next(); !next.done; next = await iterator.next())
            yield next.value;
        },
      };
      const response: StreamableResult = {
        statusCode: 200,
        headers: { 'Content-Type': 'text/event-stream; charset=utf-8', 'X-Accel-Buffering': 'no' },
        body: sseStream(serverSentEvents(rest, requestId, abandoned.signal), {
          onUnexpectedError: (error) => logger.error('stream', { error: error as Error }),
          onAbandoned: () => abandoned.abort(),
          requestId,
        }),
      };
      // The middleware chain only touches status and headers; the body stays a stream.
      return response as unknown as ReturnType<typeof jsonResponse>;
    },
  }),
};

export const handler = streamable(
  httpFunction({
    family: 'query',
    routes: QUERY_ROUTES,
    operations,
    dependencies,
  }) as unknown as Parameters<typeof streamable>[0],
);
