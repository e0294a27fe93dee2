import * as z from 'zod/mini';
import { isId } from '../../layers/core/domain/ids';
import {
  FEEDBACK_VALUES,
  INTERACTION_CHANNELS,
  INTERACTION_LIMITS,
} from '../../layers/core/domain/interaction';
import { INTERACTION_SEARCH_MAX } from '../../layers/core/domain/interaction-search';
import { BILLED_TO } from '../../layers/core/domain/model-key';
import {
  citedSourceResource,
  GROUNDEDNESS_DESCRIPTION,
} from '../../layers/core/http/cited-source.schema';
import { queryDate } from '../../layers/core/http/date.schema';
import { paginationQuery } from '../../layers/core/http/pagination.schema';

/**
 * GET /api/v1/interactions (spec): agent, dates, feedback (`positive`,
 * `negative`, `null`); and a text search and whether it was answered.
 */
export const listInteractionsQuery = z.strictObject({
  ...paginationQuery,
  agent_id: z.optional(
    z.string().check(z.refine((value) => isId('agent', value), 'must be an agt_ id')),
  ),
  start_date: z.optional(queryDate),
  end_date: z.optional(queryDate),
  feedback: z.optional(z.enum([...FEEDBACK_VALUES, 'null'])),
  q: z.optional(
    z
      .string()
      .check(
        z.trim(),
        z.minLength(1, 'must not be empty'),
        z.maxLength(INTERACTION_SEARCH_MAX),
        z.describe('Text to find in the question or the answer, as one phrase, ignoring case'),
      ),
  ),
  answered: z.optional(
    z
      .enum(['true', 'false'])
      .check(
        z.describe(
          'false: only answers that said they could not answer (the agent\'s "I couldn\'t find anything…", or its answer when nothing is indexed); true: only the others',
        ),
      ),
  ),
});

export const feedbackBody = z.strictObject({
  feedback: z.enum(FEEDBACK_VALUES),
  comment: z.optional(z.nullable(z.string().check(z.maxLength(INTERACTION_LIMITS.commentMax)))),
});

/** The legacy feedback path names the interaction in the body. */
export const legacyFeedbackBody = z.extend(feedbackBody, {
  interaction_id: z
    .string()
    .check(z.refine((value) => isId('interaction', value), 'must be an int_ id')),
});

export const interactionResource = z.object({
  id: z.string(),
  agent_id: z.string(),
  session_id: z.string(),
  query: z.string(),
  response: z.string(),
  // Interactions recorded before sources named their document lack document_id and data_source_id.
  sources: z.array(
    z.extend(citedSourceResource, {
      document_id: z.optional(
        z
          .string()
          .check(
            z.describe(
              'The document the chunk belongs to (doc_…); absent on interactions recorded before sources named their document',
            ),
          ),
      ),
      data_source_id: z.optional(
        z
          .string()
          .check(
            z.describe(
              'The data source the document belongs to (ds_…); absent on interactions recorded before sources named their document',
            ),
          ),
      ),
    }),
  ),
  cited_sources: z.int(),
  groundedness: z.nullable(
    z
      .number()
      .check(
        z.minimum(0),
        z.maximum(1),
        z.describe(
          `${GROUNDEDNESS_DESCRIPTION}. Null for interactions recorded before answers were scored`,
        ),
      ),
  ),
  feedback: z.nullable(z.enum(FEEDBACK_VALUES)),
  feedback_comment: z.nullable(z.string()),
  latency_ms: z.int(),
  tokens_input: z.int(),
  tokens_output: z.int(),
  cost_usd: z.number(),
  rag_strategy: z.string(),
  model: z.string(),
  /** Who paid for the model call (absent on interactions older than model keys: the service). */
  billed_to: z.optional(z.enum(BILLED_TO)),
  model_key_id: z.optional(z.nullable(z.string())),
  key_id: z.nullable(z.string()),
  user_id: z.optional(z.nullable(z.string())),
  channel: z.optional(
    z
      .enum(INTERACTION_CHANNELS)
      .check(
        z.describe(
          'How the question was asked: the query API (api), an MCP host (mcp), an OpenAI-compatible client (openai) or an evaluation run (evaluation); absent on interactions recorded before it was kept',
        ),
      ),
  ),
  created_at: z.string(),
});

/** Who asked, as a person reads it (the list adds it to each interaction). */
export const askerResource = z.nullable(
  z
    .object({
      type: z.enum(['user', 'api_key']),
      id: z.string(),
      name: z.nullable(
        z
          .string()
          .check(
            z.describe("The user's name or the API key's name; null when it no longer exists"),
          ),
      ),
      email: z.nullable(
        z
          .string()
          .check(
            z.describe(
              "The user's email, for administrators and Admin keys only; null for an API key and for other viewers",
            ),
          ),
      ),
    })
    .check(
      z.describe(
        'Who asked: the signed-in user or the API key (user_id or key_id, named); null for interactions recorded before either was kept',
      ),
    ),
);

export const listedInteraction = z.extend(interactionResource, { asked_by: askerResource });

export const interactionList = z.object({
  interactions: z.array(listedInteraction),
  total: z.int(),
  limit: z.int(),
  offset: z.int(),
});
