import { useSignal } from '@preact/signals';
import { ApiError } from '../api/api-error';

/**
 * A failure shown as what to do next (CONSOLE.md §5), announced as an
 * alert, with the request's reference and a button copying it for support.
 */
export function ErrorNotice({ error }: { readonly error: unknown }) {
  const copied = useSignal(false);
  const apiError = error instanceof ApiError ? error : null;
  const message =
    apiError?.message ?? 'Something went wrong in the console. Reload the page and try again.';
  const reference = apiError?.requestId ?? null;
  const copy = async () => {
    if (!reference) return;
    try {
      await navigator.clipboard.writeText(reference);
      copied.value = true;
    } catch {
      copied.value = false;
    }
  };
  return (
    <div class="error-notice" role="alert">
      <p>{message}</p>
      {reference ? (
        <p class="error-notice__reference">
          Reference: <code>{reference}</code>{' '}
          <button type="button" class="button button--small" onClick={() => void copy()}>
            {copied.value ? 'Copied' : 'Copy reference'}
          </button>
        </p>
      ) : null}
    </div>
  );
}
