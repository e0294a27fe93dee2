import { citedSourceNumbers } from '../../domain/citations';
import { estimateTokens } from '../../domain/retrieval/token-estimate';
import {
  type AnswerEvent,
  type Answerer,
  type AnswerRequest,
  ModelUnavailableError,
} from '../../ports/answerer.port';
import { answerWithoutSources, conversationOf, systemPromptOf } from './answer-prompt';
import type { BedrockConnection, ConverseInput, ConverseStreamOutput } from './bedrock-connection';
import { toBedrockModelError } from './bedrock-errors';
import { lazyBedrockConnection } from './bedrock-runtime';
import { DEFAULT_RETRY_AFTER_SECONDS } from './provider-responses';
import { SilenceWatchdog } from './silence-watchdog';

export interface BedrockAnswererOptions {
  /** The deployment's model: a foundation model id or an inference profile id. */
  readonly modelId: string;
  readonly region?: string | undefined;
  /** A stand-in's address. @default Bedrock Runtime's, for the region */
  readonly endpoint?: string | undefined;
  /** Longest silence from Bedrock, waiting for the answer or between two stream events. @default 20 s */
  readonly timeoutMs?: number;
  /** @default 30 */
  readonly retryAfterSeconds?: number;
  /** For tests: the connection to use instead of the SDK's. */
  readonly connection?: () => Promise<BedrockConnection>;
}

/**
 * Defaults as the OpenAI answerer's: 20 s of silence (inside API Gateway's
 * 29 s, so the caller gets 503 with Retry-After, never a gateway timeout),
 * and no retries inside the request (the caller is told when to retry).
 */
export const BEDROCK_ANSWERER_DEFAULTS = {
  timeoutMs: 20_000,
  maxAttempts: 1,
  retryAfterSeconds: DEFAULT_RETRY_AFTER_SECONDS,
} as const;

/**
 * The Converse API's temperature is 0–1 for the models the service offers
 * (Nova, Claude); an agent's goes to 2, as OpenAI's does.
 */
const MAX_TEMPERATURE = 1;

/**
 * Answers through the Amazon Bedrock Runtime Converse API with the
 * deployment's model: `Converse` for a whole answer, `ConverseStream` when
 * the caller streams, deltas as the model writes. Same prompt as every
 * provider (answer-prompt.ts): the system prompt with the grounding rules,
 * the last turns, then the numbered sources with the question; `temperature`
 * and `maxTokens` go in `inferenceConfig`. The result names the model id
 * that answered and Bedrock's token usage (estimated when a stand-in
 * reports none), which the query prices (model-pricing.ts).
 *
 * The agent's own `model` is not sent: the role may invoke only the
 * deployment's models (IAM), so the deployment's is the model.
 *
 * @example
 * const answerer = new BedrockAnswerer({ modelId: 'amazon.nova-lite-v1:0' });
 * for await (const event of answerer.answer(request)) { … }
 */
export class BedrockAnswerer implements Answerer {
  readonly #modelId: string;
  readonly #timeoutMs: number;
  readonly #retryAfterSeconds: number;
  readonly #connection: () => Promise<BedrockConnection>;
  #region: string | undefined;

  constructor(options: BedrockAnswererOptions) {
    this.#modelId = options.modelId;
    this.#timeoutMs = options.timeoutMs ?? BEDROCK_ANSWERER_DEFAULTS.timeoutMs;
    this.#retryAfterSeconds =
      options.retryAfterSeconds ?? BEDROCK_ANSWERER_DEFAULTS.retryAfterSeconds;
    this.#region = options.region;
    this.#connection =
      options.connection ??
      lazyBedrockConnection({
        region: options.region,
        endpoint: options.endpoint,
        maxAttempts: BEDROCK_ANSWERER_DEFAULTS.maxAttempts,
        idleTimeoutMs: this.#timeoutMs,
      });
  }

