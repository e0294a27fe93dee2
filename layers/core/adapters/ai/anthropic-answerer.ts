import type Anthropic from '@anthropic-ai/sdk';
import { citedSourceNumbers } from '../../domain/citations';
import { estimateTokens } from '../../domain/retrieval/token-estimate';
import {
  type AnswerEvent,
  type Answerer,
  type AnswerRequest,
  ModelUnavailableError,
} from '../../ports/answerer.port';
import { answerWithoutSources, conversationOf, systemPromptOf } from './answer-prompt';
import { toAnthropicModelError } from './anthropic-errors';
import { DEFAULT_RETRY_AFTER_SECONDS } from './provider-responses';
import { SilenceWatchdog } from './silence-watchdog';

/** How to reach Anthropic's Messages API with an organization's key. */
export interface AnthropicAnswererOptions {
  readonly apiKey: string;
  /** @default 'https://api.anthropic.com' (tests: a loopback server speaking the same wire format) */
  readonly baseURL?: string;
  /** Longest silence from the provider, waiting for headers or between events (as OpenAI's, 20 s). */
  readonly timeoutMs?: number;
  readonly retryAfterSeconds?: number;
}

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
const DEFAULT_TIMEOUT_MS = 20_000;

type AnthropicSdk = typeof import('@anthropic-ai/sdk');
let sdk: Promise<AnthropicSdk> | undefined;

/**
 * The Anthropic SDK is loaded at the first answer with an Anthropic
 * key, not at init: the query function's cold start and every other answer
 * never read it (deployed, it is bundled beside `index.js`).
 */
function loadSdk(): Promise<AnthropicSdk> {
  sdk ??= import('@anthropic-ai/sdk');
  return sdk;
}

/**
 * Answers through Anthropic's Messages API (`anthropic`), streamed with
 * the official SDK: `message_start` (input tokens), `content_block_delta`
 * text deltas as the model writes, `message_delta` (stop reason, output
 * tokens), `message_stop`; an `error` event mid-stream is a failure like a
 * dropped connection. Failures are sorted as the OpenAI answerer's are
 * (anthropic-errors.ts): retry-later ones are `ModelUnavailableError`
 * (`ModelRateLimitedError` for a 429), configuration ones `ModelRequestError`.
 */
export class AnthropicAnswerer implements Answerer {
  readonly #options: AnthropicAnswererOptions;
  readonly #timeoutMs: number;
  readonly #retryAfterSeconds: number;
  #client: Anthropic | undefined;

  constructor(options: AnthropicAnswererOptions) {
    this.#options = options;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#retryAfterSeconds = options.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS;
  }

  async #clientOf(): Promise<Anthropic> {
    if (this.#client) return this.#client;
    const { default: AnthropicClient } = await loadSdk();
    // Every setting the SDK would read from the environment is given: a
    // customer's key must never pick up the operator's (STYLE.md §5).
    this.#client = new AnthropicClient({
      apiKey: this.#options.apiKey,
      authToken: null,
      webhookKey: null,
      baseURL: this.#options.baseURL ?? ANTHROPIC_DEFAULT_BASE_URL,
      timeout: this.#timeoutMs,
      // The caller is told to retry instead (as OPENAI_ANSWERER_DEFAULTS).
      maxRetries: 0,
      // The SDK's own logging could show request headers; nothing of it.
      logLevel: 'off',
    });
    return this.#client;
  }

  async *answer(request: AnswerRequest): AsyncIterable<AnswerEvent> {
    const { signal } = request;
    signal?.throwIfAborted();
    if (request.sources.length === 0) {
      yield* answerWithoutSources(request.model);
      return;
    }
    const client = await this.#clientOf();
    const watchdog = new SilenceWatchdog(this.#timeoutMs, signal);
    const errorContext = () => ({
      timedOut: watchdog.timedOut,
      timeoutMs: this.#timeoutMs,
      retryAfterSeconds: this.#retryAfterSeconds,
    });

    const system = systemPromptOf(request);
    let text = '';
    let model = request.model;
    let tokensInput: number | null = null;
    let tokensOutput: number | null = null;
    let stopped = false;
    try {
      const stream = await client.messages.create(
        {
          model: request.model,
          system,
          messages: conversationOf(request),
          // No `temperature`: the SDK's Messages parameters no longer take one
          // (Anthropic deprecated sampling parameters); the model's default applies.
          max_tokens: request.maxTokens,
          stream: true,
        },
        { signal: watchdog.signal },
      );
      watchdog.restart();
      for await (const event of stream) {
        if (event.type === 'message_start') {
          model = event.message.model || model;
          tokensInput = event.message.usage.input_tokens;
        } else if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
          text += event.delta.text;
          watchdog.pause();
          yield { type: 'delta', text: event.delta.text };
        } else if (event.type === 'message_delta') {
          tokensOutput = event.usage.output_tokens;
          if (event.usage.input_tokens !== null && event.usage.input_tokens !== undefined) {
            tokensInput = event.usage.input_tokens;
          }
        } else if (event.type === 'message_stop') {
          stopped = true;
        }
        watchdog.restart();
      }
    } catch (error) {
      signal?.throwIfAborted();
      throw toAnthropicModelError(error, errorContext());
    } finally {
      watchdog.pause();
    }
    signal?.throwIfAborted();
    if (watchdog.timedOut) throw toAnthropicModelError(null, errorContext());
    if (!stopped) {
      throw new ModelUnavailableError(
        'The model provider ended the message stream before the answer was finished',
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
        tokensInput: tokensInput ?? estimateTokens(system) + estimateTokens(request.question),
        tokensOutput: tokensOutput ?? estimateTokens(text),
        model,
      },
    };
  }
}
