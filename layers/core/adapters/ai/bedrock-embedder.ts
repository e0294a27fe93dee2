import type { Embedder, EmbedOptions } from '../../ports/embedder.port';
import { ModelRequestError } from '../../ports/model-request-error';
import type { BedrockConnection } from './bedrock-connection';
import { toBedrockModelError } from './bedrock-errors';
import {
  BEDROCK_DEFAULTS,
  BEDROCK_EMBEDDING_MODELS,
  type BedrockEmbeddingModel,
  bedrockEmbedderIdentity,
} from './bedrock-models';
import { lazyBedrockConnection } from './bedrock-runtime';
import { DEFAULT_RETRY_AFTER_SECONDS } from './provider-responses';

export interface BedrockEmbedderOptions {
  /** @default 'amazon.titan-embed-text-v2:0' */
  readonly model?: BedrockEmbeddingModel;
  /** One of the model's lengths. @default the model's own (1024 for Titan Text Embeddings V2) */
  readonly dimensions?: number;
  readonly region?: string | undefined;
  readonly endpoint?: string | undefined;
  /** @default 30 s (a question's: 10 s) */
  readonly timeoutMs?: number;
  /** Attempts the SDK makes on its own (throttling, 5xx) for documents; a question gets one. @default 3 */
  readonly maxAttempts?: number;
  /** Requests in flight at once for models that take one text per request. @default 8 */
  readonly concurrency?: number;
  /** For tests: the connection to use instead of the SDK's. */
  readonly connection?: () => Promise<BedrockConnection>;
}

/**
 * Embedding mostly runs in the sync and ingestion workers, where waiting
 * out a throttle beats failing a whole sync: the SDK retries twice.
 */
export const BEDROCK_EMBEDDER_DEFAULTS = {
  timeoutMs: 30_000,
  queryTimeoutMs: 10_000,
  maxAttempts: 3,
  concurrency: 8,
  retryAfterSeconds: DEFAULT_RETRY_AFTER_SECONDS,
} as const;

/**
 * Embeds with an Amazon Bedrock embedding model through `InvokeModel`.
 * Titan takes one text per request, so texts go out `concurrency` at a time;
 * Cohere takes 96, so they go in batches. Vectors are checked (length,
 * finite numbers) and returned unit-length, in order. Failures map like the
 * answerer's (bedrock-errors.ts).
 *
 * @example
 * const embedder = new BedrockEmbedder({ dimensions: 512 });
 * embedder.id; // 'bedrock/amazon.titan-embed-text-v2:0/512'
 */
