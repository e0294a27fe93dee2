import { renderAnswerMarkdown } from '../../format/markdown';

/**
 * An answer as Markdown (lists, code, tables a hosted model writes), made
 * safe by the console's one renderer: no raw HTML passes. Each `[n]` that
 * names a source is a button inside it; one listener on the whole answer
 * opens the source whose number was pressed, so the buttons stay plain
 * markup the renderer wrote.
 */
export function AnswerText({
  text,
  sourceCount,
  cut,
  onCite,
}: {
  readonly text: string;
  readonly sourceCount: number;
  readonly cut: boolean;
  readonly onCite: (number: number) => void;
}) {
  const open = (event: MouseEvent) => {
    const target = event.target instanceof Element ? event.target : null;
    const button = target?.closest<HTMLButtonElement>('button[data-citation]');
    if (!button) return;
    onCite(Number(button.dataset.citation));
  };
  return (
    <div class="turn__text">
      {/* The keyboard reaches the buttons themselves; this only hears their clicks. */}
      {/* biome-ignore lint/a11y/noStaticElementInteractions: delegated clicks of the citation buttons inside */}
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: the citations are buttons, which Enter and Space click */}
      <div
        class="turn__markdown"
        onClick={open}
        // Safe: renderAnswerMarkdown shows raw HTML as text (html: false).
        dangerouslySetInnerHTML={{ __html: renderAnswerMarkdown(text, sourceCount) }}
      />
      {cut ? <p class="turn__cut">(incomplete)</p> : null}
    </div>
  );
}
