import * as z from 'zod/mini';
import { AGENT_LIMITS } from '../../layers/core/domain/agent';
import { isId } from '../../layers/core/domain/ids';
import { INTERACTION_LIMITS } from '../../layers/core/domain/interaction';
import { BILLED_TO } from '../../layers/core/domain/model-key';
import {
  citedSourceResource,
  GROUNDEDNESS_DESCRIPTION,
} from '../../layers/core/http/cited-source.schema';
import { anyErrorBody } from '../../layers/core/http/error-body.schema';

/** POST /api/v1/query (spec). */
export const queryBody = z.strictObject({
  agent_id: z.string().check(z.refine((value) => isId('agent', value), 'must be an agt_ id')),
  query: z
    .string()
    .check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(INTERACTION_LIMITS.queryMax)),
  session_id: z.optional(
    z.string().check(
      z.refine((value) => isId('session', value), 'must be a sess_ id'),
      z.describe(
        "Continues a conversation: an earlier answer's `metadata.session_id`. A conversation started by a signed-in person is continued only by that person, one started with an API key by the organization's API keys; anyone else's answers 404.",
      ),
    ),
  ),
  stream: z._default(z.boolean(), false),
  temperature: z.optional(
    z
      .number()
      .check(z.minimum(AGENT_LIMITS.temperatureMin), z.maximum(AGENT_LIMITS.temperatureMax)),
  ),
  max_tokens: z.optional(z.int().check(z.minimum(1), z.maximum(AGENT_LIMITS.maxTokensMax))),
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
    /** Who paid for the model call. */
    billed_to: z.enum(BILLED_TO),
    /** The organization's model key that paid, or null. */
    model_key_id: z.nullable(z.string()),
    groundedness: z
      .number()
      .check(z.minimum(0), z.maximum(1), z.describe(GROUNDEDNESS_DESCRIPTION)),
  }),
});

/**
 * The events of a streamed answer (`stream: true`), by name, with the JSON
 * object each `data` line carries: the sources first, then the answer's
 * text in pieces, then the result without repeating the chunks' text, or an
 * error in place of whatever did not come.
 */
export const queryStreamEvents = {
  sources: z.object({ sources: z.array(citedSourceResource) }),
  delta: z.object({ text: z.string() }),
  done: z.extend(queryResult, {
    sources: z.array(z.omit(citedSourceResource, { chunk_text: true })),
  }),
  error: anyErrorBody,
};