export class BedrockEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  readonly #model: BedrockEmbeddingModel;
  readonly #timeoutMs: number;
  readonly #concurrency: number;
  readonly #region: string | undefined;
  /** Documents: the SDK retries throttles. Questions: one attempt, the caller is told to retry. */
  readonly #connection: () => Promise<BedrockConnection>;
  readonly #queryConnection: () => Promise<BedrockConnection>;

  constructor(options: BedrockEmbedderOptions = {}) {
    this.#model = options.model ?? BEDROCK_DEFAULTS.embeddingModel;
    const identity = bedrockEmbedderIdentity({
      model: this.#model,
      ...(options.dimensions === undefined ? {} : { dimensions: options.dimensions }),
    });
    this.id = identity.id;
    this.dimensions = identity.dimensions;
    this.#timeoutMs = options.timeoutMs ?? BEDROCK_EMBEDDER_DEFAULTS.timeoutMs;
    this.#concurrency = Math.max(1, options.concurrency ?? BEDROCK_EMBEDDER_DEFAULTS.concurrency);
    this.#region = options.region;
    const where = { region: options.region, endpoint: options.endpoint };
    this.#connection =
      options.connection ??
      lazyBedrockConnection({
        ...where,
        maxAttempts: options.maxAttempts ?? BEDROCK_EMBEDDER_DEFAULTS.maxAttempts,
        idleTimeoutMs: this.#timeoutMs,
      });
    this.#queryConnection =
      options.connection ??
      lazyBedrockConnection({
        ...where,
        maxAttempts: 1,
        idleTimeoutMs: BEDROCK_EMBEDDER_DEFAULTS.queryTimeoutMs,
      });
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<number[][]> {
    if (texts.length === 0) return [];
    const query = options.purpose === 'query';
    let connection: BedrockConnection | undefined;
    try {
      connection = await (query ? this.#queryConnection() : this.#connection());
      const spec = BEDROCK_EMBEDDING_MODELS[this.#model];
      const requests: string[][] = [];
      for (let start = 0; start < texts.length; start += spec.textsPerRequest) {
        requests.push(texts.slice(start, start + spec.textsPerRequest));
      }
      const answers = await inOrder(requests, this.#concurrency, (batch) =>
        this.#embedBatch(connection as BedrockConnection, batch, query),
      );
      return answers.flat();
    } catch (error) {
      let region = this.#region;
      if (!region && connection) region = await connection.region().catch(() => undefined);
      throw toBedrockModelError(error, {
        operation: 'embedding',
        modelId: this.#model,
        region,
        // The embedder's only abort is its own time limit.
        timedOut: error instanceof Error && error.name === 'AbortError',
        timeoutMs: query ? BEDROCK_EMBEDDER_DEFAULTS.queryTimeoutMs : this.#timeoutMs,
        retryAfterSeconds: BEDROCK_EMBEDDER_DEFAULTS.retryAfterSeconds,
      });
    }
  }

  async #embedBatch(
    connection: BedrockConnection,
    batch: readonly string[],
    query: boolean,
  ): Promise<number[][]> {
    const signal = AbortSignal.timeout(
      query ? BEDROCK_EMBEDDER_DEFAULTS.queryTimeoutMs : this.#timeoutMs,
    );
    const spec = BEDROCK_EMBEDDING_MODELS[this.#model];
    if (spec.body === 'cohere') {
      const answer = await connection.invokeModel(
        this.#model,
        // Cohere embeds questions and passages differently, for retrieval.
        { texts: batch, input_type: query ? 'search_query' : 'search_document', truncate: 'END' },
        signal,
      );
      const vectors = fieldOf(answer, 'embeddings');
      if (!Array.isArray(vectors) || vectors.length !== batch.length) {
        throw this.#badResponse(`no list of ${batch.length} embeddings`);
      }
      return vectors.map((vector) => this.#checked(vector));
    }
    const [text = ''] = batch;
    const body =
      this.#model === 'amazon.titan-embed-text-v2:0'
        ? { inputText: text, dimensions: this.dimensions, normalize: true }
        : { inputText: text };
    const answer = await connection.invokeModel(this.#model, body, signal);
    return [this.#checked(fieldOf(answer, 'embedding'))];
  }

  /** A vector of the right length and finite numbers, made unit-length; else the model answered wrong. */
  #checked(vector: unknown): number[] {
    if (
      !Array.isArray(vector) ||
      vector.length !== this.dimensions ||
      !vector.every((value) => typeof value === 'number' && Number.isFinite(value))
    ) {
      throw this.#badResponse(
        `an embedding of ${Array.isArray(vector) ? vector.length : 'no'} numbers; expected ${this.dimensions}`,
      );
    }
    return normalize(vector as number[]);
  }

  #badResponse(detail: string): ModelRequestError {
    return new ModelRequestError(
      `The Bedrock embedding model ${this.#model} answered ${detail}`,
      'bad_response',
      null,
    );
  }
}

function fieldOf(answer: unknown, field: string): unknown {
  return typeof answer === 'object' && answer !== null
    ? (answer as Record<string, unknown>)[field]
    : undefined;
}

/** `work` over `items` with at most `limit` in flight; results in the items' order. */
async function inOrder<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    // After a failure no new request starts: the whole call fails anyway.
    while (!failed && next < items.length) {
      const index = next;
      next += 1;
      try {
        results[index] = await work(items[index] as T);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function normalize(vector: number[]): number[] {
  let squares = 0;
  for (const value of vector) squares += value * value;
  const length = Math.sqrt(squares);
  return length > 0 ? vector.map((value) => value / length) : vector;
}
