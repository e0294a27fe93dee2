import type { BilledTo } from './model-key';
import type { TextRange } from './retrieval/grounding';

/** A cited source of an answer, as the Query result shows it. */
export interface CitedSource {
  readonly chunk_id: string;
  /** The document the chunk belongs to (`doc_…`). */
  readonly document_id: string;
  /** Its data source (`ds_…`). */
  readonly data_source_id: string;
  /** What a person recognises the document by: an uploaded file's name (its heading after it), a page's or article's title. */
  readonly document_title: string;
  /** Where the document opens; for an uploaded file, the API's download of it (never null). */
  readonly document_url: string | null;
  /** The chunk's place (from 1) in the agent's strategy's ranking, before citations renumber. */
  readonly rank: number;
  /** The strategy's score that ranked it. */
  readonly score: number;
  /** Cosine similarity to the query, whatever the strategy. */
  readonly similarity_score: number;
  readonly chunk_text: string;
  /**
   * The parts of `chunk_text` the answer quotes or relies on: `[start, end)`
   * in UTF-16 code units (JavaScript string indices), sorted, merged. Empty
   * in the stream's first `sources` event, sent before the answer exists.
   */
  readonly quoted_ranges: readonly TextRange[];
}

/**
 * How a question reached the service: the query API (and the console, which
 * uses it), an MCP host, an OpenAI-compatible client, or an evaluation run.
 */
export const INTERACTION_CHANNELS = ['api', 'mcp', 'openai', 'evaluation'] as const;
export type InteractionChannel = (typeof INTERACTION_CHANNELS)[number];

export const FEEDBACK_VALUES = ['positive', 'negative'] as const;
export type Feedback = (typeof FEEDBACK_VALUES)[number];

/** One question and its answer (spec: Interaction), with what analytics needs. */
export interface Interaction {
  readonly id: string;
  readonly agent_id: string;
  readonly session_id: string;
  readonly query: string;
  readonly response: string;
  readonly sources: readonly CitedSource[];
  /** How many of `sources` the answer cites (analytics citation_rate counts answers citing at least one). */
  readonly cited_sources: number;
  /**
   * The share of the answer's claims a cited passage supports (retrieval/grounding.ts),
   * 0–1; null for interactions recorded before answers were grounded.
   */
  readonly groundedness: number | null;
  readonly feedback: Feedback | null;
  readonly feedback_comment: string | null;
  readonly latency_ms: number;
  readonly tokens_input: number;
  readonly tokens_output: number;
  readonly cost_usd: number;
  readonly rag_strategy: string;
  readonly model: string;
  /**
   * Who paid for the model call; absent on interactions recorded
   * before model keys existed, which the service paid for.
   */
  readonly billed_to?: BilledTo;
  readonly model_key_id?: string | null;
  /** The API key that asked, or null when a signed-in user did (D34 counts sessions as users). */
  readonly key_id: string | null;
  /** The signed-in user who asked, or null for an API key; absent on interactions recorded before users existed. */
  readonly user_id?: string | null;
  /** How the question was asked; absent on interactions recorded before channels were, all asked through the API. */
  readonly channel?: InteractionChannel;
  readonly created_at: string;
}

export const INTERACTION_LIMITS = {
  /** D17 */
  queryMax: 4_000,
  commentMax: 2_000,
  /** Earlier turns of a session that go into the prompt. */
  historyTurns: 10,
} as const;
