import { Logger } from '@aws-lambda-powertools/logger';
import { nestedErrorBody } from '../../layers/core/http/error-body';
import { httpFunction } from '../../layers/core/http/http-function';
import { errorViewOf } from '../../layers/core/http/middlewares/error-responses';
import { operation } from '../../layers/core/http/operation';
import { jsonResponse } from '../../layers/core/http/responses';
import { type ServerSentEvent, sseStream } from '../../layers/core/http/sse';
import { type StreamableResult, streamable } from '../../layers/core/http/streaming';
import {
  answerQuery,
  type QueryEvent,
  type QueryResult,
} from '../../layers/core/use-cases/query/answer-query';
import { dependencies } from '../../layers/core/wiring/dependencies';
import { ROUTES } from '../../lib/routes';
import { queryBody, queryResult } from './query.schema';

const logger = new Logger({ serviceName: 'svc-query' });

/** D19: `sources`, then `delta`s, then `done` (the result without repeating every chunk's text), or `error`. */
async function* serverSentEvents(
  events: AsyncIterable<QueryEvent>,
  requestId: string,
): AsyncGenerator<ServerSentEvent> {
  try {
    for await (const event of events) {
      if (event.type === 'sources') yield { event: 'sources', data: { sources: event.sources } };
      else if (event.type === 'delta') yield { event: 'delta', data: { text: event.text } };
      else yield { event: 'done', data: withoutChunkTexts(event.result) };
    }
  } catch (error) {
    const view = errorViewOf(error, logger, requestId);
    yield { event: 'error', data: nestedErrorBody(view, requestId) };
  }
}

function withoutChunkTexts(result: QueryResult): Record<string, unknown> {
  return { ...result, sources: result.sources.map(({ chunk_text: _, ...source }) => source) };
}

/** Query (spec: POST /api/v1/query; legacy /api/chat, D8), streamed when asked (D19). */
export const operations = {
  query: operation({
    summary:
      'Ask an agent: an answer with cited sources (stream: true gives text/event-stream, D19)',
    body: queryBody,
    responses: {
      200: {
        description: 'The Query result, or an SSE stream of sources, delta…, done',
        schema: queryResult,
      },
    },
    async handle({ body, principal, deps, requestId }) {
      const { stream, ...input } = body;
      const events = answerQuery(deps, principal, input);
      if (!stream) {
        let result: QueryResult | undefined;
        for await (const event of events) if (event.type === 'done') result = event.result;
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
        body: sseStream(serverSentEvents(rest, requestId), {
          onUnexpectedError: (error) => logger.error('stream', { error: error as Error }),
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
    routes: ROUTES,
    operations,
    dependencies,
  }) as unknown as Parameters<typeof streamable>[0],
);
