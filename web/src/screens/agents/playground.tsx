import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { CopyButton } from '../../components/copy-button';
import { Dialog } from '../../components/dialog';
import { ErrorNotice } from '../../components/error-notice';
import { GroundednessFact } from '../../components/groundedness';
import { QuotedPassage, quotesSomething } from '../../components/quoted-passage';
import { formatNumber } from '../../format/format';
import { useApp } from '../../state/app-context';
import {
  type Agent,
  formatCost,
  formatScore,
  SCORE_NAMES,
  type ShownSource,
  startTurn,
  type Turn,
} from './agents.state';
import { askStreaming } from './agents-api';
import { AnswerFeedback } from './answer-feedback';
import { AnswerText } from './answer-text';
import { ConversationList } from './conversation-list';
import { type ConversationSummary, listConversations, openConversation } from './conversations-api';
import { mergeSources, numbersInWords, type SourceEntry } from './source-entries';

/** True when "/" typed there is text, not the shortcut. */
function typingIn(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))
  );
}

/**
 * Ask the agent: the answer streams in as it is written, as Markdown; each
 * `[n]` opens its source; follow-ups continue the session until "New
 * conversation". The person's conversations are kept by the service: the
 * latest is shown again after a reload, and earlier ones are listed to
 * reopen. Each answer lists its sources once each, and shows how much of it
 * they support, latency, tokens, cost, model and strategy; it can be copied
 * or asked again, and people who train rate it.
 */
export function Playground({ agent }: { readonly agent: Agent }) {
  const { session } = useApp();
  const turns = useSignal<readonly Turn[]>([]);
  const sessionId = useSignal<string | null>(null);
  const asking = useSignal(false);
  const opened = useSignal<{ turn: number; source: number } | null>(null);
  const conversations = useSignal<readonly ConversationSummary[] | null>(null);
  /** What the conversation area is doing besides answering: reopening one, or failing to. */
  const reopening = useSignal<{ status: 'opening' | 'opened'; question: string } | null>(null);
  const listFailure = useSignal<unknown>(null);
  const box = useRef<HTMLTextAreaElement>(null);
  const controller = useRef<AbortController | null>(null);
  const nextKey = useRef(1);
  /**
   * Bumped by whatever changes the conversation shown (asking, starting a
   * new one, opening one), so a conversation that finishes opening after the
   * person moved on is dropped rather than shown over what they are doing.
   */
  const shownChange = useRef(0);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey) return;
      if (typingIn(event.target) || document.querySelector('dialog[open]')) return;
      event.preventDefault();
      box.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      controller.current?.abort();
    };
  }, []);

  const refreshList = async (signal?: AbortSignal) => {
    try {
      conversations.value = await listConversations(session.api, agent.id, signal);
      listFailure.value = null;
    } catch (error) {
      if (!signal?.aborted) listFailure.value = error;
    }
  };

  const reopen = async (id: string, signal?: AbortSignal) => {
    const question =
      conversations.value?.find((entry) => entry.session_id === id)?.first_question ?? '';
    const change = ++shownChange.current;
    reopening.value = { status: 'opening', question };
    try {
      const reopened = await openConversation(session.api, id, nextKey.current, signal);
      if (change !== shownChange.current) return;
      nextKey.current += reopened.length;
      turns.value = reopened;
      sessionId.value = id;
      opened.value = null;
      reopening.value = { status: 'opened', question };
    } catch (error) {
      if (change !== shownChange.current) return;
      reopening.value = null;
      if (!signal?.aborted) listFailure.value = error;
    }
  };

  // The person's conversations with this agent; the latest is shown again, as they left it.
  useEffect(() => {
    const loading = new AbortController();
    void (async () => {
      await refreshList(loading.signal);
      const latest = conversations.value?.[0];
      // Unless the person has already asked, or chosen, something meanwhile.
      if (latest && shownChange.current === 0) {
        await reopen(latest.session_id, loading.signal);
      }
    })();
    return () => loading.abort();
  }, [agent.id]);

  const ask = async (question: string) => {
    shownChange.current += 1;
    const key = nextKey.current++;
    const update = (turn: Turn) => {
      turns.value = turns.value.map((entry) => (entry.key === key ? turn : entry));
    };
    turns.value = [...turns.value, startTurn(key, question)];
    asking.value = true;
    reopening.value = null;
    controller.current = new AbortController();
    const finished = await askStreaming(
      session.api,
      {
        agent_id: agent.id,
        query: question,
        ...(sessionId.value ? { session_id: sessionId.value } : {}),
      },
      startTurn(key, question),
      update,
      controller.current.signal,
    );
    if (finished.metadata) sessionId.value = finished.metadata.session_id;
    asking.value = false;
    if (finished.metadata) await refreshList();
  };

  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    const question = box.current?.value.trim() ?? '';
    if (!question || asking.value) return;
    if (box.current) box.current.value = '';
    void ask(question);
  };
  const newConversation = () => {
    shownChange.current += 1;
    controller.current?.abort();
    asking.value = false;
    turns.value = [];
    sessionId.value = null;
    reopening.value = null;
    box.current?.focus();
  };
  const openTurn = turns.value.find((turn) => turn.key === opened.value?.turn);
  // Every number of a passage cited more than once opens its one entry.
  const openEntry =
    openTurn && opened.value
      ? mergeSources(openTurn.sources).byNumber.get(opened.value.source)
      : undefined;

  return (
    <div class="playground">
      <div class="playground__main">
        <p role="status" class="playground__reopened">
          {reopening.value?.status === 'opening'
            ? 'Opening the conversation…'
            : reopening.value?.status === 'opened'
              ? `Conversation reopened: “${reopening.value.question}”. A question continues it.`
              : ''}
        </p>
        {turns.value.length === 0 ? (
          <p class="playground__empty">
            Ask {agent.name} a question: the answer cites its sources as [1], [2]…, and a follow-up
            continues the conversation. Press “/” to go to the question box.
          </p>
        ) : (
          <ol class="conversation" aria-label="Conversation">
            {turns.value.map((turn) => (
              <TurnView
                key={turn.key}
                turn={turn}
                asking={asking.value}
                onCite={(number) => {
                  opened.value = { turn: turn.key, source: number };
                }}
                onAskAgain={() => void ask(turn.question)}
              />
            ))}
          </ol>
        )}
        <form class="form ask-form" onSubmit={submit}>
          <label for="playground-question">Question</label>
          <textarea
            id="playground-question"
            ref={box}
            name="question"
            rows={3}
            maxLength={4000}
            required
            aria-keyshortcuts="/"
            onKeyDown={(event) => {
              // Enter asks; Shift+Enter is a new line.
              if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
                event.preventDefault();
                event.currentTarget.form?.requestSubmit();
              }
            }}
          />
          <div class="form__actions">
            <button type="submit" class="button button--primary" disabled={asking.value}>
              Ask
            </button>
            {turns.value.length > 0 ? (
              <button type="button" class="button" onClick={newConversation}>
                New conversation
              </button>
            ) : null}
          </div>
          <p class="form__hint">
            {sessionId.value
              ? 'Follow-ups continue this conversation.'
              : 'Enter asks; Shift+Enter starts a new line.'}
          </p>
        </form>
      </div>
      <div class="playground__side">
        {listFailure.value ? <ErrorNotice error={listFailure.value} /> : null}
        {conversations.value ? (
          <ConversationList
            conversations={conversations.value}
            current={sessionId.value}
            busy={asking.value || reopening.value?.status === 'opening'}
            onOpen={(id) => void reopen(id)}
          />
        ) : null}
      </div>
      <Dialog
        open={openEntry !== undefined}
        labelledBy="source-heading"
        class="source-dialog"
        onClose={() => {
          opened.value = null;
        }}
      >
        {openEntry ? (
          <SourcePanel
            entry={openEntry}
            strategy={openTurn?.metadata?.rag_strategy ?? agent.rag_strategy}
            onClose={() => {
              opened.value = null;
            }}
          />
        ) : null}
      </Dialog>
    </div>
  );
}

