import { Logger } from '@aws-lambda-powertools/logger';
import { NotFoundError } from '../../layers/core/domain/errors';
import { isId } from '../../layers/core/domain/ids';
import { publicOriginOf } from '../../layers/core/http/console-url';
import { nestedErrorBody } from '../../layers/core/http/error-body';
import { httpFunction } from '../../layers/core/http/http-function';
import { errorViewOf } from '../../layers/core/http/middlewares/error-responses';
import { operationsWith } from '../../layers/core/http/operation';
import { jsonResponse } from '../../layers/core/http/responses';
import { OPENAI_ROUTES } from '../../layers/core/http/routes/openai';
import { type ServerSentEvent, sseStream } from '../../layers/core/http/sse';
import { type StreamableResult, streamable } from '../../layers/core/http/streaming';
import { publishRecordedMetrics } from '../../layers/core/observability/metrics';
import { usableAgents } from '../../layers/core/use-cases/agents/usable-agents';
import {
  answerQuery,
  type QueryEvent,
  type QueryResult,
} from '../../layers/core/use-cases/query/answer-query';
import { chatCompletionOf, completionChunks } from './completions';
import { conversationOf } from './conversation';
import {
  chatCompletion,
  chatCompletionStreamData,
  chatCompletionsBody,
  modelList,
} from './openai.schema';
import { openAiErrorBody, withOpenAiErrors } from './openai-errors';
import { dependencies, type OpenAiDependencies } from './wiring';

const operation = operationsWith<OpenAiDependencies>();

const logger = new Logger({ serviceName: 'svc-openai' });

/** OpenAI's words for a model that is not there, whether it never was or the caller may not use it. */
function modelNotFound(model: string): NotFoundError {
  return new NotFoundError(
    `The model '${model}' does not exist or you do not have access to it; GET /models lists the agents you may use`,
  );
}

/** The chunks as OpenAI streams them: `data:` lines only, ending with `data: [DONE]`. */
function encodeChunk(event: ServerSentEvent): string {
  return event.event === 'done' ? 'data: [DONE]\n\n' : `data: ${JSON.stringify(event.data)}\n\n`;
}

async function* serverSentEvents(
  chunks: AsyncIterable<Record<string, unknown>>,
  requestId: string,
  abandoned: AbortSignal,
): AsyncGenerator<ServerSentEvent> {
  try {
    for await (const chunk of chunks) yield { event: 'chunk', data: chunk };
    yield { event: 'done', data: {} };
  } catch (error) {
    // The client left and the answer was stopped for it: nobody to tell, nothing to log.
    if (abandoned.aborted) return;
    // An OpenAI client reads an error object in the stream as the request's failure.
    const view = errorViewOf(error, logger, requestId);
    yield { event: 'error', data: openAiErrorBody(nestedErrorBody(view, requestId), view.status) };
  } finally {
    // A stream outlives the middleware chain, whose end publishes everything else.
    publishRecordedMetrics();
  }
}

/** OpenAI-compatible chat completions: the agents are the models (agent id = model id). */
export const operations = {
  listModels: operation({
    summary: 'OpenAI-compatible: the agents you may ask, as models',
    responses: { 200: { description: 'The agents, as an OpenAI model list', schema: modelList } },
    async handle({ principal, deps }) {
      const agents = await usableAgents(deps, principal);
      return jsonResponse(200, {
        object: 'list',
        data: agents.map((agent) => ({
          id: agent.id,
          object: 'model',
          created: Math.floor(Date.parse(agent.created_at) / 1000),
          owned_by: principal.orgId,
          name: agent.name,
        })),
      });
    },
  }),
  chatCompletions: operation({
    summary:
      'OpenAI-compatible: a chat completion answered by an agent, with its sources (stream: true gives chat.completion.chunk events)',
    body: chatCompletionsBody,
    responses: {
      200: {
        description:
          'A chat.completion, or with stream: true a text/event-stream of chat.completion.chunk data lines ending with data: [DONE]',
        schema: chatCompletion,
        events: { message: chatCompletionStreamData },
      },
      404: { description: 'No agent with the model id that you may use' },
      424: {
        description:
          "model_provider_refused: the organization's model key was refused by its provider, or is gone",
      },
      503: { description: 'The model provider is unavailable, or broke the answer off' },
    },
    async handle({ body, principal, client, deps, requestId }) {
      const { question, history } = conversationOf(body.messages);
      const model = body.model;
      if (!isId('agent', model)) throw modelNotFound(model);
      const stream = body.stream === true;
      // A streamed answer whose client goes away is stopped at once (the model call aborted).
      const abandoned = new AbortController();
      const events = answerQuery(
        deps,
        principal,
        {
          agent_id: model,
          query: question,
          history,
          temperature: body.temperature ?? undefined,
          max_tokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
          stream,
        },
        { linkOrigin: publicOriginOf(deps, client), signal: abandoned.signal, channel: 'openai' },
      );
      const identity = {
        id: `chatcmpl-${requestId}`,
        created: Math.floor(deps.clock.now().getTime() / 1000),
        model,
      };
      // The first event (sources) is awaited before answering, so an unknown model is still a plain 404.
      const iterator = events[Symbol.asyncIterator]();
      let first: IteratorResult<QueryEvent>;
      try {
        first = await iterator.next();
      } catch (error) {
        throw error instanceof NotFoundError ? modelNotFound(model) : error;
      }
      const all: AsyncIterable<QueryEvent> = {
        async *[Symbol.asyncIterator]() {
          if (!first.done) yield first.value;
          for (let next = await iterator.next(); !next.done; next = await iterator.next())
            yield next.value;
        },
      };
      if (!stream) {
        let result: QueryResult | undefined;
        for await (const event of all) if (event.type === 'done') result = event.result;
        if (!result) throw new Error('The answer ended without a result');
        return jsonResponse(200, chatCompletionOf(identity, result));
      }
      const response: StreamableResult = {
        statusCode: 200,
        headers: { 'Content-Type': 'text/event-stream; charset=utf-8', 'X-Accel-Buffering': 'no' },
        body: sseStream(
          serverSentEvents(completionChunks(identity, all), requestId, abandoned.signal),
          {
            encode: encodeChunk,
            onUnexpectedError: (error) => logger.error('stream', { error: error as Error }),
            onAbandoned: () => abandoned.abort(),
            requestId,
          },
        ),
      };
      // The middleware chain only touches status and headers; the body stays a stream.
      return response as unknown as ReturnType<typeof jsonResponse>;
    },
  }),
};

export const handler = streamable(
  withOpenAiErrors(
    httpFunction({
      family: 'openai',
      routes: OPENAI_ROUTES,
      operations,
      dependencies,
    }) as unknown as Parameters<typeof streamable>[0],
  ),
);
