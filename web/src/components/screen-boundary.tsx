import { useSignal } from '@preact/signals';
import type { ComponentChildren } from 'preact';
import { ErrorBoundary } from 'preact-iso/lazy';
import { ApiError } from '../api/api-error';
import { ErrorNotice } from './error-notice';

/**
 * Around every lazily loaded screen: it waits while the screen's file loads,
 * and a screen that fails (its file could not be fetched, or it threw) shows
 * a notice instead of a blank page, the rest of the console still working.
 */
export function ScreenBoundary({ children }: { readonly children: ComponentChildren }) {
  const failure = useSignal<unknown>(null);
  if (failure.value) {
    const unreachable = failure.value instanceof TypeError;
    return (
      <section class="screen">
        <h1>This page could not be shown</h1>
        <ErrorNotice error={unreachable ? ApiError.unreachable(failure.value) : failure.value} />
        <button type="button" class="button" onClick={() => window.location.reload()}>
          Reload
        </button>
      </section>
    );
  }
  return (
    <ErrorBoundary
      onError={(error: unknown) => {
        failure.value = error;
      }}
    >
      {children}
    </ErrorBoundary>
  );
}