function TurnView({
  turn,
  asking,
  onCite,
  onAskAgain,
}: {
  readonly turn: Turn;
  readonly asking: boolean;
  readonly onCite: (number: number) => void;
  readonly onAskAgain: () => void;
}) {
  const entries = mergeSources(turn.sources).entries;
  const finished = turn.status !== 'streaming';
  return (
    <li class="turn">
      <p class="turn__question">
        <span class="visually-hidden">You asked: </span>
        {turn.question}
      </p>
      <div class="turn__answer" aria-busy={turn.status === 'streaming'}>
        {turn.text ? (
          <AnswerText
            text={turn.text}
            sourceCount={turn.sources.length}
            cut={turn.status === 'cut'}
            onCite={onCite}
          />
        ) : null}
        <p role="status" class="turn__status">
          {turn.status === 'streaming' ? 'Answering…' : ''}
        </p>
        {turn.error ? <ErrorNotice error={turn.error} /> : null}
        {turn.status === 'done' && turn.sources.length === 0 ? (
          <p class="form__hint">
            No source supports this answer: the agent's data sources have nothing indexed that
            matches, or nothing yet.
          </p>
        ) : null}
        {finished && entries.length > 0 ? <SourceList entries={entries} onCite={onCite} /> : null}
        {turn.metadata ? <AnswerFacts turn={turn} /> : null}
        {finished ? (
          <div class="turn__actions">
            {turn.text && turn.status === 'done' ? (
              <CopyButton value={turn.text} label="Copy answer" />
            ) : null}
            <button
              type="button"
              class="button button--small"
              disabled={asking}
              onClick={onAskAgain}
            >
              Ask again
            </button>
          </div>
        ) : null}
        {turn.metadata ? (
          <AnswerFeedback interactionId={turn.metadata.interaction_id} given={turn.feedback} />
        ) : null}
      </div>
    </li>
  );
}

