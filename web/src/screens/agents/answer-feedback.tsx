import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { unwrap } from '../../api/client';
import { useAction } from '../../api/use-action';
import { ErrorNotice } from '../../components/error-notice';
import { useApp } from '../../state/app-context';
import { agentPermissions, type GivenFeedback } from './agents.state';

type Rating = GivenFeedback['feedback'];

/**
 * A thumb, drawn rather than typed: an emoji shows as an empty box where
 * the system has no emoji font. Pointing up, or turned over for "Not helpful".
 */
function ThumbIcon({ down = false }: { readonly down?: boolean }) {
  return (
    <svg
      class="feedback__icon"
      viewBox="0 0 16 16"
      width="16"
      height="16"
      aria-hidden="true"
      focusable="false"
    >
      <path
        fill="currentColor"
        transform={down ? 'rotate(180 8 8)' : undefined}
        d="M1 7h3v8H1zM5 7.2 8.1 1c1.2 0 2.1.9 2.1 2.1V6h3.6c.9 0 1.5.8 1.3 1.7l-1.3 6c-.2.8-.8 1.3-1.6 1.3H5z"
      />
    </svg>
  );
}

const RATED: Readonly<Record<Rating, string>> = {
  positive: 'Recorded: helpful. Thank you.',
  negative: 'Recorded: not helpful. Thank you.',
};

/**
 * "Helpful" / "Not helpful" for people who train: one click records the
 * rating (a second click on the other changes it); a comment may follow,
 * sent with the same rating, which updates the one feedback rather than
 * adding another.
 */
export function AnswerFeedback({
  interactionId,
  given,
}: {
  readonly interactionId: string;
  readonly given: GivenFeedback | null;
}) {
  const { session } = useApp();
  const recorded = useSignal<GivenFeedback | null>(given);
  const commenting = useSignal(false);
  const commentBox = useRef<HTMLTextAreaElement>(null);
  // Opened by a click on "Add a comment": the person means to type there.
  useEffect(() => {
    if (commenting.value) commentBox.current?.focus();
  }, [commenting.value]);
  const record = useAction(async (next: GivenFeedback) => {
    await unwrap(
      session.api.POST('/api/v1/interactions/{id}/feedback', {
        params: { path: { id: interactionId } },
        body: { feedback: next.feedback, comment: next.comment },
      }),
    );
    recorded.value = next;
  });
  if (!agentPermissions(session.me.value).feedback) return null;

  const rate = (feedback: Rating) => {
    if (recorded.value?.feedback === feedback) return;
    // The comment stays with the rating it was written for only if the person keeps it.
    void record.run({ feedback, comment: recorded.value?.comment ?? null });
  };
  const sendComment = async (event: SubmitEvent) => {
    event.preventDefault();
    const current = recorded.value;
    if (!current) return;
    const comment = String(
      new FormData(event.currentTarget as HTMLFormElement).get('comment') ?? '',
    ).trim();
    if (await record.run({ feedback: current.feedback, comment: comment || null })) {
      commenting.value = false;
    }
  };
  const commentId = `feedback-comment-${interactionId}`;
  const current = recorded.value;
  return (
    <div class="feedback">
      <fieldset class="feedback__choices">
        <legend>Was this answer helpful?</legend>
        <button
          type="button"
          class="button button--small"
          aria-pressed={current?.feedback === 'positive'}
          disabled={record.pending.value}
          onClick={() => rate('positive')}
        >
          <ThumbIcon />
          Helpful
        </button>
        <button
          type="button"
          class="button button--small"
          aria-pressed={current?.feedback === 'negative'}
          disabled={record.pending.value}
          onClick={() => rate('negative')}
        >
          <ThumbIcon down />
          Not helpful
        </button>
      </fieldset>
      <p role="status" class="feedback__sent">
        {current ? RATED[current.feedback] : ''}
        {current?.comment ? ` Your comment: “${current.comment}”` : ''}
      </p>
      {current && !commenting.value ? (
        <button
          type="button"
          class="button button--small"
          onClick={() => {
            commenting.value = true;
          }}
        >
          {current.comment ? 'Change the comment' : 'Add a comment'}
        </button>
      ) : null}
      {current && commenting.value ? (
        <form class="form feedback__comment" onSubmit={(event) => void sendComment(event)}>
          <label for={commentId}>Comment (optional)</label>
          <textarea
            id={commentId}
            name="comment"
            rows={2}
            maxLength={2000}
            ref={commentBox}
            defaultValue={current.comment ?? ''}
          />
          <div class="form__actions">
            <button type="submit" class="button button--primary" disabled={record.pending.value}>
              Send comment
            </button>
            <button
              type="button"
              class="button"
              onClick={() => {
                commenting.value = false;
              }}
            >
              Cancel
            </button>
          </div>
        </form>
      ) : null}
      {record.failure.value ? <ErrorNotice error={record.failure.value} /> : null}
    </div>
  );
}
