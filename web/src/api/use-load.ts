import { type Signal, useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';

export interface Loaded<T> {
  readonly data: Signal<T | null>;
  readonly error: Signal<unknown>;
  readonly loading: Signal<boolean>;
}

/**
 * Loads what a screen shows, again whenever `inputs` change; an answer that
 * arrives after the inputs changed again (a page clicked past) is dropped.
 */
export function useLoad<T>(
  load: (signal: AbortSignal) => Promise<T>,
  inputs: readonly unknown[],
): Loaded<T> {
  const data = useSignal<T | null>(null);
  const error = useSignal<unknown>(null);
  const loading = useSignal(true);
  useEffect(() => {
    const controller = new AbortController();
    loading.value = true;
    error.value = null;
    load(controller.signal).then(
      (result) => {
        if (controller.signal.aborted) return;
        data.value = result;
        loading.value = false;
      },
      (failure: unknown) => {
        if (controller.signal.aborted) return;
        error.value = failure;
        loading.value = false;
      },
    );
    return () => controller.abort();
  }, inputs);
  return { data, error, loading };
}
