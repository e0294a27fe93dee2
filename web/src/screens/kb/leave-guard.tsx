import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';

/**
 * While the editor holds changes that are not saved, leaving asks
 * first. Closing or reloading the tab gets the browser's own question
 * (`beforeunload`); a link inside the console (the navigation, "All
 * articles", …) gets this dialog, "Stay" or "Leave without saving", caught
 * by a capturing listener before the router sees the click. The browser's
 * Back button is not caught: preact-iso has no way to refuse a history step.
 */
export function LeaveGuard({ dirty }: { readonly dirty: boolean }) {
  const location = useLocation();
  const pending = useSignal<string | null>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const guarding = useRef(dirty);
  guarding.current = dirty;
  const here = useRef(location.url);
  here.current = location.url;

  useEffect(() => {
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      if (!guarding.current) return;
      event.preventDefault();
      // Older engines ask only when returnValue is set.
      event.returnValue = '';
    };
    const onClick = (event: MouseEvent) => {
      if (!guarding.current || event.defaultPrevented || event.button !== 0) return;
      if (event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return;
      const link = event
        .composedPath()
        .find(
          (node): node is HTMLAnchorElement => node instanceof HTMLAnchorElement && !!node.href,
        );
      if (!link || link.origin !== window.location.origin || link.hasAttribute('download')) return;
      if (link.target && link.target !== '_self') return;
      const url = `${link.pathname}${link.search}`;
      if (url === here.current) return;
      event.preventDefault();
      event.stopPropagation();
      pending.value = url;
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    document.addEventListener('click', onClick, true);
    return () => {
      window.removeEventListener('beforeunload', onBeforeUnload);
      document.removeEventListener('click', onClick, true);
    };
  }, []);

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (pending.value && !element.open) element.showModal();
    if (!pending.value && element.open) element.close();
  }, [pending.value]);

  const leave = () => {
    const url = pending.value;
    guarding.current = false;
    pending.value = null;
    if (url) location.route(url);
  };

  return (
    <dialog
      ref={dialog}
      class="kb-dialog"
      aria-labelledby="leave-heading"
      aria-describedby="leave-text"
      onClose={() => {
        pending.value = null;
      }}
    >
      <h2 id="leave-heading">Leave without saving?</h2>
      <p id="leave-text">
        Your changes to this article are not saved. If you leave, they are lost.
      </p>
      <div class="form__actions">
        <button
          type="button"
          class="button button--primary"
          autofocus
          onClick={() => {
            pending.value = null;
          }}
        >
          Stay
        </button>
        <button type="button" class="button" onClick={leave}>
          Leave without saving
        </button>
      </div>
    </dialog>
  );
}
