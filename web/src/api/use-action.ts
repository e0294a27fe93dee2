import { type Signal, useSignal } from '@preact/signals';

export interface Action<A extends unknown[]> {
  /** True while the action runs: its button says so and is disabled. */
  readonly pending: Signal<boolean>;
  /** The last run's failure (for ErrorNotice), cleared when it runs again. */
  readonly failure: Signal<unknown>;
  /** Runs the action; resolves true when it succeeded. Never rejects. */
  readonly run: (...args: A) => Promise<boolean>;
  /** Forgets a shown failure, e.g. when its dialog is closed. */
  readonly reset: () => void;
}

/**
 * A button's request and what the screen shows about it: pending while it
 * runs, its failure afterwards. Every write in the console has this shape,
 * so it lives here once rather than as a try/finally in each screen.
 */
export function useAction<A extends unknown[]>(
  perform: (...args: A) => Promise<unknown>,
): Action<A> {
  const pending = useSignal(false);
  const failure = useSignal<unknown>(null);
  const run = async (...args: A): Promise<boolean> => {
    if (pending.value) return false;
    pending.value = true;
    failure.value = null;
    try {
      await perform(...args);
      return true;
    } catch (error) {
      failure.value = error;
      return false;
    } finally {
      pending.value = false;
    }
  };
  const reset = () => {
    failure.value = null;
  };
  return { pending, failure, run, reset };
}
