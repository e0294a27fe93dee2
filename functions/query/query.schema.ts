import * as z from 'zod';
import { AGENT_LIMITS } from '../../layers/core/domain/agent';
import { isId } from '../../layers/core/domain/ids';
import { INTERACTION_LIMITS } from '../../layers/core/domain/interaction';
import { citedSourceResource } from '../../layers/core/http/cited-source.schema';

/** POST /api/v1/query (spec; D17, D18, D19). */
export const queryBody = z.strictObject({
  agent_id: z.string().refine((value) => isId('agent', value), 'must be an agt_ id'),
  query: z.string().trim().min(1, 'must not be empty').max(INTERACTION_LIMITS.queryMax),
  session_id: z
    .string()
    .refine((value) => isId('session', value), 'must be a sess_ id')
    .optional(),
  stream: z.boolean().default(false),
  temperature: z
    .number()
    .min(AGENT_LIMITS.temperatureMin)
    .max(AGENT_LIMITS.temperatureMax)
    .optional(),
  max_tokens: z.int().min(1).max(AGENT_LIMITS.maxTokensMax).optional(),
});

export const queryResult = z.object({
  response: z.string(),
  sources: z.array(citedSourceResource),
  metadata: z.object({
    interaction_id: z.string(),
    session_id: z.string(),
    latency_ms: z.int(),
    tokens_input: z.int(),
    tokens_output: z.int(),
    cost_usd: z.number(),
    rag_strategy: z.string(),
    model: z.string(),
  }),
});
