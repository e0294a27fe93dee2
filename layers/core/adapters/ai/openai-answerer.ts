import type OpenAI from 'openai';
import { citedSourceNumbers } from '../../domain/citations';
import { estimateTokens } from '../../domain/retrieval/token-estimate';
import {
  type AnswerEvent,
  type Answerer,
  type AnswerRequest,
  ModelUnavailableError,
} from '../../ports/answerer.port';
import { answerWithoutSources, conversationOf, systemPromptOf } from './answer-prompt';
import {
  DEFAULT_RETRY_AFTER_SECONDS,
  type OpenAiConnectionOptions,
  openAiClientOnFirstUse,
} from './openai-client';
import { toModelError } from './openai-errors';
import { SilenceWatchdog } from './silence-watchdog';

export type OpenAiAnswererOptions = OpenAiConnectionOptions;

/**
 * Defaults for answering inside a request:
 * - `timeoutMs` 20 s of silence, whether waiting for the first byte or between
 *   two chunks: well inside API Gateway's 29 s, so the caller gets our 503
 *   with Retry-After instead of a gateway timeout (never a hang, issue 3);
 * - `maxRetries` 0: the SDK would sleep for the provider's Retry-After (up to
 *   a minute) inside the request; the caller is told to retry instead.
 */
export const OPENAI_ANSWERER_DEFAULTS = {
  timeoutMs: 20_000,
  maxRetries: 0,
  retryAfterSeconds: DEFAULT_RETRY_AFTER_SECONDS,
} as const;

export { DEFAULT_SYSTEM_PROMPT, GROUNDING_RULES } from './answer-prompt';

/** OpenAI's per-message framing, for counting a prompt when the provider reports no usage. */
const TOKENS_PER_MESSAGE = 3;
const TOKENS_PER_REPLY = 3;

/**
 * Answers with an OpenAI (or OpenAI-compatible, `OPENAI_BASE_URL`) chat model,
 * streamed: deltas as the model writes, then `done` with the sources it cited,
 * the provider's token usage and the model's own name.
 *
 * Failures: silence longer than `timeoutMs`, connection errors, 408/409/429
 * and 5xx are `ModelUnavailableError` (Retry-After from the provider, else
 * `retryAfterSeconds`); a bad key, unknown model or rejected request is
 * `ModelRequestError`; the caller's abort rethrows the signal's reason.
 *
 * @example
 * const answerer = new OpenAiAnswerer({ apiKey: config.openAiApiKey });
 * for await (const event of answerer.answer({ model: 'gpt-4o-mini', ...request })) { … }
 */
export class OpenAiAnswerer implements Answerer {
  readonly #client: () => Promise<OpenAI>;
  readonly #timeoutMs: number;
  readonly #retryAfterSeconds: number;

  constructor(options: OpenAiAnswererOptions) {
    this.#timeoutMs = options.timeoutMs ?? OPENAI_ANSWERER_DEFAULTS.timeoutMs;
    this.#retryAfterSeconds =
      options.retryAfterSeconds ?? OPENAI_ANSWERER_DEFAULTS.retryAfterSeconds;
    this.#client = openAiClientOnFirstUse(options, {
      timeoutMs: this.#timeoutMs,
      maxRetries: options.maxRetries ?? OPENAI_ANSWERER_DEFAULTS.maxRetries,
    });
  }

  async *answer(request: AnswerRequest): AsyncIterable<AnswerEvent> {
    const { signal } = request;
    signal?.throwIfAborted();
    if (request.sources.length === 0) {
      yield* answerWithoutSources(request.model);
      return;
    }

    const messages = chatMessages(request);
    // Before the watchdog starts: loading the SDK is not the provider's silence.
    const client = await this.#client();
    const watchdog = new SilenceWatchdog(this.#timeoutMs, signal);
    const errorContext = () => ({
      operation: 'chat completion',
      timedOut: watchdog.timedOut,
      timeoutMs: this.#timeoutMs,
      retryAfterSeconds: this.#retryAfterSeconds,
    });
    let text = '';
    let model = request.model;
    let usage: OpenAI.CompletionUsage | null = null;
    let finished = false;
    try {
      const stream = await client.chat.completions.create(
        {
          model: request.model,
          messages,
          temperature: request.temperature,
          // `max_tokens` rather than `max_completion_tokens`: every
          // OpenAI-compatible endpoint (OPENAI_BASE_URL, `custom`) knows it.
          max_tokens: request.maxTokens,
          stream: true,
          stream_options: { include_usage: true },
        },
        { signal: watchdog.signal },
      );
      watchdog.restart();
      for await (const chunk of stream) {
        if (chunk.model) model = chunk.model;
        if (chunk.usage) usage = chunk.usage;
        // Some compatible endpoints send the usage chunk with `choices: null`.
        const choice = chunk.choices?.[0];
        if (choice?.finish_reason) finished = true;
        const delta = choice?.delta.content;
        if (delta) {
          text += delta;
          // A slow reader is not a silent provider: no timer while the caller holds the delta.
          watchdog.pause();
          yield { type: 'delta', text: delta };
        }
        watchdog.restart();
      }
    } catch (error) {
      signal?.throwIfAborted();
      throw toModelError(error, errorContext());
    } finally {
      watchdog.pause();
    }
    // The SDK ends an aborted stream quietly, and a stream cut off cleanly
    // looks finished to it: only a `finish_reason` says the model was done.
    signal?.throwIfAborted();
    if (watchdog.timedOut) throw toModelError(null, errorContext());
    if (!finished) {
      throw new ModelUnavailableError(
        'The model provider ended the chat completion stream before the answer was finished',
        this.#retryAfterSeconds,
      );
    }

    yield {
      type: 'done',
      result: {
        text,
        cited: citedSourceNumbers(
          text,
          request.sources.map((source) => source.number),
        ),
        tokensInput: usage?.prompt_tokens ?? promptTokens(messages),
        tokensOutput: usage?.completion_tokens ?? estimateTokens(text),
        model,
      },
    };
  }
}

/** The OpenAI chat messages: the system prompt, then the conversation (answer-prompt.ts). */
function chatMessages(request: AnswerRequest): OpenAI.ChatCompletionMessageParam[] {
  return [{ role: 'system', content: systemPromptOf(request) }, ...conversationOf(request)];
}

/** The prompt's size when the provider reports no usage (some compatible endpoints do not). */
function promptTokens(messages: readonly OpenAI.ChatCompletionMessageParam[]): number {
  let tokens = TOKENS_PER_REPLY;
  for (const message of messages) {
    tokens +=
      TOKENS_PER_MESSAGE +
      (typeof message.content === 'string' ? estimateTokens(message.content) : 0);
  }
  return tokens;
}
