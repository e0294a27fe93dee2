import { mergeSources, numbersInWords } from '../../src/screens/agents/source-entries';

const source = (chunk: string, quoted: Array<{ start: number; end: number }> = []) => ({
  chunk_id: chunk,
  document_title: `Title of ${chunk}`,
  quoted_ranges: quoted,
});

describe('mergeSources', () => {
  it('gives each distinct passage its own entry, numbered as the answer numbers them', () => {
    const merged = mergeSources([source('chk_a'), source('chk_b')]);
    expect(merged.entries.map((entry) => [entry.number, entry.source.chunk_id])).toEqual([
      [1, 'chk_a'],
      [2, 'chk_b'],
    ]);
    expect(merged.byNumber.get(2)?.source.chunk_id).toBe('chk_b');
  });

  it('merges a passage listed twice into one entry shown by its first number', () => {
    const merged = mergeSources([source('chk_a'), source('chk_b'), source('chk_a')]);
    expect(merged.entries).toHaveLength(2);
    expect(merged.entries[0]).toMatchObject({ number: 1, numbers: [1, 3] });
    expect(merged.entries[1]).toMatchObject({ number: 2, numbers: [2] });
  });

  it('opens the same entry from every number of a merged passage', () => {
    const merged = mergeSources([
      source('chk_a'),
      source('chk_a'),
      source('chk_b'),
      source('chk_a'),
    ]);
    expect(merged.byNumber.get(1)).toBe(merged.byNumber.get(2));
    expect(merged.byNumber.get(4)).toBe(merged.byNumber.get(1));
    expect(merged.byNumber.get(3)?.number).toBe(3);
    expect(merged.byNumber.get(5)).toBeUndefined();
  });

  it('marks what every listing of a merged passage quotes', () => {
    const merged = mergeSources([
      source('chk_a', [{ start: 0, end: 4 }]),
      source('chk_a', [{ start: 10, end: 12 }]),
      source('chk_a'),
    ]);
    expect(merged.entries[0]?.source.quoted_ranges).toEqual([
      { start: 0, end: 4 },
      { start: 10, end: 12 },
    ]);
  });

  it('has no entry for an answer without sources', () => {
    const merged = mergeSources([]);
    expect(merged.entries).toEqual([]);
    expect(merged.byNumber.size).toBe(0);
  });
});

describe('numbersInWords', () => {
  it('writes citation numbers as a reader would say them', () => {
    expect(numbersInWords([])).toBe('');
    expect(numbersInWords([3])).toBe('[3]');
    expect(numbersInWords([1, 3])).toBe('[1] and [3]');
    expect(numbersInWords([1, 2, 3, 5])).toBe('[1], [2], [3] and [5]');
  });
});
