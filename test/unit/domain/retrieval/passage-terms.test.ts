import {
  forgetPassageTerms,
  occurrences,
  passageTerms,
  REMEMBERED_PASSAGES,
  rememberedPassageCount,
  termsOf,
} from '../../../../layers/core/domain/retrieval/passage-terms';

const countsOf = (passage: ReturnType<typeof passageTerms>) =>
  Object.fromEntries(termsOf(passage).map((term, index) => [term, passage.counts[index]]));

describe('Domain: passageTerms', () => {
  beforeEach(() => forgetPassageTerms());

  it('counts the index terms of the title and text, as BM25 reads them', () => {
    const passage = passageTerms({
      chunk_id: 'c1',
      document_title: 'Glaciers',
      text: 'The glaciers melt in the spring.',
    });

    expect(countsOf(passage)).toEqual({ glacier: 2, melt: 1, spring: 1 });
    expect(passage.length).toBe(4);
  });

  it('finds how often a term occurs, 0 for a term the passage lacks', () => {
    const passage = passageTerms({ text: 'zebra apple mango apple kiwi apple' });

    expect([...passage.termIds]).toEqual([...passage.termIds].sort((a, b) => a - b));
    expect(occurrences(passage, 'appl')).toBe(3);
    expect(occurrences(passage, 'zebra')).toBe(1);
    expect(occurrences(passage, 'banana')).toBe(0);
    expect(occurrences(passageTerms({ text: '' }), 'appl')).toBe(0);
  });

  it('gives back the remembered counts for the same chunk and words', () => {
    const chunk = { chunk_id: 'c1', document_title: 'Glaciers', text: 'Glaciers melt.' };

    const first = passageTerms(chunk);
    const again = passageTerms({ ...chunk });

    expect(again).toBe(first);
  });

  it('counts a chunk again when its words changed since they were counted', () => {
    passageTerms({ chunk_id: 'c1', document_title: 'Glaciers', text: 'Glaciers melt.' });

    const edited = passageTerms({
      chunk_id: 'c1',
      document_title: 'Glaciers',
      text: 'Ice sheets.',
    });

    expect(countsOf(edited)).toEqual({ glacier: 1, ic: 1, sheet: 1 });
  });

  it('counts a passage without a chunk id afresh, remembering nothing', () => {
    const passage = passageTerms({ text: 'glacier glacier' });

    expect(countsOf(passage)).toEqual({ glacier: 2 });
    expect(rememberedPassageCount()).toBe(0);
  });

  it('forgets the least recently used chunk when the table is full', () => {
    const first = passageTerms({ chunk_id: 'c0', text: 'x' });
    const second = passageTerms({ chunk_id: 'c1', text: 'x' });
    for (let i = 2; i < REMEMBERED_PASSAGES; i += 1) passageTerms({ chunk_id: `c${i}`, text: 'x' });
    passageTerms({ chunk_id: 'c0', text: 'x' });

    passageTerms({ chunk_id: 'new', text: 'glacier' });

    expect(rememberedPassageCount()).toBe(REMEMBERED_PASSAGES);
    expect(passageTerms({ chunk_id: 'c0', text: 'x' })).toBe(first);
    expect(passageTerms({ chunk_id: 'c1', text: 'x' })).not.toBe(second);
  });
});
