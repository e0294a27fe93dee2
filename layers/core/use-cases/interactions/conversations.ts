import { type AgentAccess, mayUseAgent } from '../../domain/agent-access';
import { NotFoundError } from '../../domain/errors';
import type { Interaction } from '../../domain/interaction';
import { type Page, type PageRequest, pageOf } from '../../domain/pagination';
import type { AskedBy, InteractionRepository } from '../../ports/interaction-repository.port';

/** Whose conversations are read: the asker, in their organization, through the agents they may use. */
export interface ConversationReader {
  readonly orgId: string;
  readonly askedBy: AskedBy;
  readonly access: AgentAccess;
}

/** One conversation as a list shows it: what it began with, and when it was last continued. */
export interface ConversationSummary {
  readonly session_id: string;
  readonly agent_id: string;
  /** The first question asked in it: what a person recognises it by. */
  readonly first_question: string;
  readonly turns: number;
  readonly started_at: string;
  readonly last_asked_at: string;
}

/** One conversation whole: its questions and answers, oldest first. */
export interface Conversation {
  readonly session_id: string;
  readonly agent_id: string;
  readonly interactions: readonly Interaction[];
}

/**
 * An evaluation run asks with the person who started it as the asker, but
 * nobody had that conversation: its questions are a test, listed with the
 * evaluation, not among the person's conversations.
 */
const wasAConversation = (interaction: Interaction) => interaction.channel !== 'evaluation';

async function askedByReader(
  interactions: InteractionRepository,
  reader: ConversationReader,
  filter: { readonly agentId?: string; readonly sessionId?: string },
): Promise<Interaction[]> {
  const all = await interactions.list(
    reader.orgId,
    { ...filter, askedBy: reader.askedBy },
    { limit: Number.MAX_SAFE_INTEGER, offset: 0 },
  );
  return all.items.filter(
    (interaction) =>
      wasAConversation(interaction) && mayUseAgent(reader.access, interaction.agent_id),
  );
}

/**
 * The reader's own conversations, most recently continued first. A
 * conversation is a session: the interactions that share its id. Only what
 * the reader asked counts, so a session someone else continued under the
 * same id shows the reader their own turns only.
 */
export async function listConversations(
  deps: { readonly interactions: InteractionRepository },
  reader: ConversationReader,
  filter: { readonly agentId?: string },
  page: PageRequest,
): Promise<Page<ConversationSummary>> {
  if (filter.agentId !== undefined && !mayUseAgent(reader.access, filter.agentId)) {
    return { items: [], total: 0 };
  }
  // Newest first, so a session's first entry seen is its latest turn, and its last its first.
  const newestFirst = await askedByReader(deps.interactions, reader, filter);
  const bySession = new Map<string, { latest: Interaction; first: Interaction; turns: number }>();
  for (const interaction of newestFirst) {
    const seen = bySession.get(interaction.session_id);
    if (seen) {
      seen.first = interaction;
      seen.turns += 1;
    } else {
      bySession.set(interaction.session_id, { latest: interaction, first: interaction, turns: 1 });
    }
  }
  const summaries = [...bySession.values()].map(
    ({ latest, first, turns }): ConversationSummary => ({
      session_id: first.session_id,
      agent_id: first.agent_id,
      first_question: first.query,
      turns,
      started_at: first.created_at,
      last_asked_at: latest.created_at,
    }),
  );
  return pageOf(summaries, page);
}

/**
 * One of the reader's conversations, oldest turn first. A session the
 * reader asked nothing in — another person's, or one that does not exist —
 * is answered the same way: not found.
 */
export async function getConversation(
  deps: { readonly interactions: InteractionRepository },
  reader: ConversationReader,
  sessionId: string,
): Promise<Conversation> {
  const newestFirst = await askedByReader(deps.interactions, reader, { sessionId });
  const first = newestFirst.at(-1);
  if (!first) throw new NotFoundError(`No conversation ${sessionId}`);
  return {
    session_id: sessionId,
    agent_id: first.agent_id,
    interactions: newestFirst.reverse(),
  };
}
