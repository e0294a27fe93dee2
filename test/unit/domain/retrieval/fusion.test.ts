import {
  type Candidate,
  convexCombinationRerank,
  fuseSearches,
  maximalMarginalRelevance,
  RETRIEVAL_TUNING,
  rankByStrategy,
  reciprocalRankFusion,
  rrfOptionsFor,
  type StrategySettings,
  strategySettingsFor,
  usesFeedback,
  usesLikelihood,
} from '../../../../layers/core/domain/retrieval/fusion';

const hit = (id: string, score: number, embedding?: number[]): Candidate => ({
  chunk: embedding ? { chunk_id: id, embedding } : { chunk_id: id },
  score,
});
const ids = (list: readonly Candidate[]) => list.map((item) => item.chunk.chunk_id);

describe('Domain: reciprocalRankFusion', () => {
  it('scores each chunk Σ weight / (k + rank) over the rankings it is in', () => {
    const fused = reciprocalRankFusion(
      [
        [hit('a', 0.9), hit('b', 0.8)],
        [hit('b', 12), hit('c', 7)],
      ],
      { k: 60 },
    );

    expect(ids(fused)).toEqual(['b', 'a', 'c']);
    expect(fused[0]?.score).toBeCloseTo(1 / 62 + 1 / 61, 12);
    expect(fused[1]?.score).toBeCloseTo(1 / 61, 12);
    expect(fused[2]?.score).toBeCloseTo(1 / 62, 12);
  });

  it('weighs each ranking by its weight', () => {
    const fused = reciprocalRankFusion([[hit('knn', 1)], [hit('bm25', 1)]], {
      k: 1,
      weights: [0.1, 1],
    });

    expect(ids(fused)).toEqual(['bm25', 'knn']);
    expect(fused[1]?.score).toBeCloseTo(0.05, 12);
  });

  it('keeps the copy of a chunk that carries its embedding', () => {
    const fused = reciprocalRankFusion([[hit('a', 3)], [hit('a', 0.5, [1, 0])]], { k: 60 });

    expect(fused[0]?.chunk.embedding).toEqual([1, 0]);
  });

  it('breaks ties by the order chunks were first seen', () => {
    const fused = reciprocalRankFusion([[hit('x', 1)], [hit('y', 1)]], { k: 60 });

    expect(ids(fused)).toEqual(['x', 'y']);
  });
});

