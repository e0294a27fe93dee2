import type * as z from 'zod/mini';
import { InvalidRequestError } from '../../layers/core/domain/errors';
import { INTERACTION_LIMITS } from '../../layers/core/domain/interaction';
import type { ConversationTurn } from '../../layers/core/ports/answerer.port';
import type { chatMessage } from './openai.schema';

type ChatMessage = z.output<typeof chatMessage>;

/** What an agent is asked: the last user message, with the turns before it. */
export interface Conversation {
  readonly question: string;
  readonly history: readonly ConversationTurn[];
}

/** A message's text: its content, or its text parts joined (images and other parts carry none). */
function textOf(message: ChatMessage): string {
  const { content } = message;
  if (typeof content === 'string') return content;
  return (content ?? [])
    .flatMap((part) => (part.type === 'text' && part.text !== undefined ? [part.text] : []))
    .join('\n');
}

/**
 * An OpenAI conversation as an agent's question and history: the last
 * message must be the user's, and is the question; each earlier user
 * message and the assistant message after it are a turn (a user message
 * left unanswered is a turn without an answer). System, developer and tool
 * messages are left out: the agent answers by its own instructions, from its
 * own sources. Only the last turns are kept, as a session keeps them.
 */
export function conversationOf(messages: readonly ChatMessage[]): Conversation {
  const last = messages.at(-1);
  const question = last ? textOf(last).trim() : '';
  const problem =
    last?.role !== 'user'
      ? "must end with the user's question (a message with role user)"
      : question === ''
        ? "the last message must hold the user's question"
        : question.length > INTERACTION_LIMITS.queryMax
          ? `the question must be at most ${INTERACTION_LIMITS.queryMax} characters`
          : undefined;
  if (problem) {
    const path = `messages.${messages.length - 1}`;
    throw new InvalidRequestError(`Invalid request body: ${path}: ${problem}`, {
      fields: [{ path, message: problem }],
    });
  }
  const turns: ConversationTurn[] = [];
  let asked: string | undefined;
  for (const message of messages.slice(0, -1)) {
    if (message.role === 'user') {
      if (asked !== undefined) turns.push({ question: asked, answer: '' });
      asked = textOf(message);
    } else if (message.role === 'assistant' && asked !== undefined) {
      turns.push({ question: asked, answer: textOf(message) });
      asked = undefined;
    }
  }
  if (asked !== undefined) turns.push({ question: asked, answer: '' });
  return { question, history: turns.slice(-INTERACTION_LIMITS.historyTurns) };
}
