import {
  citedSourceNumbers,
  renumberCitations,
  stripCitations,
} from '../../../layers/core/domain/citations';

describe('Domain: citations', () => {
  it('lists the cited sources in order of first citation', () => {
    expect(citedSourceNumbers('Yes [2]. Thirty days [1]. Again [2].', [1, 2, 3])).toEqual([2, 1]);
  });

  it('reads adjacent and comma-separated markers', () => {
    expect(citedSourceNumbers('See [3][1] and [2, 4].', [1, 2, 3, 4])).toEqual([3, 1, 2, 4]);
  });

  it('keeps only numbers that were offered', () => {
    expect(citedSourceNumbers('Made up [7], real [1], zero [0].', [1, 2])).toEqual([1]);
  });

  it('ignores brackets that are not citations', () => {
    expect(citedSourceNumbers('An array [a, b] or [1a] or [ ].', [1])).toEqual([]);
  });

  it('strips markers and the space before them', () => {
    expect(stripCitations('Thirty days [1][2]. Pro rata [3, 4].')).toBe('Thirty days. Pro rata.');
  });

  // Issue 10, P174: the reader gets only the cited sources, so [n] is sources[n - 1].
  describe('renumberCitations', () => {
    it('numbers the cited sources 1, 2, … in order of first citation', () => {
      expect(renumberCitations('Yes. [3] Also [1, 3][9].', [3, 1])).toBe('Yes. [1] Also [2, 1].');
    });

    it('drops numbers that were not cited, and a marker left empty with its space', () => {
      expect(renumberCitations('Thirty days [7]. Ask [2].', [2])).toBe('Thirty days. Ask [1].');
    });

    it('leaves a text without markers as it is', () => {
      expect(renumberCitations('No markers here.', [])).toBe('No markers here.');
    });

    it('agrees with citedSourceNumbers: the renumbered text cites 1…k', () => {
      const text = 'A [4]. B [2][4]. C [5, 2].';
      const cited = citedSourceNumbers(text, [1, 2, 3, 4, 5]);
      expect(citedSourceNumbers(renumberCitations(text, cited), [1, 2, 3])).toEqual([1, 2, 3]);
    });
  });
});
