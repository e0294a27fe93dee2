import { formatPercent } from '../format/measures';
import './groundedness.css';

/** What the score is called wherever the console shows it. */
export const GROUNDEDNESS_LABEL = 'Supported by sources';

/** What it measures, in words: the popover's text and the hover title. */
export const GROUNDEDNESS_MEANING =
  'The share of the answer’s sentences that the passages it cites back up: a sentence counts when it is quoted from its source, or when most of its words and all of its numbers are found together in it. 100% means every statement is backed by a source; less means some sentences say more than their sources do.';

/**
 * An answer's groundedness as a term and its value, for a `<dl>`: the share
 * as a percentage, with a "?" button that opens what it measures (a native
 * popover: keyboard and touch reach it, Esc or a click elsewhere closes it)
 * and the same words on hover. Nothing when the answer has no score (it was
 * recorded before there was one).
 */
export function GroundednessFact({
  value,
  id,
}: {
  readonly value: number | null | undefined;
  /** Unique on the page: names the explanation's popover. */
  readonly id: string;
}) {
  if (value === null || value === undefined) return null;
  const explanation = `${id}-meaning`;
  return (
    <>
      <dt>{GROUNDEDNESS_LABEL}</dt>
      <dd class="groundedness" title={GROUNDEDNESS_MEANING}>
        {formatPercent(value)}
        <button
          type="button"
          class="groundedness__help"
          popovertarget={explanation}
          aria-label={`What “${GROUNDEDNESS_LABEL}” means`}
        >
          ?
        </button>
        <div id={explanation} popover="auto" class="groundedness__meaning">
          <strong>{GROUNDEDNESS_LABEL}</strong>: {GROUNDEDNESS_MEANING}
        </div>
      </dd>
    </>
  );
}
