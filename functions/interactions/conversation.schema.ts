import * as z from 'zod/mini';
import { isId } from '../../layers/core/domain/ids';
import { paginationQuery } from '../../layers/core/http/pagination.schema';
import { interactionResource } from './interaction.schema';

/** GET /api/v1/conversations: the caller's own, of one agent or all. */
export const listConversationsQuery = z.strictObject({
  ...paginationQuery,
  agent_id: z.optional(
    z.string().check(z.refine((value) => isId('agent', value), 'must be an agt_ id')),
  ),
});

export const conversationSummary = z.object({
  session_id: z
    .string()
    .check(z.describe('The conversation: the session_id to send with a follow-up question')),
  agent_id: z.string(),
  first_question: z
    .string()
    .check(z.describe('The first question asked in it, which names the conversation')),
  turns: z.int().check(z.describe('How many questions the caller asked in it')),
  started_at: z.string(),
  last_asked_at: z.string().check(z.describe('When its latest question was asked')),
});

export const conversationList = z.object({
  conversations: z.array(conversationSummary),
  total: z.int(),
  limit: z.int(),
  offset: z.int(),
});

export const conversationResource = z.object({
  session_id: z.string(),
  agent_id: z.string(),
  interactions: z
    .array(interactionResource)
    .check(z.describe('Its questions and answers, oldest first, with their sources')),
});
