import { citedSourceNumbers, stripCitations } from '../../../layers/core/domain/citations';

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
});
