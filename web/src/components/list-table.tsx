import { useSignal } from '@preact/signals';
import type { ComponentChildren } from 'preact';
import { useAction } from '../api/use-action';
import { ConfirmDialog } from './confirm-dialog';
import './list-table.css';
import { TableScroll } from './table-scroll';

/** One column: its heading and what each row shows in it. */
export interface Column<T> {
  readonly heading: string;
  readonly cell: (row: T) => ComponentChildren;
  readonly class?: string;
}

/**
 * "Are you sure?" before a row's request (revoke, delete): the question and
 * what will happen, in the shared ConfirmDialog, which closes once the
 * request succeeded and shows its failure otherwise.
 */
export interface Confirmation<T> {
  /** The dialog's heading, naming the row ("Revoke “Billing bot”?"). */
  readonly question: (row: T) => ComponentChildren;
  /** What will happen, and what will not. */
  readonly explanation: (row: T) => ComponentChildren;
  /** The confirming button's words ("Revoke key"), and while it runs ("Revoking…"). */
  readonly confirm: string;
  readonly working?: string;
  /** The request, then what the screen says and reloads; throwing keeps the dialog open with the failure. */
  readonly perform: (row: T) => Promise<unknown>;
  /** What a failure adds under its notice (the agents that block a delete, say). */
  readonly refusalDetails?: (failure: unknown) => ComponentChildren;
}

interface RowActionBase {
  /** The button's words; its accessible name adds the row's name ("Revoke Billing bot"). */
  readonly label: string;
  readonly danger?: boolean;
  /** Marks the button as opening a dialog (aria-haspopup). */
  readonly opensDialog?: boolean;
}

/** A button on every row: it opens the screen's own dialog for the row, or asks first and acts. */
export type RowAction<T> = RowActionBase &
  (
    | { readonly open: (row: T) => void; readonly confirm?: never }
    | { readonly confirm: Confirmation<T>; readonly open?: never }
  );

/**
 * A settings list as a table (API keys, model keys, users, groups): a
 * caption, the row's name as its header cell, the columns, and the row's
 * actions under a heading only screen readers hear. Every list asks before
 * an action that cannot be undone the same way, through one ConfirmDialog.
 */
export function ListTable<T>({
  caption,
  class: className,
  rows,
  rowKey,
  rowName,
  header,
  columns,
  actions,
  onAction,
}: {
  readonly caption: ComponentChildren;
  /** More classes for the table (the key lists' own column widths). */
  readonly class?: string;
  readonly rows: readonly T[];
  readonly rowKey: (row: T) => string;
  /** The row's name in its buttons' accessible names. */
  readonly rowName: (row: T) => string;
  /** The first column, the row's header cell (its name, usually). */
  readonly header: Column<T>;
  readonly columns: readonly Column<T>[];
  readonly actions: readonly RowAction<T>[];
  /** Called whenever a row's button is pressed (a screen clears its last notice). */
  readonly onAction?: () => void;
}) {
  const asking = useSignal<{ readonly row: T; readonly confirmation: Confirmation<T> } | null>(
    null,
  );
  const confirmed = useAction(async () => {
    const question = asking.value;
    if (!question) return;
    await question.confirmation.perform(question.row);
    asking.value = null;
  });
  const press = (action: RowAction<T>, row: T) => {
    onAction?.();
    if (action.confirm) asking.value = { row, confirmation: action.confirm };
    else action.open(row);
  };
  const open = asking.value;

  return (
    <>
      <TableScroll>
        <table class={className ? `table ${className}` : 'table'}>
          <caption>{caption}</caption>
          <thead>
            <tr>
              {[header, ...columns].map((column) => (
                <th key={column.heading} scope="col">
                  {column.heading}
                </th>
              ))}
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={rowKey(row)}>
                <th scope="row" class={header.class}>
                  {header.cell(row)}
                </th>
                {columns.map((column) => (
                  <td key={column.heading} class={column.class}>
                    {column.cell(row)}
                  </td>
                ))}
                <td>
                  <div class="list-table__actions">
                    {actions.map((action) => (
                      <button
                        key={action.label}
                        type="button"
                        class={`button button--small${action.danger ? ' button--danger' : ''}`}
                        aria-haspopup={action.opensDialog ? 'dialog' : undefined}
                        aria-label={`${action.label} ${rowName(row)}`}
                        onClick={() => press(action, row)}
                      >
                        {action.label}
                      </button>
                    ))}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <ConfirmDialog
        open={open !== null}
        onClose={() => {
          asking.value = null;
        }}
        question={open ? open.confirmation.question(open.row) : null}
        confirm={open?.confirmation.confirm ?? ''}
        working={open?.confirmation.working}
        action={confirmed}
        refusalDetails={
          open && confirmed.failure.value
            ? open.confirmation.refusalDetails?.(confirmed.failure.value)
            : null
        }
      >
        {open ? open.confirmation.explanation(open.row) : null}
      </ConfirmDialog>
    </>
  );
}
