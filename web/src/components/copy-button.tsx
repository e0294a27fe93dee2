import { useSignal } from '@preact/signals';

/**
 * Copies `value` to the clipboard and says so in its own label, which a
 * screen reader hears as the button's new name. `label` names what is
 * copied ("Copy key", "Copy link"), so several buttons on one page stay
 * distinguishable. Where the clipboard is refused (an insecure origin, a
 * denied permission) it says that instead of pretending.
 */
export function CopyButton({ value, label }: { readonly value: string; readonly label: string }) {
  const state = useSignal<'idle' | 'copied' | 'refused'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      state.value = 'copied';
    } catch {
      state.value = 'refused';
    }
  };
  const text =
    state.value === 'copied'
      ? 'Copied'
      : state.value === 'refused'
        ? 'Copy refused: select the text and copy it'
        : label;
  return (
    <button type="button" class="button button--small" onClick={() => void copy()}>
      {text}
    </button>
  );
}
