import { ServiceUnavailableError } from '../domain/errors';

/** A retrieved chunk offered to the answerer, numbered for citation as `[n]`. */
export interface AnswerSource {
  /** 1-based; the answer cites it as `[n]`. */
  readonly number: number;
  readonly chunk_id: string;
  /** The document the passage is from: an answer quotes one document unless the question compares. */
  readonly document_id?: string;
  readonly document_title: string;
  readonly document_url: string | null;
  /** The headings above the chunk, outermost first; its sentences are read under them. */
  readonly heading_path?: readonly string[];
  readonly text: string;
  readonly score: number;
}

/** One earlier turn of the conversation (the last 10 go into the prompt). */
export interface ConversationTurn {
  readonly question: string;
  readonly answer: string;
}

export interface AnswerRequest {
  readonly model: string;
  readonly systemPrompt: string | null;
  readonly question: string;
  readonly history: readonly ConversationTurn[];
  readonly sources: readonly AnswerSource[];
  readonly temperature: number;
  readonly maxTokens: number;
  readonly signal?: AbortSignal;
  /**
   * The caller streams the answer to its client: a provider with one
   * call for a whole answer and another for a stream (Bedrock's Converse and
   * ConverseStream) picks by it; others may stream either way.
   */
  readonly stream?: boolean;
}

export interface AnswerResult {
  readonly text: string;
  /** Source numbers the answer cites, in order of first citation. */
  readonly cited: readonly number[];
  readonly tokensInput: number;
  readonly tokensOutput: number;
  /** The model that answered, as the provider names it. */
  readonly model: string;
}

/** What an answerer streams: text deltas, then exactly one `done`. */
export type AnswerEvent =
  | { readonly type: 'delta'; readonly text: string }
  | { readonly type: 'done'; readonly result: AnswerResult };

/**
 * Composes an answer from sources (the offline extractive answerer, or a chat
 * model). Provider failures and timeouts surface as `ModelUnavailableError`
 * (the service answers 503 with Retry-After, issue 3).
 */
export interface Answerer {
  answer(request: AnswerRequest): AsyncIterable<AnswerEvent>;
}

/** A model provider is down, slow or refusing: the caller gets 503 with Retry-After (issue 3). */
export class ModelUnavailableError extends ServiceUnavailableError {}

/**
 * The provider is rate limiting the key (429 other than a used-up quota).
 * A 503 like any unavailability for the service's own key; for an
 * organization's key the caller gets 429 with the provider's
 * Retry-After.
 */
export class ModelRateLimitedError extends ModelUnavailableError {}
