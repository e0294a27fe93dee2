import type OpenAI from 'openai';
import { estimateTokens } from '../../domain/retrieval/token-estimate';
import type { Embedder } from '../../ports/embedder.port';
import { ModelRequestError } from '../../ports/model-request-error';
import {
  DEFAULT_RETRY_AFTER_SECONDS,
  type OpenAiConnectionOptions,
  openAiClientOnFirstUse,
} from './openai-client';
import { toModelError } from './openai-errors';

export interface OpenAiEmbedderOptions extends OpenAiConnectionOptions {
  /** @default 'text-embedding-3-small' */
  readonly model?: string;
  /**
   * Vector length. Sent as the API's `dimensions` only when given (the
   * `text-embedding-3-*` models shorten their vectors; older models refuse
   * the parameter).
   * @default the model's own length (1536 for `text-embedding-3-small`); required for other models
   */
  readonly dimensions?: number;
  /** @default 2048, OpenAI's limit of inputs per request */
  readonly maxBatchInputs?: number;
  /**
   * Tokens per request, counted in `cl100k_base` (what `text-embedding-3-*`
   * reads). OpenAI accepts 300,000; the margin covers compatible endpoints
   * that count differently.
   * @default 200_000
   */
  readonly maxBatchTokens?: number;
}

/**
 * Defaults: 30 s per request and two SDK retries. Embedding mostly runs in
 * the sync worker, where waiting out a rate limit beats failing a whole
 * sync; the query path can pass `maxRetries: 0` and a shorter timeout.
 */
export const OPENAI_EMBEDDER_DEFAULTS = {
  model: 'text-embedding-3-small',
  timeoutMs: 30_000,
  maxRetries: 2,
  retryAfterSeconds: DEFAULT_RETRY_AFTER_SECONDS,
  maxBatchInputs: 2048,
  maxBatchTokens: 200_000,
} as const;

/** Native vector lengths of OpenAI's embedding models. */
const NATIVE_DIMENSIONS: Readonly<Record<string, number>> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

/**
 * The id and vector length an embedder with these options has, without a
 * client: what the stack needs to create its chunk index.
 */
export function openAiEmbedderIdentity(
  options: Pick<OpenAiEmbedderOptions, 'model' | 'dimensions'> = {},
): { readonly id: string; readonly dimensions: number } {
  const model = options.model ?? OPENAI_EMBEDDER_DEFAULTS.model;
  const dimensions = options.dimensions ?? NATIVE_DIMENSIONS[model];
  if (dimensions === undefined || !Number.isSafeInteger(dimensions) || dimensions < 1) {
    throw new RangeError(
      `OpenAiEmbedder needs a positive integer \`dimensions\` for the model ${model}`,
    );
  }
  return { id: `openai/${model}/${dimensions}`, dimensions };
}

/**
 * Embeds with an OpenAI (or OpenAI-compatible) embedding model, in batches
 * of at most `maxBatchInputs` texts and `maxBatchTokens` tokens, one request
 * at a time. Failures map like the answerer's: `ModelUnavailableError` to
 * retry later, `ModelRequestError` for a configuration the provider refuses
 * (including vectors of the wrong length, which would corrupt the index).
 *
 * @example
 * const embedder = new OpenAiEmbedder({ apiKey, dimensions: 512 });
 * embedder.id; // 'openai/text-embedding-3-small/512'
 * const [vector] = await embedder.embed(['What is the refund policy?']);
 */
