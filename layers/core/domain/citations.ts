/**
 * Citation markers in answers: a numbered source is cited as `[n]` (D18),
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
 * prompt (D18) without them: their numbers referred to that turn's sources,
 * and would be mistaken for this turn's.
 *
 * @example stripCitations('Thirty days [1][2].') // 'Thirty days.'
 */
export function stripCitations(text: string): string {
  return text.replace(MARKER_WITH_SPACE, '');
}

/**
 * Issue 10, P174: the answer as its reader gets it, with only the sources it
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
