/** Retrieval strategies; `hybrid` is the default. */
export const RAG_STRATEGIES = ['similarity', 'hybrid', 'mmr', 'rerank'] as const;
export type RagStrategy = (typeof RAG_STRATEGIES)[number];

/** A disabled agent refuses queries. */
export const AGENT_STATUSES = ['active', 'disabled'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

/** D17 and D18 bounds, enforced at the edge. */
export const AGENT_LIMITS = {
  nameMax: 200,
  systemPromptMax: 20_000,
  temperatureMin: 0,
  temperatureMax: 2,
  maxTokensMax: 32_768,
  dataSourcesMax: 100,
  modelNameMax: 200,
} as const;

export const AGENT_DEFAULTS = {
  ragStrategy: 'hybrid',
  /** The offline default model, used when no provider is configured. */
  model: 'offline-extractive',
  temperature: 0.2,
  maxTokens: 1024,
  status: 'active',
} as const satisfies {
  ragStrategy: RagStrategy;
  model: string;
  temperature: number;
  maxTokens: number;
  status: AgentStatus;
};

/** An agent as stored and as returned (field names are the API's). */
export interface Agent {
  readonly id: string;
  readonly name: string;
  readonly system_prompt: string | null;
  readonly rag_strategy: RagStrategy;
  readonly model: string;
  readonly temperature: number;
  readonly max_tokens: number;
  readonly data_source_ids: readonly string[];
  /** The organization's model key its answers use (and are billed to); `null`: the service's provider. */
  readonly model_key_id: string | null;
  readonly status: AgentStatus;
  readonly created_at: string;
  readonly updated_at: string;
}

export type AgentChanges = Partial<
  Pick<
    Agent,
    | 'name'
    | 'system_prompt'
    | 'rag_strategy'
    | 'model'
    | 'temperature'
    | 'max_tokens'
    | 'data_source_ids'
    | 'model_key_id'
    | 'status'
  >
>;
