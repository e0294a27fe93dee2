import type { CitedSource } from '../../layers/core/domain/interaction';

/** How much of a chunk stands for it when the answer quotes none of it in particular. */
const EXCERPT_CHARS = 400;

/**
 * The words of a cited chunk a reader should check the answer against: the
 * parts the answer quotes or relies on, joined by an ellipsis, or else the
 * chunk's beginning (whole when short).
 */
export function quotedPassage(source: Pick<CitedSource, 'chunk_text' | 'quoted_ranges'>): string {
  const quoted = source.quoted_ranges
    .map(({ start, end }) => source.chunk_text.slice(start, end).trim())
    .filter((text) => text.length > 0);
  if (quoted.length > 0) return quoted.join(' … ');
  return excerpt(source.chunk_text);
}

/** The text whole if short, else its first words up to the limit, marked as cut. */
export function excerpt(text: string): string {
  const trimmed = text.trim();
  if (trimmed.length <= EXCERPT_CHARS) return trimmed;
  const cut = trimmed.slice(0, EXCERPT_CHARS);
  const lastSpace = cut.lastIndexOf(' ');
  return `${(lastSpace > EXCERPT_CHARS / 2 ? cut.slice(0, lastSpace) : cut).trimEnd()} …`;
}