function AnswerFacts({ turn }: { readonly turn: Turn }) {
  const meta = turn.metadata;
  if (!meta) return null;
  return (
    <dl class="answer-facts" aria-label="About this answer">
      {typeof meta.groundedness === 'number' ? (
        <div>
          <GroundednessFact value={meta.groundedness} id={`groundedness-${turn.key}`} />
        </div>
      ) : null}
      <div>
        <dt>Latency</dt>
        <dd>{formatNumber(meta.latency_ms)} ms</dd>
      </div>
      <div>
        <dt>Tokens</dt>
        <dd>
          {formatNumber(meta.tokens_input)} in, {formatNumber(meta.tokens_output)} out
        </dd>
      </div>
      <div>
        <dt>Cost</dt>
        <dd>{formatCost(meta.cost_usd)}</dd>
      </div>
      <div>
        <dt>Model</dt>
        <dd>{meta.model}</dd>
      </div>
      <div>
        <dt>Strategy</dt>
        <dd>{meta.rag_strategy}</dd>
      </div>
    </dl>
  );
}

/**
 * The answer's sources, one entry per passage: a passage the answer cites
 * under several numbers is listed once, by its first, with the others named.
 * A group of buttons rather than a list: each turn is already a list item,
 * and a list inside it would make the conversation's items ambiguous.
 */
function SourceList({
  entries,
  onCite,
}: {
  readonly entries: ReadonlyArray<SourceEntry<ShownSource>>;
  readonly onCite: (number: number) => void;
}) {
  return (
    <fieldset class="turn__sources">
      <legend class="turn__sources-label">Sources</legend>
      {entries.map((entry) => (
        <p key={entry.source.chunk_id} class="turn__source">
          <button
            type="button"
            class="source-entry"
            aria-haspopup="dialog"
            onClick={() => onCite(entry.number)}
          >
            [{entry.number}] {entry.source.document_title}
          </button>
          {entry.numbers.length > 1 ? (
            <span class="source-entry__also">
              {' '}
              also cited as {numbersInWords(entry.numbers.slice(1))}
            </span>
          ) : null}
        </p>
      ))}
    </fieldset>
  );
}

/**
 * One cited passage in a dialog: it opens at its top with the focus on its
 * heading (the document's name), so a keyboard or screen reader user starts
 * there; "Open document" opens the file or page in a new tab; the passage
 * marks what the answer quotes and is scrolled, inside its own box, to the
 * first mark.
 */
function SourcePanel({
  entry,
  strategy,
  onClose,
}: {
  readonly entry: SourceEntry<ShownSource>;
  readonly strategy: string;
  readonly onClose: () => void;
}) {
  const { source, number } = entry;
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    // A frame later, once the dialog is shown: its own focusing would pick the first link.
    const frame = requestAnimationFrame(() => {
      const dialog = heading.current?.closest('dialog');
      if (dialog) dialog.scrollTop = 0;
      heading.current?.focus({ preventScroll: true });
    });
    return () => cancelAnimationFrame(frame);
  }, [source.chunk_id]);
  const scoreName = SCORE_NAMES[strategy as keyof typeof SCORE_NAMES] ?? 'score';
  const ranges = source.quoted_ranges ?? [];
  return (
    <div class="source-panel">
      <div class="dialog__header">
        <h2 id="source-heading" ref={heading} tabIndex={-1}>
          Source [{number}]: {source.document_title}
        </h2>
        <button type="button" class="button button--small" onClick={onClose}>
          Close
        </button>
      </div>
      <p class="source-panel__open">
        {source.document_url ? (
          <a href={source.document_url} target="_blank" rel="noopener noreferrer">
            Open document<span class="visually-hidden"> (opens in a new tab)</span>
          </a>
        ) : (
          'This document has no link to open: the service has no address for it.'
        )}
      </p>
      {entry.numbers.length > 1 ? (
        <p class="source-panel__also">
          The answer cites this passage as {numbersInWords(entry.numbers)}.
        </p>
      ) : null}
      <h3 id="source-passage">Passage</h3>
      {source.chunk_text ? (
        <>
          {quotesSomething(source.chunk_text, ranges) ? (
            <p class="form__hint">Marked: what the answer quotes or relies on.</p>
          ) : null}
          <QuotedPassage
            text={source.chunk_text}
            ranges={ranges}
            labelledBy="source-passage"
            scrollable
            class="passage"
          />
        </>
      ) : (
        <p>The passage is not available.</p>
      )}
      <h3>Ranking</h3>
      <dl class="facts">
        <dt>Rank</dt>
        <dd>
          {source.rank} in the {strategy} ranking
        </dd>
        <dt>Score ({scoreName})</dt>
        <dd>{formatScore(source.score)}</dd>
        <dt>Cosine similarity</dt>
        <dd>{formatScore(source.similarity_score)}</dd>
      </dl>
    </div>
  );
}