  async *answer(request: AnswerRequest): AsyncIterable<AnswerEvent> {
    const { signal } = request;
    signal?.throwIfAborted();
    if (request.sources.length === 0) {
      yield* answerWithoutSources(this.#modelId);
      return;
    }
    const input = this.#converseInput(request);
    const watchdog = new SilenceWatchdog(this.#timeoutMs, signal);
    let connection: BedrockConnection | undefined;
    const fail = async (error: unknown): Promise<never> => {
      signal?.throwIfAborted();
      throw toBedrockModelError(error, {
        operation: 'answer',
        modelId: this.#modelId,
        region: await this.#regionOf(connection),
        timedOut: watchdog.timedOut,
        timeoutMs: this.#timeoutMs,
        retryAfterSeconds: this.#retryAfterSeconds,
      });
    };

    let text = '';
    let usage: { input?: number | undefined; output?: number | undefined } = {};
    let finished = false;
    try {
      connection = await this.#connection();
      if (request.stream) {
        const events = await connection.converseStream(input, watchdog.signal);
        watchdog.restart();
        for await (const event of events) {
          throwStreamException(event);
          if (event.metadata?.usage) {
            usage = {
              input: event.metadata.usage.inputTokens,
              output: event.metadata.usage.outputTokens,
            };
          }
          if (event.messageStop) finished = true;
          const delta = event.contentBlockDelta?.delta?.text;
          if (delta) {
            text += delta;
            // A slow reader is not a silent provider: no timer while the caller holds the delta.
            watchdog.pause();
            yield { type: 'delta', text: delta };
          }
          watchdog.restart();
        }
      } else {
        const response = await connection.converse(input, watchdog.signal);
        text = (response.output?.message?.content ?? []).map((block) => block.text ?? '').join('');
        usage = { input: response.usage?.inputTokens, output: response.usage?.outputTokens };
        finished = response.stopReason !== undefined;
        if (text) yield { type: 'delta', text };
      }
    } catch (error) {
      await fail(error);
    } finally {
      watchdog.pause();
    }
    // An aborted or cut-off stream can end quietly: only `messageStop` says the model was done.
    signal?.throwIfAborted();
    if (watchdog.timedOut) await fail(null);
    if (!finished) {
      throw new ModelUnavailableError(
        `Amazon Bedrock ended the answer with ${this.#modelId} before it was finished`,
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
        tokensInput: usage.input ?? promptTokens(input),
        tokensOutput: usage.output ?? estimateTokens(text),
        model: this.#modelId,
      },
    };
  }

  #converseInput(request: AnswerRequest): ConverseInput {
    return {
      modelId: this.#modelId,
      system: [{ text: systemPromptOf(request) }],
      messages: conversationOf(request).map((message) => ({
        role: message.role,
        // Bedrock refuses a blank text block; an earlier answer can be empty.
        content: [{ text: message.content.trim() === '' ? '…' : message.content }],
      })),
      inferenceConfig: {
        temperature: Math.min(Math.max(request.temperature, 0), MAX_TEMPERATURE),
        maxTokens: request.maxTokens,
      },
    };
  }

  /** The region, for messages: the configured one, else the client's, else unknown. */
  async #regionOf(connection: BedrockConnection | undefined): Promise<string | undefined> {
    if (this.#region || !connection) return this.#region;
    try {
      this.#region = await connection.region();
    } catch {
      // No region configured: the message says so on its own.
    }
    return this.#region;
  }
}

/** Exception events of ConverseStream, by member, and the exception each is. */
const STREAM_EXCEPTIONS = {
  internalServerException: 'InternalServerException',
  modelStreamErrorException: 'ModelStreamErrorException',
  throttlingException: 'ThrottlingException',
  serviceUnavailableException: 'ServiceUnavailableException',
  validationException: 'ValidationException',
} as const;

/**
 * An exception event inside the stream is a failure like a dropped
 * connection; thrown under its exception's name, which is what
 * bedrock-errors.ts sorts by.
 */
function throwStreamException(event: ConverseStreamOutput): void {
  for (const [member, name] of Object.entries(STREAM_EXCEPTIONS)) {
    const exception: unknown = Reflect.get(event, member);
    if (exception === undefined || exception === null) continue;
    if (exception instanceof Error) throw exception;
    throw Object.assign(new Error(`${name} inside the answer stream`), { name });
  }
}

/** The prompt's size when Bedrock reports no usage (a stand-in may not). */
function promptTokens(input: ConverseInput): number {
  let tokens = 0;
  for (const block of input.system ?? []) tokens += estimateTokens(block.text ?? '');
  for (const message of input.messages ?? []) {
    for (const block of message.content ?? []) tokens += estimateTokens(block.text ?? '');
  }
  return tokens;
}