export class OpenAiEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  readonly #model: string;
  readonly #requestDimensions: number | undefined;
  readonly #client: () => Promise<OpenAI>;
  readonly #timeoutMs: number;
  readonly #retryAfterSeconds: number;
  readonly #maxBatchInputs: number;
  readonly #maxBatchTokens: number;

  constructor(options: OpenAiEmbedderOptions) {
    this.#model = options.model ?? OPENAI_EMBEDDER_DEFAULTS.model;
    const identity = openAiEmbedderIdentity(options);
    this.dimensions = identity.dimensions;
    this.#requestDimensions = options.dimensions;
    this.id = identity.id;
    this.#timeoutMs = options.timeoutMs ?? OPENAI_EMBEDDER_DEFAULTS.timeoutMs;
    this.#retryAfterSeconds =
      options.retryAfterSeconds ?? OPENAI_EMBEDDER_DEFAULTS.retryAfterSeconds;
    this.#maxBatchInputs = options.maxBatchInputs ?? OPENAI_EMBEDDER_DEFAULTS.maxBatchInputs;
    this.#maxBatchTokens = options.maxBatchTokens ?? OPENAI_EMBEDDER_DEFAULTS.maxBatchTokens;
    this.#client = openAiClientOnFirstUse(options, {
      timeoutMs: this.#timeoutMs,
      maxRetries: options.maxRetries ?? OPENAI_EMBEDDER_DEFAULTS.maxRetries,
    });
  }

  async embed(texts: readonly string[]): Promise<number[][]> {
    const vectors: number[][] = [];
    for (const batch of batches(texts, this.#maxBatchInputs, this.#maxBatchTokens)) {
      vectors.push(...(await this.#embedBatch(batch)));
    }
    return vectors;
  }

  async #embedBatch(batch: readonly string[]): Promise<number[][]> {
    let response: OpenAI.CreateEmbeddingResponse;
    const client = await this.#client();
    try {
      response = await client.embeddings.create({
        model: this.#model,
        input: [...batch],
        // Asked for explicitly, so the SDK hands the answer over undecoded and
        // an endpoint that ignores the format and sends numbers works too.
        encoding_format: 'base64',
        ...(this.#requestDimensions === undefined ? {} : { dimensions: this.#requestDimensions }),
      });
    } catch (error) {
      throw toModelError(error, {
        operation: 'embedding',
        timedOut: false,
        timeoutMs: this.#timeoutMs,
        retryAfterSeconds: this.#retryAfterSeconds,
      });
    }

    const vectors = new Map<number, number[]>();
    for (const item of response.data) {
      const vector = decodeVector(item.embedding);
      const { index } = item;
      if (!Number.isInteger(index) || index < 0 || index >= batch.length || vectors.has(index)) {
        throw this.#badResponse(`an embedding at index ${index} for ${batch.length} inputs`);
      }
      if (vector.length !== this.dimensions || !vector.every(Number.isFinite)) {
        throw this.#badResponse(
          `an embedding of ${vector.length} dimensions; expected ${this.dimensions} finite numbers`,
        );
      }
      vectors.set(index, normalize(vector));
    }
    return batch.map((_, index) => {
      const vector = vectors.get(index);
      if (!vector) throw this.#badResponse(`no embedding for input ${index}`);
      return vector;
    });
  }

  #badResponse(detail: string): ModelRequestError {
    return new ModelRequestError(
      `The embedding model ${this.#model} answered ${detail}`,
      'bad_response',
      null,
    );
  }
}

/** Consecutive runs of texts within both limits; a text over the token limit goes alone (the provider judges it). */
function batches(texts: readonly string[], maxInputs: number, maxTokens: number): string[][] {
  const result: string[][] = [];
  let current: string[] = [];
  let tokens = 0;
  for (const text of texts) {
    const size = estimateTokens(text);
    if (current.length > 0 && (current.length === maxInputs || tokens + size > maxTokens)) {
      result.push(current);
      current = [];
      tokens = 0;
    }
    current.push(text);
    tokens += size;
  }
  if (current.length > 0) result.push(current);
  return result;
}

/**
 * The vector of one item: base64 is little-endian float32 (what was asked
 * for); a list of numbers is what endpoints that ignore `encoding_format` send.
 */
function decodeVector(embedding: unknown): number[] {
  if (Array.isArray(embedding)) return embedding.map(Number);
  if (typeof embedding !== 'string') return [];
  const bytes = Buffer.from(embedding, 'base64');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const vector = new Array<number>(Math.floor(bytes.byteLength / 4));
  for (let i = 0; i < vector.length; i += 1) vector[i] = view.getFloat32(i * 4, true);
  return vector;
}

/** Unit length, as the port promises: OpenAI's vectors already are, other endpoints' may not be. */
function normalize(vector: number[]): number[] {
  let squares = 0;
  for (const value of vector) squares += value * value;
  const length = Math.sqrt(squares);
  return length > 0 ? vector.map((value) => value / length) : vector;
}
