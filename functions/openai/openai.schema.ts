import * as z from 'zod/mini';
import { AGENT_LIMITS } from '../../layers/core/domain/agent';
import { citedSourceResource } from '../../layers/core/http/cited-source.schema';

/**
 * The OpenAI Chat Completions API, as far as an agent can serve it. Objects
 * are loose: OpenAI clients send parameters of their own (top_p, n,
 * stream_options, user, …) that do not change what an agent answers, and
 * must not be refused for them.
 */

const MESSAGE_ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;

const contentPart = z.looseObject({
  type: z.string(),
  text: z.optional(z.string()),
});

export const chatMessage = z.looseObject({
  role: z.enum(MESSAGE_ROLES),
  content: z.optional(z.nullable(z.union([z.string(), z.array(contentPart)]))),
});

export const chatCompletionsBody = z.looseObject({
  model: z
    .string()
    .check(z.minLength(1), z.describe('The agent to answer with (agt_…), as GET /models lists it')),
  messages: z
    .array(chatMessage)
    .check(
      z.minLength(1, 'must hold at least the question'),
      z.maxLength(1000),
      z.describe(
        "The conversation: the last message is the user's question, earlier user and assistant messages the history the agent sees. System and tool messages are ignored (the agent has its own instructions)",
      ),
    ),
  stream: z.optional(z.nullable(z.boolean())),
  temperature: z.optional(
    z.nullable(
      z
        .number()
        .check(z.minimum(AGENT_LIMITS.temperatureMin), z.maximum(AGENT_LIMITS.temperatureMax)),
    ),
  ),
  max_tokens: z.optional(
    z.nullable(z.int().check(z.minimum(1), z.maximum(AGENT_LIMITS.maxTokensMax))),
  ),
  max_completion_tokens: z.optional(
    z.nullable(z.int().check(z.minimum(1), z.maximum(AGENT_LIMITS.maxTokensMax))),
  ),
  n: z.optional(z.nullable(z.literal(1).check(z.describe('One answer per request')))),
});

/** A cited source, with the number the answer's text cites it by. */
export const numberedSource = z.extend(citedSourceResource, {
  number: z
    .int()
    .check(
      z.describe(
        "The [n] the answer's text cites this source by: in a streamed answer, the numbering of the text as streamed",
      ),
    ),
});

const usage = z.object({
  prompt_tokens: z.int(),
  completion_tokens: z.int(),
  total_tokens: z.int(),
});

export const chatCompletion = z.object({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.int().check(z.describe('Unix seconds')),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.int(),
      message: z.object({
        role: z.literal('assistant'),
        content: z.string(),
        refusal: z.null(),
      }),
      logprobs: z.null(),
      finish_reason: z.literal('stop'),
    }),
  ),
  usage,
  sources: z
    .array(numberedSource)
    .check(z.describe('Extension: the sources the answer cites, each with its passage')),
  interaction_id: z.string().check(z.describe('Extension: the interaction recorded (int_…)')),
});

/**
 * One `data:` line of a streamed chat completion: a `chat.completion.chunk`
 * (the last one finishing with `stop`, with the usage and the sources), an
 * error object if the answer breaks off, and the closing `[DONE]`. OpenAI's
 * stream names no events, so each is the default `message`.
 */
export const chatCompletionStreamData = z.union([
  z.looseObject({
    id: z.string(),
    object: z.literal('chat.completion.chunk'),
    created: z.int(),
    model: z.string(),
    choices: z.array(
      z.looseObject({
        index: z.int(),
        delta: z.looseObject({
          role: z.optional(z.literal('assistant')),
          content: z.optional(z.string()),
        }),
        finish_reason: z.nullable(z.literal('stop')),
      }),
    ),
    usage: z.optional(usage),
    sources: z.optional(z.array(numberedSource)),
    interaction_id: z.optional(z.string()),
  }),
  z.looseObject({
    error: z.looseObject({ message: z.string(), type: z.string() }),
  }),
  z.literal('[DONE]'),
]);

export const modelList = z.object({
  object: z.literal('list'),
  data: z.array(
    z.object({
      id: z.string().check(z.describe('The agent id (agt_…)')),
      object: z.literal('model'),
      created: z.int().check(z.describe('Unix seconds: when the agent was created')),
      owned_by: z.string().check(z.describe('The organization (org_…)')),
      name: z.string().check(z.describe("Extension: the agent's name")),
    }),
  ),
});
