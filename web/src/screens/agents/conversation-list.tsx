import { formatDateTime } from '../../format/format';
import type { ConversationSummary } from './conversations-api';

/**
 * The person's conversations with the agent, most recently continued
 * first, each named by its first question; the one shown is marked
 * current. Choosing one reopens it with its answers and sources.
 */
export function ConversationList({
  conversations,
  current,
  busy,
  onOpen,
}: {
  readonly conversations: readonly ConversationSummary[];
  readonly current: string | null;
  /** While an answer streams or one opens, choosing another waits. */
  readonly busy: boolean;
  readonly onOpen: (sessionId: string) => void;
}) {
  return (
    <section class="conversation-list" aria-labelledby="conversation-list-heading">
      <h2 id="conversation-list-heading">Your conversations</h2>
      {conversations.length === 0 ? (
        <p class="form__hint">None yet: your questions to this agent are kept here.</p>
      ) : (
        <ul>
          {conversations.map((conversation) => (
            <li key={conversation.session_id}>
              <button
                type="button"
                class="conversation-list__entry"
                aria-current={conversation.session_id === current ? 'true' : undefined}
                disabled={busy}
                onClick={() => onOpen(conversation.session_id)}
              >
                <span class="conversation-list__question">{conversation.first_question}</span>
                <span class="conversation-list__when">
                  {formatDateTime(conversation.last_asked_at)}
                  {conversation.turns > 1 ? ` · ${conversation.turns} questions` : ''}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
