import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/**
 * A modal around the native `<dialog>` (CONSOLE.md §8): `showModal()` makes
 * the page behind inert, Esc closes it, and focus goes back to what had it
 * when it opened (or to `fallback` when that is gone, e.g. re-rendered).
 */
export function Dialog({
  open,
  onClose,
  labelledBy,
  children,
  class: className,
}: {
  readonly open: boolean;
  readonly onClose: () => void;
  readonly labelledBy: string;
  readonly children: ComponentChildren;
  readonly class?: string;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<Element | null>(null);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) {
      opener.current = document.activeElement;
      element.showModal();
    } else if (!open && element.open) {
      element.close();
    }
  }, [open]);
  const closed = () => {
    onClose();
    const previous = opener.current;
    if (previous instanceof HTMLElement && previous.isConnected) previous.focus();
    else document.getElementById('main')?.focus();
  };
  return (
    <dialog
      ref={dialog}
      class={`dialog${className ? ` ${className}` : ''}`}
      aria-labelledby={labelledBy}
      onClose={closed}
    >
      {open ? children : null}
    </dialog>
  );
}
