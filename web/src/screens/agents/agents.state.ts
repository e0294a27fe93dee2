import { ApiError } from '../../api/api-error';
import type { components, operations } from '../../api/schema';
import type { ServerEvent } from '../../api/server-events';
import { type Me, roleAtLeast } from '../../state/roles';
import { chosenModel } from './model-choices';

export type Agent = components['schemas']['Agent'];
export type AgentInput = operations['createAgent']['requestBody']['content']['application/json'];
export type QueryResult = components['schemas']['QueryResult'];
export type CitedSource = components['schemas']['CitedSource'];
export type SearchResult = components['schemas']['SemanticSearchResult'];
export type RagStrategy = Agent['rag_strategy'];

/** D20's strategies, in the order the form offers them, with what each does in a phrase. */
export const STRATEGIES: ReadonlyArray<{ value: RagStrategy; label: string }> = [
  { value: 'hybrid', label: 'Hybrid: meaning and keywords, fused (default)' },
  { value: 'similarity', label: 'Similarity: closest meaning' },
  { value: 'mmr', label: 'MMR: close, but not repeating each other' },
  { value: 'rerank', label: 'Rerank: hybrid, then re-ranked' },
];

/** What the strategy's own score is, for the label beside it. */
export const SCORE_NAMES: Readonly<Record<RagStrategy, string>> = {
  similarity: 'cosine similarity',
  hybrid: 'reciprocal rank fusion',
  mmr: 'marginal relevance',
  rerank: 're-ranker score',
};

/** What a new agent starts with (the form's defaults; its model is the first the service offers). */
export const AGENT_FORM_DEFAULTS = {
  rag_strategy: 'hybrid',
  temperature: 0.2,
  max_tokens: 1024,
} as const;

/** What the signed-in person may do with agents. */
export interface AgentPermissions {
  /** configure: create, edit and delete (readonly and train only ask and search). */
  readonly change: boolean;
  /** A user whose groups restrict their agents cannot create one. */
  readonly create: boolean;
  /** train: thumbs up or down on an answer. */
  readonly feedback: boolean;
  /** admin: model keys are listed (and chosen) by administrators only. */
  readonly modelKeys: boolean;
}

export function agentPermissions(me: Me | null): AgentPermissions {
  const role = me?.access.role ?? 'readonly';
  const change = roleAtLeast(role, 'configure');
  return {
    change,
    create: change && me?.access.agent_ids === null,
    feedback: roleAtLeast(role, 'train'),
    modelKeys: role === 'admin',
  };
}

/**
 * A source as the playground shows it: the passage always (the stream's
 * `done` omits it); a reopened answer recorded before sources named their
 * document lacks its ids.
 */
export interface ShownSource
  extends Omit<CitedSource, 'chunk_text' | 'document_id' | 'data_source_id'> {
  readonly chunk_text: string | null;
  readonly document_id?: string | undefined;
  readonly data_source_id?: string | undefined;
}

/** What the playground shows about an answer: the stream's `done` metadata, or a recorded interaction's. */
export interface AnswerFacts {
  readonly interaction_id: string;
  readonly session_id: string;
  readonly latency_ms: number;
  readonly tokens_input: number;
  readonly tokens_output: number;
  readonly cost_usd: number;
  readonly rag_strategy: string;
  readonly model: string;
  /** Null on an answer recorded before answers were scored. */
  readonly groundedness: number | null;
}

/** A rating the person gave an answer, and the comment they added to it, if any. */
export interface GivenFeedback {
  readonly feedback: 'positive' | 'negative';
  readonly comment: string | null;
}

/** One question and its answer, as the stream builds it or as a reopened conversation recorded it. */
export interface Turn {
  readonly key: number;
  readonly question: string;
  /** streaming; done; failed (an `error` event or a refusal); cut (the stream ended early). */
  readonly status: 'streaming' | 'done' | 'failed' | 'cut';
  readonly text: string;
  /** While streaming, numbered as the deltas cite them; once done, the cited ones renumbered. */
  readonly sources: readonly ShownSource[];
  readonly metadata: AnswerFacts | null;
  readonly error: unknown;
  /** The rating already recorded (a reopened answer's), or null. */
  readonly feedback: GivenFeedback | null;
}

export function startTurn(key: number, question: string): Turn {
  return {
    key,
    question,
    status: 'streaming',
    text: '',
    sources: [],
    metadata: null,
    error: null,
    feedback: null,
  };
}

function parse(data: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(data);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The HTTP status an `error` event's code stands for (the stream's own status was 200). */
const STATUS_OF_CODE: Readonly<Record<string, number>> = {
  invalid_request: 400,
  not_found: 404,
  conflict: 409,
  model_provider_refused: 424,
  rate_limit_exceeded: 429,
  internal_error: 500,
  service_unavailable: 503,
};

/** An `error` event (the nested error shape) as the error it reports. */
export function streamError(data: Record<string, unknown> | null): ApiError {
  const error = data?.error;
  const code =
    typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
      ? error.code
      : 'internal_error';
  return ApiError.from(data, { status: STATUS_OF_CODE[code] ?? 502, headers: new Headers() });
}

