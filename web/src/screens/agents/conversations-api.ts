import { type ApiClient, unwrap } from '../../api/client';
import type { components, operations } from '../../api/schema';
import type { Turn } from './agents.state';

export type ConversationSummary =
  operations['listConversations']['responses'][200]['content']['application/json']['conversations'][number];
type Interaction = components['schemas']['Interaction'];

/** How many of the person's conversations with an agent the playground lists. */
export const LISTED_CONVERSATIONS = 50;

/** The signed-in person's own conversations with the agent, most recently continued first. */
export async function listConversations(
  api: ApiClient,
  agentId: string,
  signal?: AbortSignal,
): Promise<ConversationSummary[]> {
  const page = await unwrap(
    api.GET('/api/v1/conversations', {
      params: { query: { agent_id: agentId, limit: String(LISTED_CONVERSATIONS) } },
      ...(signal ? { signal } : {}),
    }),
  );
  return page.conversations;
}

/** One of the person's conversations again, as the playground's turns (keys from `firstKey`). */
export async function openConversation(
  api: ApiClient,
  sessionId: string,
  firstKey: number,
  signal?: AbortSignal,
): Promise<Turn[]> {
  const conversation = await unwrap(
    api.GET('/api/v1/conversations/{id}', {
      params: { path: { id: sessionId } },
      ...(signal ? { signal } : {}),
    }),
  );
  return conversation.interactions.map((interaction, index) =>
    turnOfInteraction(firstKey + index, interaction),
  );
}

/** A recorded question and answer as a finished turn: the answer, its sources, facts and rating. */
export function turnOfInteraction(key: number, interaction: Interaction): Turn {
  return {
    key,
    question: interaction.query,
    status: 'done',
    text: interaction.response,
    sources: interaction.sources,
    metadata: {
      interaction_id: interaction.id,
      session_id: interaction.session_id,
      latency_ms: interaction.latency_ms,
      tokens_input: interaction.tokens_input,
      tokens_output: interaction.tokens_output,
      cost_usd: interaction.cost_usd,
      rag_strategy: interaction.rag_strategy,
      model: interaction.model,
      groundedness: interaction.groundedness,
    },
    error: null,
    feedback: interaction.feedback
      ? { feedback: interaction.feedback, comment: interaction.feedback_comment }
      : null,
  };
}
