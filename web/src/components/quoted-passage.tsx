import { useEffect, useRef } from 'preact/hooks';
import { type QuotedRange, quotedParts } from '../format/quoted-parts';
import './quoted-passage.css';

/**
 * A cited passage with the parts the answer quotes in `<mark>`s (screen
 * readers hear where each begins and ends, from the stylesheet). When the
 * passage is `scrollable` it is a box of its own height, reachable by
 * keyboard, that opens scrolled to the first mark: only the box scrolls, so
 * the page or dialog around it stays where it is.
 */
export function QuotedPassage({
  text,
  ranges,
  labelledBy,
  scrollable = false,
  class: className,
}: {
  readonly text: string;
  readonly ranges: readonly QuotedRange[];
  readonly labelledBy?: string;
  readonly scrollable?: boolean;
  readonly class?: string;
}) {
  const box = useRef<HTMLQuoteElement>(null);
  const parts = quotedParts(text, ranges);
  useEffect(() => {
    if (!scrollable) return undefined;
    // A frame later: a passage in a dialog has no layout until the dialog is shown.
    const frame = requestAnimationFrame(() => {
      const element = box.current;
      const first = element?.querySelector('mark');
      if (!element || !(first instanceof HTMLElement)) return;
      if (element.scrollHeight <= element.clientHeight) return;
      // A little of the text before the mark stays in view, for context.
      element.scrollTop = Math.max(0, first.offsetTop - element.clientHeight / 4);
    });
    return () => cancelAnimationFrame(frame);
  }, [text, ranges, scrollable]);
  const classes = [
    'quoted-passage',
    scrollable ? 'quoted-passage--scrollable' : '',
    className ?? '',
  ]
    .filter(Boolean)
    .join(' ');
  return (
    <blockquote
      ref={box}
      class={classes}
      aria-labelledby={labelledBy}
      tabIndex={scrollable ? 0 : undefined}
    >
      {parts.map((part, index) => (part.quoted ? <mark key={index}>{part.text}</mark> : part.text))}
    </blockquote>
  );
}

/** True when a passage has at least one part to mark. */
export function quotesSomething(text: string, ranges: readonly QuotedRange[]): boolean {
  return quotedParts(text, ranges).some((part) => part.quoted);
}
