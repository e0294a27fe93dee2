import { useEffect, useRef } from 'preact/hooks';
import { GroundednessFact } from '../../components/groundedness';
import { QuotedPassage } from '../../components/quoted-passage';
import { formatDateTime, formatNumber } from '../../format/format';
import { formatLatency, formatUsd } from '../../format/measures';
import { askerLabel, feedbackLabel, formatScore } from './interaction-format';
import type { Interaction } from './interactions.state';

/**
 * One interaction in full (CONSOLE.md §8: a native modal `<dialog>`): the
 * question, the answer, its sources in citation order with their rank and
 * scores and the parts the answer quotes marked, the feedback and its
 * comment, and how it was answered, with how much of it its sources support.
 * Esc or "Close" closes it; `onClose` gives the focus back to the opener.
 */
export function InteractionDialog({
  interaction,
  agentName,
  onClose,
}: {
  readonly interaction: Interaction;
  readonly agentName: string;
  readonly onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const asker = askerLabel(interaction.asked_by);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return undefined;
    if (!element.open) element.showModal();
    element.addEventListener('close', onClose);
    return () => element.removeEventListener('close', onClose);
  }, [onClose]);

  return (
    <dialog ref={dialog} class="dialog interaction-dialog" aria-labelledby="interaction-heading">
      <div class="dialog__header">
        <h2 id="interaction-heading">Interaction</h2>
        <button type="button" class="button button--small" onClick={() => dialog.current?.close()}>
          Close
        </button>
      </div>
      <section aria-labelledby="interaction-question">
        <h3 id="interaction-question">Question</h3>
        <p class="interaction-dialog__text">{interaction.query}</p>
      </section>
      <section aria-labelledby="interaction-answer">
        <h3 id="interaction-answer">Answer</h3>
        <p class="interaction-dialog__text">{interaction.response}</p>
      </section>
      <section aria-labelledby="interaction-sources">
        <h3 id="interaction-sources">Sources</h3>
        {interaction.sources.length === 0 ? (
          <p>The answer used no sources.</p>
        ) : (
          <ol class="sources">
            {interaction.sources.map((source) => (
              <li key={source.chunk_id} class="sources__item">
                <p class="sources__title">
                  {source.document_url ? (
                    <a href={source.document_url} target="_blank" rel="noopener noreferrer">
                      {source.document_title}
                    </a>
                  ) : (
                    source.document_title
                  )}
                </p>
                <p class="sources__scores">
                  Rank {source.rank} · score {formatScore(source.score)} · similarity{' '}
                  {formatScore(source.similarity_score)}
                </p>
                <QuotedPassage
                  text={source.chunk_text}
                  ranges={source.quoted_ranges ?? []}
                  class="sources__excerpt"
                />
              </li>
            ))}
          </ol>
        )}
      </section>
      <section aria-labelledby="interaction-feedback">
        <h3 id="interaction-feedback">Feedback</h3>
        <p>{feedbackLabel(interaction.feedback)}</p>
        {interaction.feedback_comment ? (
          <blockquote class="interaction-dialog__text">{interaction.feedback_comment}</blockquote>
        ) : interaction.feedback ? (
          <p class="interaction-dialog__muted">No comment.</p>
        ) : null}
      </section>
      <section aria-labelledby="interaction-details">
        <h3 id="interaction-details">Details</h3>
        <dl class="facts">
          <dt>Asked</dt>
          <dd>{formatDateTime(interaction.created_at)}</dd>
          <dt>Agent</dt>
          <dd>{agentName}</dd>
          <dt>Model</dt>
          <dd>{interaction.model}</dd>
          <dt>Retrieval</dt>
          <dd>{interaction.rag_strategy}</dd>
          <GroundednessFact value={interaction.groundedness} id="interaction-groundedness" />
          <dt>Latency</dt>
          <dd>{formatLatency(interaction.latency_ms)}</dd>
          <dt>Tokens</dt>
          <dd>
            {formatNumber(interaction.tokens_input)} in, {formatNumber(interaction.tokens_output)}{' '}
            out
          </dd>
          <dt>Cost</dt>
          <dd>
            {formatUsd(interaction.cost_usd)}
            {interaction.billed_to === 'model_key' ? ' (your model key, at list price)' : ''}
          </dd>
          <dt>Asked by</dt>
          <dd>
            {asker.name}
            {asker.detail ? ` (${asker.detail})` : ''}
          </dd>
          <dt>Session</dt>
          <dd>
            <code>{interaction.session_id}</code>
          </dd>
          <dt>Id</dt>
          <dd>
            <code>{interaction.id}</code>
          </dd>
        </dl>
      </section>
    </dialog>
  );
}
