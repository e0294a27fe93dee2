import {
  bm25Idf,
  bm25TermScore,
  DEFAULT_BM25,
} from '../../../../layers/core/domain/retrieval/bm25';

describe('Domain: BM25', () => {
  it("uses Anserini's k1 0.9 and b 0.4 by default", () => {
    expect(DEFAULT_BM25).toEqual({ k1: 0.9, b: 0.4 });
  });

  it("computes Lucene's idf, positive even for a term in every document", () => {
    expect(bm25Idf(1, 10)).toBeCloseTo(Math.log(1 + 9.5 / 1.5), 12);
    expect(bm25Idf(10, 10)).toBeGreaterThan(0);
    expect(bm25Idf(1, 10)).toBeGreaterThan(bm25Idf(5, 10));
  });

  it('saturates with term frequency and favours shorter documents', () => {
    const idf = bm25Idf(2, 100);
    const once = bm25TermScore(idf, 1, 10, 10, DEFAULT_BM25);
    const twice = bm25TermScore(idf, 2, 10, 10, DEFAULT_BM25);
    const often = bm25TermScore(idf, 50, 10, 10, DEFAULT_BM25);

    expect(twice).toBeGreaterThan(once);
    expect(twice).toBeLessThan(2 * once);
    expect(often).toBeLessThan(idf);
    expect(bm25TermScore(idf, 1, 5, 10, DEFAULT_BM25)).toBeGreaterThan(once);
  });

  it('matches the formula by hand', () => {
    // idf · tf / (tf + k1 · (1 − b + b · dl/avgdl)) = 2 · 3 / (3 + 0.9 · (0.6 + 0.4 · 2)) = 6 / 4.26
    expect(bm25TermScore(2, 3, 20, 10, DEFAULT_BM25)).toBeCloseTo(6 / 4.26, 12);
  });
});
