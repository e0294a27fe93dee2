import * as z from 'zod';
import { isId } from '../../layers/core/domain/ids';
import { FEEDBACK_VALUES, INTERACTION_LIMITS } from '../../layers/core/domain/interaction';
import { citedSourceResource } from '../../layers/core/http/cited-source.schema';
import { queryDate } from '../../layers/core/http/date.schema';
import { paginationQuery } from '../../layers/core/http/pagination.schema';

/** GET /api/v1/interactions (spec): agent, dates (D3), feedback (`positive`, `negative`, `null`). */
export const listInteractionsQuery = z.strictObject({
  ...paginationQuery,
  agent_id: z
    .string()
    .refine((value) => isId('agent', value), 'must be an agt_ id')
    .optional(),
  start_date: queryDate.optional(),
  end_date: queryDate.optional(),
  feedback: z.enum([...FEEDBACK_VALUES, 'null']).optional(),
});

export const feedbackBody = z.strictObject({
  feedback: z.enum(FEEDBACK_VALUES),
  comment: z.string().max(INTERACTION_LIMITS.commentMax).nullable().optional(),
});

/** D8: the legacy feedback path names the interaction in the body. */
export const legacyFeedbackBody = feedbackBody.extend({
  interaction_id: z.string().refine((value) => isId('interaction', value), 'must be an int_ id'),
});

export const interactionResource = z.object({
  id: z.string(),
  agent_id: z.string(),
  session_id: z.string(),
  query: z.string(),
  response: z.string(),
  sources: z.array(citedSourceResource),
  cited_sources: z.int(),
  feedback: z.enum(FEEDBACK_VALUES).nullable(),
  feedback_comment: z.string().nullable(),
  latency_ms: z.int(),
  tokens_input: z.int(),
  tokens_output: z.int(),
  cost_usd: z.number(),
  rag_strategy: z.string(),
  model: z.string(),
  key_id: z.string().nullable(),
  user_id: z.string().nullable().optional(),
  created_at: z.string(),
});

export const interactionList = z.object({
  interactions: z.array(interactionResource),
  total: z.int(),
  limit: z.int(),
  offset: z.int(),
});
