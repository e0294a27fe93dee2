import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';
import type { Action } from '../api/use-action';
import { Dialog } from './dialog';
import { ErrorNotice } from './error-notice';

/**
 * "Are you sure?" for an action that cannot be undone (delete, revoke,
 * remove): the question as the dialog's heading, what will happen in words,
 * the failure if the request was refused, then the action's button (in the
 * danger style, saying it is working while it runs) and "Cancel". Every
 * screen asks the same way, so a person learns it once.
 */
export function ConfirmDialog({
  open,
  onClose,
  question,
  children,
  confirm,
  working,
  action,
  refusalDetails,
}: {
  readonly open: boolean;
  /** Called on "Cancel", Esc, and by the caller once the action succeeded. */
  readonly onClose: () => void;
  /** The heading, a question naming the thing ("Delete “Billing bot”?"). */
  readonly question: ComponentChildren;
  /** What will happen, and what will not. */
  readonly children: ComponentChildren;
  /** The button's words ("Delete agent"). */
  readonly confirm: string;
  /** The button's words while the request runs ("Deleting…"); `confirm` when absent. */
  readonly working?: string;
  /** The request, with what it acts on already bound (the caller closes the dialog when it succeeds). */
  readonly action: Action<[]>;
  /** What the failure adds under its notice (the agents that block a delete, say). */
  readonly refusalDetails?: ComponentChildren;
}) {
  const heading = useId();
  const close = () => {
    action.reset();
    onClose();
  };
  return (
    <Dialog open={open} labelledBy={heading} onClose={close}>
      <h2 id={heading}>{question}</h2>
      {children}
      {action.failure.value ? <ErrorNotice error={action.failure.value} /> : null}
      {refusalDetails}
      <div class="form__actions">
        <button
          type="button"
          class="button button--danger"
          disabled={action.pending.value}
          onClick={() => void action.run()}
        >
          {action.pending.value && working ? working : confirm}
        </button>
        <button type="button" class="button" onClick={close}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}
