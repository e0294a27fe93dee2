import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * Where a table wider than the screen scrolls sideways (a phone at 390 px),
 * so the page itself never does. While it scrolls it is a region named
 * `label` (else its table's caption) that the keyboard can reach and
 * scroll; while the table fits it is a plain box, with no extra tab stop or
 * landmark.
 */
export function TableScroll({
  label,
  children,
}: {
  /** What the table lists ("Agents"), read as the scrolling region's name; else the caption's words. */
  readonly label?: string;
  readonly children: ComponentChildren;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [name, setName] = useState<string | null>(null);
  useEffect(() => {
    const region = box.current;
    if (!region) return;
    const measure = () => {
      const scrolls = region.scrollWidth > region.clientWidth + 1;
      const caption = region.querySelector('caption')?.textContent?.trim();
      setName(scrolls ? (label ?? caption ?? 'Table') : null);
    };
    // The box narrows with the window; the table widens with its rows.
    const observer = new ResizeObserver(measure);
    observer.observe(region);
    for (const child of region.children) observer.observe(child);
    measure();
    return () => observer.disconnect();
  });
  return (
    <div
      ref={box}
      class="table-scroll"
      {...(name === null ? {} : { role: 'region', 'aria-label': name, tabIndex: 0 })}
    >
      {children}
    </div>
  );
}
