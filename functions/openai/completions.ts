import type { CitedSource } from '../../layers/core/domain/interaction';
import type { QueryEvent, QueryResult } from '../../layers/core/use-cases/query/answer-query';

/** What every completion and chunk of one request share. */
export interface CompletionIdentity {
  /** `chatcmpl-…`, the same on every chunk of a stream. */
  readonly id: string;
  /** Unix seconds. */
  readonly created: number;
  /** The agent id the client named as its model. */
  readonly model: string;
}

/** The sources an answer cites, each with the [n] its text cites it by. */
function numbered(
  sources: readonly CitedSource[],
  numberOf: (source: CitedSource, index: number) => number,
) {
  return sources.map((source, index) => ({ ...source, number: numberOf(source, index) }));
}

function usageOf(result: QueryResult) {
  const { tokens_input: prompt, tokens_output: completion } = result.metadata;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
}

/** A whole answer as a `chat.completion`; its text cites `sources[n - 1]` as [n]. */
export function chatCompletionOf(identity: CompletionIdentity, result: QueryResult) {
  return {
    ...identity,
    object: 'chat.completion' as const,
    choices: [
      {
        index: 0,
        message: { role: 'assistant' as const, content: result.response, refusal: null },
        logprobs: null,
        finish_reason: 'stop' as const,
      },
    ],
    usage: usageOf(result),
    sources: numbered(result.sources, (_, index) => index + 1),
    interaction_id: result.metadata.interaction_id,
  };
}

function chunk(
  identity: CompletionIdentity,
  delta: Record<string, unknown>,
  finish: 'stop' | null,
) {
  return {
    ...identity,
    object: 'chat.completion.chunk' as const,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  };
}

/**
 * An answer's events as `chat.completion.chunk`s: the assistant's role
 * first, then the text as it comes, then a last chunk that finishes with
 * `stop` and carries the usage and the cited sources. The streamed text
 * cites sources as the first `sources` event numbered them (before the
 * answer's own renumbering), so each source says the number the text
 * as streamed gives it.
 */
export async function* completionChunks(
  identity: CompletionIdentity,
  events: AsyncIterable<QueryEvent>,
): AsyncGenerator<Record<string, unknown>> {
  yield chunk(identity, { role: 'assistant', content: '' }, null);
  let offered: readonly CitedSource[] = [];
  for await (const event of events) {
    if (event.type === 'sources') offered = event.sources;
    else if (event.type === 'delta') yield chunk(identity, { content: event.text }, null);
    else {
      const streamedNumber = (source: CitedSource, index: number) => {
        const at = offered.findIndex((candidate) => candidate.chunk_id === source.chunk_id);
        return at === -1 ? index + 1 : at + 1;
      };
      yield {
        ...chunk(identity, {}, 'stop'),
        usage: usageOf(event.result),
        sources: numbered(event.result.sources, streamedNumber),
        interaction_id: event.result.metadata.interaction_id,
      };
    }
  }
}