describe('Domain: maximalMarginalRelevance', () => {
  const candidates = [
    hit('original', 1, [1, 0]),
    hit('near-copy', 0.95, [0.99, 0.141]),
    hit('different', 0.9, [0, 1]),
  ];

  it('keeps the relevance order when λ is 1', () => {
    expect(ids(maximalMarginalRelevance(candidates, { lambda: 1, limit: 3 }))).toEqual([
      'original',
      'near-copy',
      'different',
    ]);
  });

  it('puts a different chunk before a near copy of one already picked', () => {
    expect(ids(maximalMarginalRelevance(candidates, { lambda: 0.5, limit: 3 }))).toEqual([
      'original',
      'different',
      'near-copy',
    ]);
  });

  it('picks at most limit chunks, each scored by its marginal relevance when picked (P214)', () => {
    const picked = maximalMarginalRelevance(candidates, { lambda: 0.5, limit: 3 });

    expect(picked).toHaveLength(3);
    // The first pick has the best relevance (1 after rescaling) and nothing picked to resemble.
    expect(picked[0]?.score).toBeCloseTo(0.5, 9);
    const scores = picked.map((pick) => pick.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });
});

describe('Domain: convexCombinationRerank', () => {
  const candidates = [hit('a', 0.3, [1, 0]), hit('b', 0.2, [0.6, 0.8]), hit('c', 0.1, [0, 1])];
  const signals = {
    queryVector: [0, 2],
    lexicalScores: new Map([
      ['a', 12],
      ['b', 4],
    ]),
  };

  it('orders by BM25 alone with weight 1 (a chunk BM25 did not return counts 0)', () => {
    expect(ids(convexCombinationRerank(candidates, signals, { lexicalWeight: 1 }))).toEqual([
      'a',
      'b',
      'c',
    ]);
  });

  it('orders by cosine to the query alone with weight 0', () => {
    expect(ids(convexCombinationRerank(candidates, signals, { lexicalWeight: 0 }))).toEqual([
      'c',
      'b',
      'a',
    ]);
  });

  it('combines both, each rescaled to [0, 1]', () => {
    const reranked = convexCombinationRerank(candidates, signals, { lexicalWeight: 0.5 });

    // a: 0.5·1 + 0.5·0 = 0.5; b: 0.5·(4/12) + 0.5·0.8 = 0.567; c: 0 + 0.5·1 = 0.5.
    expect(ids(reranked)).toEqual(['b', 'a', 'c']);
    expect(reranked[0]?.score).toBeCloseTo(0.5 / 3 + 0.4, 12);
  });
});

describe('Domain: rankByStrategy', () => {
  const knn = [hit('k1', 0.9, [1, 0]), hit('shared', 0.8, [0.9, 0.1]), hit('k2', 0.1, [0, 1])];
  const bm25 = [hit('shared', 9), hit('b1', 5)];
  const inputs = { knn, bm25, queryVector: [1, 0] };
  const settings = strategySettingsFor('offline-hash-v1/384');

  it('ranks similarity by k-NN alone', () => {
    expect(ids(rankByStrategy('similarity', inputs, 2, settings))).toEqual(['k1', 'shared']);
  });

  it('fuses k-NN and BM25 for hybrid', () => {
    expect(ids(rankByStrategy('hybrid', inputs, 10, settings))).toEqual(
      ids(reciprocalRankFusion([knn, bm25], settings.rrf)),
    );
  });

  it('returns at most limit chunks for every strategy', () => {
    for (const strategy of ['similarity', 'hybrid', 'mmr', 'rerank'] as const) {
      expect(rankByStrategy(strategy, inputs, 2, settings).length).toBeLessThanOrEqual(2);
    }
  });

  it('uses the tuned fusion for the offline embedder and the customary one for a model', () => {
    expect(rrfOptionsFor('offline-hash-v1/384')).toBe(RETRIEVAL_TUNING.rrf.offline);
    expect(rrfOptionsFor('openai/text-embedding-3-small/1536')).toEqual({ k: 60, weights: [1, 1] });
  });
});

describe('Domain: fuseSearches', () => {
  const settings: StrategySettings = {
    rrf: { k: 1, weights: [0.1, 1] },
    mmrLambda: 0.7,
    rerankLexicalWeight: 0.8,
    feedback: { passages: 3, terms: 10, originalWeight: 0.5, rrfWeight: 1 },
    likelihood: { candidates: 100, mu: 20, keep: 1, rrfWeight: 1 },
  };
  const knn = [hit('a', 0.9)];
  const bm25 = [hit('b', 7), hit('a', 5)];

  it('fuses the feedback search as a third ranking with its own weight', () => {
    // a: 0.1/2 + 1/3 + 1/2 = 0.8833; b: 1/2; c: 1/3.
    const fused = fuseSearches(
      { knn, bm25, feedbackBm25: [hit('a', 9), hit('c', 4)], queryVector: [] },
      settings,
    );

    expect(ids(fused)).toEqual(['a', 'b', 'c']);
    expect(fused[0]?.score).toBeCloseTo(0.05 + 1 / 3 + 1 / 2, 12);
  });

  it('fuses k-NN and BM25 alone without a feedback search, or with its weight 0', () => {
    // a: 0.1/2 + 1/3 = 0.3833; b: 1/2.
    const off = { ...settings, feedback: { ...settings.feedback, rrfWeight: 0 } };

    expect(ids(fuseSearches({ knn, bm25, queryVector: [] }, settings))).toEqual(['b', 'a']);
    expect(
      ids(fuseSearches({ knn, bm25, feedbackBm25: [hit('c', 1)], queryVector: [] }, off)),
    ).toEqual(['b', 'a']);
    expect(usesFeedback(off)).toBe(false);
    expect(usesFeedback(settings)).toBe(true);
  });

  it('ranks hybrid with feedback by default, for every embedder', () => {
    expect(usesFeedback(strategySettingsFor('offline-hash-v1/384'))).toBe(true);
    expect(usesFeedback(strategySettingsFor('openai/text-embedding-3-small'))).toBe(true);
    expect(RETRIEVAL_TUNING.feedback.terms).toBeLessThanOrEqual(20);
  });

  it('adds the best query-likelihood passage of the fused ranking as one more ranking, given the query', () => {
    const passage = (id: string, score: number, text: string): Candidate => ({
      chunk: { chunk_id: id, document_title: '', text },
      score,
    });
    const padded = passage('padded', 7, `glacier ${'weather report '.repeat(20)}`);
    const covering = passage('covering', 5, 'glacier melt');

    // Without the query: padded 1/2, covering 1/3. With it, covering is query likelihood's best:
    // it adds 1/2, so covering 1/3 + 1/2 beats padded's 1/2.
    const inputs = { knn: [], bm25: [padded, covering], queryVector: [] };
    expect(ids(fuseSearches(inputs, settings))).toEqual(['padded', 'covering']);
    expect(ids(fuseSearches({ ...inputs, query: 'glacier melt' }, settings))).toEqual([
      'covering',
      'padded',
    ]);
    const off = { ...settings, likelihood: { ...settings.likelihood, rrfWeight: 0 } };
    expect(ids(fuseSearches({ ...inputs, query: 'glacier melt' }, off))).toEqual([
      'padded',
      'covering',
    ]);
    expect(usesLikelihood(off)).toBe(false);
    expect(usesLikelihood(strategySettingsFor('offline-hash-v1/384'))).toBe(true);
  });
});
