import * as z from 'zod/mini';
import { AGENT_LIMITS } from '../../layers/core/domain/agent';
import { isId } from '../../layers/core/domain/ids';
import { INTERACTION_LIMITS } from '../../layers/core/domain/interaction';

/**
 * The MCP tools' arguments and results. An MCP host shows the descriptions
 * to its model, which picks tools and fills arguments from them alone: they
 * say what each is for and where its ids come from.
 */

const agentId = z.string().check(
  z.refine((value) => isId('agent', value), 'must be an agt_ id'),
  z.describe('The agent to use (agt_…), as list_agents gives it'),
);

const question = z
  .string()
  .check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(INTERACTION_LIMITS.queryMax));

const dataSourceId = z
  .string()
  .check(z.refine((value) => isId('dataSource', value), 'must be a ds_ id'));

export const listAgentsOutput = {
  agents: z.array(
    z.object({
      id: z.string().check(z.describe('The agent id (agt_…) to pass to ask_agent or search')),
      name: z.string(),
      data_source_ids: z
        .array(z.string())
        .check(z.describe('The data sources (ds_…) the agent answers from')),
    }),
  ),
};

export const askAgentInput = {
  agent_id: agentId,
  question: question.check(z.describe('The question, in plain words')),
  session_id: z.optional(
    z.string().check(
      z.refine((value) => isId('session', value), 'must be a sess_ id'),
      z.describe(
        'To ask a follow-up: the session_id an earlier ask_agent result gave; the agent then sees the earlier questions and answers',
      ),
    ),
  ),
};

/** A source as a reader checks it: what it is, where it opens, and the passage the answer relied on. */
const citedPassage = z.object({
  number: z.int().check(z.describe('The [n] the answer cites it by')),
  title: z.string(),
  link: z.nullable(z.string()).check(z.describe('Where the document opens; null when it has none')),
  passage: z.string().check(z.describe('The words of the document the answer quotes or relies on')),
});

export const askAgentOutput = {
  answer: z.string().check(z.describe('The answer, citing its sources as [1], [2]…')),
  sources: z.array(citedPassage),
  session_id: z.string().check(z.describe('Pass it back as session_id to ask a follow-up')),
  interaction_id: z.string(),
};

export const searchInput = {
  query: question.check(z.describe('What to look for, in plain words')),
  agent_id: z.optional(
    agentId.check(z.describe("Search only this agent's data sources (agt_…, from list_agents)")),
  ),
  data_source_ids: z.optional(
    z
      .array(dataSourceId)
      .check(
        z.maxLength(AGENT_LIMITS.dataSourcesMax),
        z.describe(
          'Search only these data sources (ds_…, e.g. from list_agents); with agent_id, only those of them the agent answers from',
        ),
      ),
  ),
  top_k: z.optional(
    z.int().check(z.minimum(1), z.maximum(50), z.describe('How many passages, 5 unless said')),
  ),
};

export const searchOutput = {
  passages: z.array(
    z.object({
      title: z.string(),
      link: z.nullable(z.string()),
      passage: z.string(),
      score: z
        .number()
        .check(z.describe('Higher is closer to the query; comparable within one result only')),
      data_source_id: z.string(),
      document_id: z.string(),
    }),
  ),
};
