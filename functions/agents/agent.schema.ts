import * as z from 'zod/mini';
import { AGENT_LIMITS, AGENT_STATUSES, RAG_STRATEGIES } from '../../layers/core/domain/agent';
import { DEPLOYMENT_PROVIDERS } from '../../layers/core/domain/deployment-models';
import { isId } from '../../layers/core/domain/ids';
import { MODEL_KEY_PROVIDERS } from '../../layers/core/domain/model-key';
import { paginationQuery } from '../../layers/core/http/pagination.schema';

const dataSourceId = z
  .string()
  .check(z.refine((value) => isId('dataSource', value), 'must be a ds_ id'));

/**
 * DynamoDB cannot store a number of magnitude below 1e-130 (it refuses the
 * write, which would surface as a 500). A temperature that small is 0 in all
 * but name, so it is refused here as out of range instead.
 */
const SMALLEST_STORABLE_NUMBER = 1e-130;

/** `POST /api/v1/agents`: name and data_source_ids required (spec), bounds. */
export const createAgentBody = z.strictObject({
  name: z
    .string()
    .check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(AGENT_LIMITS.nameMax)),
  data_source_ids: z.array(dataSourceId).check(z.maxLength(AGENT_LIMITS.dataSourcesMax)),
  system_prompt: z.optional(
    z.nullable(z.string().check(z.maxLength(AGENT_LIMITS.systemPromptMax))),
  ),
  rag_strategy: z.optional(z.enum(RAG_STRATEGIES)),
  model: z.optional(
    z.string().check(z.trim(), z.minLength(1), z.maxLength(AGENT_LIMITS.modelNameMax)),
  ),
  temperature: z.optional(
    z.number().check(
      z.minimum(AGENT_LIMITS.temperatureMin),
      z.maximum(AGENT_LIMITS.temperatureMax),
      z.refine(
        (value) => value <= 0 || value >= SMALLEST_STORABLE_NUMBER,
        `must be 0 or at least ${SMALLEST_STORABLE_NUMBER}`,
      ),
    ),
  ),
  max_tokens: z.optional(z.int().check(z.minimum(1), z.maximum(AGENT_LIMITS.maxTokensMax))),
  status: z.optional(z.enum(AGENT_STATUSES)),
  /** Answer with (and bill) the organization's model key; `null` returns to the service's provider. */
  model_key_id: z.optional(
    z.nullable(z.string().check(z.refine((value) => isId('modelKey', value), 'must be an mk_ id'))),
  ),
});

/** `PUT /api/v1/agents/:id`: the same fields, all optional. */
export const updateAgentBody = z.partial(createAgentBody);

/**
 * `q` keeps the agents whose name contains it, ignoring case (the
 * console's search box); blank after trimming is 400 like any bad value.
 */
export const listAgentsQuery = z.strictObject({
  ...paginationQuery,
  q: z.optional(
    z
      .string()
      .check(
        z.trim(),
        z.minLength(1, 'must not be empty'),
        z.maxLength(AGENT_LIMITS.nameMax),
        z.describe('Only agents whose name contains this text, ignoring case'),
      ),
  ),
});

/** The Agent resource as returned. */
export const agentResource = z.object({
  id: z.string(),
  name: z.string(),
  system_prompt: z.nullable(z.string()),
  rag_strategy: z.enum(RAG_STRATEGIES),
  model: z.string(),
  temperature: z.number(),
  max_tokens: z.int(),
  data_source_ids: z.array(z.string()),
  model_key_id: z.nullable(z.string()),
  status: z.enum(AGENT_STATUSES),
  created_at: z.string(),
  updated_at: z.string(),
});

export const agentList = z.object({
  agents: z.array(agentResource),
  total: z.int(),
  limit: z.int(),
  offset: z.int(),
});

/** Where an agent's answers can come from, and which models it serves there. */
export const modelChoice = z.object({
  model_key_id: z
    .nullable(z.string())
    .check(
      z.describe("null: the service's own provider; else the organization's model key that pays"),
    ),
  label: z.string().check(z.describe('What a person calls it: the service, or the key’s name')),
  provider: z.enum([...DEPLOYMENT_PROVIDERS, ...MODEL_KEY_PROVIDERS]),
  models: z
    .array(z.string())
    .check(z.describe('The models to offer; the first is what a new agent takes here')),
  other_models: z
    .boolean()
    .check(z.describe('Whether a model name not listed is accepted (the provider decides)')),
});

/** `GET /api/v1/models`. */
export const modelChoiceList = z.object({ choices: z.array(modelChoice) });
