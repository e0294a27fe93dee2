import { queryLikelihoodRanking } from '../../../../layers/core/domain/retrieval/query-likelihood';

const passage = (id: string, text: string, title = '') => ({
  chunk: { chunk_id: id, document_title: title, text },
  score: 0,
});
const ids = (list: readonly { chunk: { chunk_id: string } }[]) =>
  list.map((item) => item.chunk.chunk_id);

describe('Domain: queryLikelihoodRanking', () => {
  it('puts a passage holding every query term before one holding some of them', () => {
    const ranked = queryLikelihoodRanking(
      'glacier melt rate',
      [passage('some', 'glacier melt in spring'), passage('all', 'glacier melt rate in spring')],
      { mu: 20 },
    );

    expect(ids(ranked)).toEqual(['all', 'some']);
  });

  it('prefers the shorter of two passages with the same matches', () => {
    const ranked = queryLikelihoodRanking(
      'glacier melt',
      [
        passage('long', `glacier melt ${'alpine valley history '.repeat(10)}`),
        passage('short', 'glacier melt observed'),
      ],
      { mu: 20 },
    );

    expect(ids(ranked)).toEqual(['short', 'long']);
  });

  it('scores Σ log((tf + μ·p) / (length + μ)), p estimated from the candidates', () => {
    // Terms: a = [glacier, melt] (2), b = [glacier, ice] (2); glacier occurs 2 of 4, melt 1 of 4.
    const [first, second] = queryLikelihoodRanking(
      'glacier melt',
      [passage('a', 'glacier melt'), passage('b', 'glacier ice')],
      { mu: 4 },
    );

    expect(first?.chunk.chunk_id).toBe('a');
    expect(first?.score).toBeCloseTo(
      Math.log((1 + 4 * 0.5) / 6) + Math.log((1 + 4 * 0.25) / 6),
      12,
    );
    expect(second?.score).toBeCloseTo(
      Math.log((1 + 4 * 0.5) / 6) + Math.log((0 + 4 * 0.25) / 6),
      12,
    );
  });

  it('reads the title with the text, as BM25 does', () => {
    const ranked = queryLikelihoodRanking(
      'glacier',
      [passage('untitled', 'ice sheets'), passage('titled', 'ice sheets', 'Glacier')],
      { mu: 20 },
    );

    expect(ids(ranked)).toEqual(['titled', 'untitled']);
  });

  it('ranks and scores alike when the candidates were counted by an earlier search', () => {
    const candidates = [
      passage('m1', 'glacier melt in spring'),
      passage('m2', 'glacier melt rate', 'Ice'),
      passage('m3', 'alpine valley'),
    ];

    const first = queryLikelihoodRanking('glacier melt rate', candidates, { mu: 20 });
    const again = queryLikelihoodRanking('glacier melt rate', candidates, { mu: 20 });

    expect(again).toEqual(first);
  });

  it('re-counts a chunk whose text changed under the same id', () => {
    queryLikelihoodRanking('glacier', [passage('e1', 'glacier'), passage('e2', 'ice')], { mu: 20 });

    const ranked = queryLikelihoodRanking(
      'glacier',
      [passage('e1', 'ice'), passage('e2', 'glacier')],
      { mu: 20 },
    );

    expect(ids(ranked)).toEqual(['e2', 'e1']);
  });

  it('ranks nothing for a query without index terms, or without candidates', () => {
    expect(queryLikelihoodRanking('the of and', [passage('a', 'glacier')], { mu: 20 })).toEqual([]);
    expect(queryLikelihoodRanking('glacier', [], { mu: 20 })).toEqual([]);
  });
});
