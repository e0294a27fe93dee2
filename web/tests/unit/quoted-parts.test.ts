import { normalizedRanges, quotedParts } from '../../src/format/quoted-parts';

const TEXT = 'Use app.listen(3000) to start the server.';

/** The parts written compactly: quoted ones in brackets. */
function shown(text: string, ranges: ReadonlyArray<{ start: number; end: number }>): string {
  return quotedParts(text, ranges)
    .map((part) => (part.quoted ? `[${part.text}]` : part.text))
    .join('');
}

describe('quotedParts', () => {
  it('marks one range inside the passage, and the parts join to the passage again', () => {
    const parts = quotedParts(TEXT, [{ start: 4, end: 20 }]);
    expect(parts).toEqual([
      { text: 'Use ', quoted: false },
      { text: 'app.listen(3000)', quoted: true },
      { text: ' to start the server.', quoted: false },
    ]);
    expect(parts.map((part) => part.text).join('')).toBe(TEXT);
  });

  it('marks ranges at the very start and the very end without empty parts', () => {
    expect(quotedParts('abcdef', [{ start: 0, end: 2 }])).toEqual([
      { text: 'ab', quoted: true },
      { text: 'cdef', quoted: false },
    ]);
    expect(quotedParts('abcdef', [{ start: 4, end: 6 }])).toEqual([
      { text: 'abcd', quoted: false },
      { text: 'ef', quoted: true },
    ]);
    expect(quotedParts('abcdef', [{ start: 0, end: 6 }])).toEqual([
      { text: 'abcdef', quoted: true },
    ]);
  });

  it('leaves the passage whole when nothing is quoted', () => {
    expect(quotedParts(TEXT, [])).toEqual([{ text: TEXT, quoted: false }]);
    expect(quotedParts('', [{ start: 0, end: 3 }])).toEqual([]);
  });

  it('merges overlapping and adjacent ranges, in whatever order they come', () => {
    expect(
      shown('abcdefghij', [
        { start: 6, end: 8 },
        { start: 1, end: 3 },
        { start: 2, end: 4 },
        { start: 4, end: 5 },
      ]),
    ).toBe('a[bcde]f[gh]ij');
    expect(
      shown('abcdefghij', [
        { start: 1, end: 8 },
        { start: 3, end: 5 },
      ]),
    ).toBe('a[bcdefgh]ij');
  });

  it('keeps separate ranges separate', () => {
    expect(
      shown('abcdefghij', [
        { start: 0, end: 1 },
        { start: 2, end: 3 },
      ]),
    ).toBe('[a]b[c]defghij');
  });

  it('clamps ranges that reach past either end, and drops those wholly outside or empty', () => {
    expect(shown('abcdef', [{ start: -5, end: 2 }])).toBe('[ab]cdef');
    expect(shown('abcdef', [{ start: 4, end: 99 }])).toBe('abcd[ef]');
    expect(shown('abcdef', [{ start: 10, end: 20 }])).toBe('abcdef');
    expect(shown('abcdef', [{ start: 3, end: 3 }])).toBe('abcdef');
    expect(shown('abcdef', [{ start: 4, end: 2 }])).toBe('abcdef');
    expect(shown('abcdef', [{ start: Number.NaN, end: 2 }])).toBe('abcdef');
  });

  it('never splits a character written as two code units', () => {
    const text = 'a😀b😀c';
    // 😀 is two UTF-16 code units: offsets 1–3 and 4–6.
    expect(shown(text, [{ start: 2, end: 5 }])).toBe('a[😀b😀]c');
  });
});

describe('normalizedRanges', () => {
  it('returns sorted, disjoint, non-touching ranges within the text', () => {
    expect(
      normalizedRanges('abcdefghij', [
        { start: 8, end: 40 },
        { start: 0, end: 2 },
        { start: 2, end: 3 },
        { start: 5.5, end: 6.2 },
      ]),
    ).toEqual([
      { start: 0, end: 3 },
      { start: 5, end: 7 },
      { start: 8, end: 10 },
    ]);
  });
});
