/**
 * Citation markers in answers: a numbered source is cited as `[n]`,
 * models also write `[1, 2]` or `[1][2]`.
 */

/**
 * The source numbers an answer cites, in order of first citation, keeping
 * only numbers that were offered: a model that cites `[7]` with five sources
 * has cited nothing real.
 *
 * @example citedSourceNumbers('Yes [2]. Also [1, 2][9].', [1, 2, 3]) // [2, 1]
 */
export function citedSourceNumbers(text: string, offered: Iterable<number>): number[] {
  const allowed = new Set(offered);
  const cited: number[] = [];
  for (const marker of text.matchAll(MARKER)) {
    for (const part of (marker[1] ?? '').split(SEPARATOR)) {
      const number = Number(part);
      if (allowed.has(number) && !cited.includes(number)) cited.push(number);
    }
  }
  return cited;
}

/**
 * The text without its citation markers. Earlier answers go back into the
 * prompt without them: their numbers referred to that turn's sources,
 * and would be mistaken for this turn's.
 *
 * @example stripCitations('Thirty days [1][2].') // 'Thirty days.'
 */
export function stripCitations(text: string): string {
  return text.replace(MARKER_WITH_SPACE, '');
}

/**
 * Issue 10: the answer as its reader gets it, with only the sources it
 * cites: `cited` (old numbers, in order of first citation) become 1, 2, …,
 * so `[n]` is `sources[n - 1]`; numbers not in `cited` (a model's `[7]` of
 * five) are dropped, and a marker left empty goes with its leading space.
 *
 * @example renumberCitations('Yes [3]. Also [1, 3][9].', [3, 1]) // 'Yes [1]. Also [2, 1].'
 */
export function renumberCitations(text: string, cited: readonly number[]): string {
  const renumbered = new Map(cited.map((number, index) => [number, index + 1]));
  return text.replace(MARKER_WITH_SPACE, (marker) => {
    const open = marker.indexOf('[');
    const numbers = marker
      .slice(open + 1, -1)
      .split(SEPARATOR)
      .map((part) => renumbered.get(Number(part)))
      .filter((number): number is number => number !== undefined);
    const distinct = [...new Set(numbers)];
    return distinct.length === 0 ? '' : `${marker.slice(0, open)}[${distinct.join(', ')}]`;
  });
}

const MARKER = /\[(\d{1,4}(?:\s*,\s*\d{1,4})*)\]/g;
const MARKER_WITH_SPACE = /[ \t]*\[\d{1,4}(?:\s*,\s*\d{1,4})*\]/g;
const SEPARATOR = /\s*,\s*/;

/** A span an answer quotes, and the sources its markers say it is from. */
export interface AnswerQuote {
  readonly text: string;
  readonly sources: readonly number[];
}

const FENCE_LINE = /^\s*(?:```|~~~)/;
const MARKERS_ONLY = /^\s*(?:\[\d{1,4}(?:\s*,\s*\d{1,4})*\]\s*)+$/;
const BULLET = /^\s*[-*+]\s+/;
const MARKER_SPLIT = /(\[\d{1,4}(?:\s*,\s*\d{1,4})*\])/;

/**
 * The spans a quoting answer quotes, read as the offline answerer writes
 * them in Markdown: the text before a marker (back to the previous marker,
 * or the start of its line) is a quote of the sources the marker names; a
 * fenced code block is a quote of the sources named on the line right
 * after it, else of those the quote before it cites; list bullets and
 * fences are presentation, not quoted text.
 *
 * @example quotesOf('Run it: [1]\n```\nnpm start\n```')
 * // [{ text: 'Run it:', sources: [1] }, { text: 'npm start', sources: [1] }]
 */
export function quotesOf(answer: string): AnswerQuote[] {
  const quotes: AnswerQuote[] = [];
  const lines = answer.split('\n');
  for (let at = 0; at < lines.length; at += 1) {
    const line = lines[at] ?? '';
    if (FENCE_LINE.test(line)) {
      let end = at + 1;
      while (end < lines.length && !FENCE_LINE.test(lines[end] ?? '')) end += 1;
      const after = lines[end + 1] ?? '';
      const own = MARKERS_ONLY.test(after);
      quotes.push({
        text: lines.slice(at + 1, end).join('\n'),
        sources: own ? numbersOf(after) : (quotes.at(-1)?.sources ?? []),
      });
      at = own ? end + 1 : end;
      continue;
    }
    const pieces = line.replace(BULLET, '').split(MARKER_SPLIT);
    let text = '';
    for (const [index, piece] of pieces.entries()) {
      if (index % 2 === 0) text += piece;
      else if (text.trim() !== '') {
        quotes.push({ text: text.trim(), sources: numbersOf(piece) });
        text = '';
      } else {
        // `[1][2]`: the quote before is cited by both.
        const last = quotes.at(-1);
        if (last)
          quotes[quotes.length - 1] = { ...last, sources: [...last.sources, ...numbersOf(piece)] };
      }
    }
  }
  return quotes;
}

function numbersOf(markers: string): number[] {
  return [...markers.matchAll(/\d{1,4}/g)].map(([digits]) => Number(digits));
}