/** What a stream that ended before `done` leaves: the text so far, and why it stopped. */
export function cutTurn(turn: Turn): Turn {
  return {
    ...turn,
    status: 'cut',
    error: new ApiError(
      0,
      'stream_cut',
      'The answer was cut off: the connection dropped before it finished. Ask again.',
      '',
      {},
      null,
      null,
    ),
  };
}

/** One event of D19's stream applied to the turn: `sources`, `delta`…, then `done` or `error`. */
export function applyEvent(turn: Turn, event: ServerEvent): Turn {
  const data = parse(event.data);
  switch (event.event) {
    case 'sources': {
      const sources = Array.isArray(data?.sources) ? (data.sources as CitedSource[]) : [];
      return { ...turn, sources };
    }
    case 'delta':
      return typeof data?.text === 'string' ? { ...turn, text: turn.text + data.text } : turn;
    case 'done': {
      if (!data) return turn;
      const result = data as unknown as components['schemas']['QueryStreamDone'];
      // `done` lists the cited sources, renumbered, without their passages: the
      // `sources` event had them, so each is found again by its chunk.
      const passages = new Map(turn.sources.map((source) => [source.chunk_id, source.chunk_text]));
      return {
        ...turn,
        status: 'done',
        text: result.response,
        sources: result.sources.map((source) => ({
          ...source,
          chunk_text: passages.get(source.chunk_id) ?? null,
        })),
        metadata: result.metadata,
      };
    }
    case 'error':
      return { ...turn, status: 'failed', error: askFailure(streamError(data)) };
    default:
      return turn;
  }
}

/** A refusal of the question itself, in words for the playground. */
export function askFailure(error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  if (error.status === 409) {
    return reworded(
      error,
      'This agent is disabled, so it does not answer. Someone who may edit agents can set it to Active.',
    );
  }
  if (error.status === 404) {
    return reworded(error, 'This agent no longer exists, or your groups do not let you use it.');
  }
  // The service's own words name its settings (for an operator); a person needs what to do.
  if (error.status === 400 && error.fields.some((field) => field.path === 'model')) {
    return reworded(
      error,
      "No answer: this agent's model cannot answer on this service. Someone who may edit agents can choose one of the models the agent form offers.",
    );
  }
  if (error.status === 424) {
    return reworded(
      error,
      `No answer: the model provider refused to answer with this agent's model or model key${error.serverMessage ? ` (${error.serverMessage.replace(/\.$/, '')})` : ''}. Someone who may edit agents can check its model and model key.`,
    );
  }
  if (error.status === 503) {
    return reworded(
      error,
      'No answer: the model is not answering for now. Ask again in a moment; if it keeps failing, quote the reference.',
    );
  }
  return error;
}

function reworded(error: ApiError, message: string): ApiError {
  return new ApiError(
    error.status,
    error.code,
    message,
    error.serverMessage,
    error.details,
    error.requestId,
    error.retryAfter,
  );
}

/** The labels the form's fields have, for the 400's `details.fields` paths. */
export const FIELD_LABELS: Readonly<Record<string, string>> = {
  name: 'Name',
  data_source_ids: 'Data sources',
  rag_strategy: 'Strategy',
  model: 'Model',
  temperature: 'Temperature',
  max_tokens: 'Max tokens',
  system_prompt: 'System prompt',
  model_key_id: 'Model key',
  status: 'Status',
};

/**
 * The agent form's values as the API's body: the system prompt blank is
 * none (`null`); the model key only when the person may choose it (an admin),
 * so another role's save never detaches the key.
 */
export function agentInput(form: FormData, withModelKey: boolean): AgentInput {
  const text = (name: string) => String(form.get(name) ?? '');
  const prompt = text('system_prompt').trim();
  const input: AgentInput = {
    name: text('name').trim(),
    data_source_ids: form.getAll('data_source_ids').map(String),
    rag_strategy: text('rag_strategy') as RagStrategy,
    model: chosenModel(form),
    temperature: Number(text('temperature')),
    max_tokens: Number(text('max_tokens')),
    system_prompt: prompt === '' ? null : text('system_prompt'),
    status: text('status') === 'disabled' ? 'disabled' : 'active',
  };
  if (withModelKey) {
    const key = text('model_key_id');
    return { ...input, model_key_id: key === '' ? null : key };
  }
  return input;
}

/** A score to four significant digits: what tells two ranks apart without noise. */
export function formatScore(score: number): string {
  if (!Number.isFinite(score)) return String(score);
  const fixed = score.toPrecision(4);
  return fixed.includes('.') && !fixed.includes('e') ? fixed.replace(/\.?0+$/, '') : fixed;
}

/** A cost in US dollars; fractions of a cent keep their first significant digits. */
export function formatCost(usd: number): string {
  if (usd === 0) return '$0';
  if (usd >= 0.01) return `$${usd.toFixed(2)}`;
  return `$${usd.toPrecision(2)}`;
}

/** `?page=` as a page number from 1; anything else is the first page. */
export function pageOf(query: Record<string, string>): number {
  const page = Number(query.page);
  return Number.isInteger(page) && page >= 1 ? page : 1;
}

/** The list's address: the name filter and the page, both kept in it (a reload keeps them). */
export function listPath(search: string, page: number): string {
  const params = new URLSearchParams();
  if (search.trim() !== '') params.set('q', search.trim());
  if (page > 1) params.set('page', String(page));
  const query = params.toString();
  return query ? `/agents?${query}` : '/agents';
}
