/**
 * Verbatim citations (issue 10): every chunk's text, and every span an
 * answer quotes, is an exact substring of its document's text after this one
 * normalization, applied to both sides:
 *
 * 1. the invisible characters that carry no text — zero-width space U+200B,
 *    word joiner U+2060, byte-order mark U+FEFF — are removed (the zero-width
 *    joiner and non-joiner, U+200C/U+200D, are kept: they change how Indic,
 *    Arabic and emoji text reads);
 * 2. every run of whitespace (JavaScript's `\s`: spaces, tabs, line breaks,
 *    no-break spaces) becomes one space;
 * 3. the ends are trimmed.
 *
 * Parsers apply steps 1 and 2 inside a paragraph (a page's layout decides
 * its line breaks, not its text); the chunker then only slices paragraphs,
 * joining paragraphs with a blank line, so a chunk never holds a character
 * the document did not.
 */

/** Characters removed by the normalization: they occupy no space and carry no text. */
const INVISIBLE = /[\u200b\u2060\ufeff]/g;

/** Steps 1 and 2: what parsers do to the text of a paragraph (no trimming). */
export function collapseWhitespace(text: string): string {
  return text.replace(INVISIBLE, '').replace(/\s+/g, ' ');
}

/**
 * The normalization, whole: compare `normalizeWhitespace(chunk)` with
 * `normalizeWhitespace(document)` to check a citation is verbatim.
 *
 * @example normalizeWhitespace(' Refunds\n\ttake\u200b 5 days. ') // 'Refunds take 5 days.'
 */
export function normalizeWhitespace(text: string): string {
  return collapseWhitespace(text).trim();
}

/** Invisible characters only (for `<pre>` text, whose line breaks and indentation are kept). */
export function removeInvisible(text: string): string {
  return text.replace(INVISIBLE, '');
}

/**
 * Between a heading and the text quoted under it, when an answer leads a
 * quote with the heading that names its subject ("app.listen([port]) —
 * Binds and listens for connections…"): the heading is the document's own
 * text too, though not part of the passage.
 */
export const HEADING_QUOTE_SEPARATOR = ' — ';

/**
 * Is `quote` verbatim from a passage: a substring of its text after the
 * normalization, or one of its headings, {@link HEADING_QUOTE_SEPARATOR},
 * then such a substring?
 *
 * @example isVerbatimQuote('listen() — Binds a port.', 'It Binds a port.', ['listen()']) // true
 */
export function isVerbatimQuote(
  quote: string,
  passage: string,
  headings: readonly string[] = [],
): boolean {
  const text = normalizeWhitespace(passage);
  const quoted = normalizeWhitespace(quote);
  if (text.includes(quoted)) return true;
  return headings.some((heading) => {
    const lead = `${normalizeWhitespace(heading)}${HEADING_QUOTE_SEPARATOR}`;
    return quoted.startsWith(lead) && text.includes(quoted.slice(lead.length).trim());
  });
}
