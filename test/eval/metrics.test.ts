import { meanMetrics, ndcgAt, precisionAt, rankDocuments, recallAt } from './metrics';

const run = (entries: [string, number][]) => new Map(entries);
const judged = (entries: [string, number][]) => new Map(entries);

describe('Eval: trec_eval metrics', () => {
  it('ranks by score, ties by document id in decreasing order (trec_eval)', () => {
    expect(
      rankDocuments(
        run([
          ['a', 1],
          ['c', 2],
          ['b', 2],
          ['d', 0.5],
        ]),
      ),
    ).toEqual(['c', 'b', 'a', 'd']);
  });

  it('gives nDCG@10 of 1 for a perfect ranking and 0 with no relevant document retrieved', () => {
    const qrels = judged([['r1', 1]]);
    expect(
      ndcgAt(
        10,
        run([
          ['r1', 3],
          ['x', 2],
        ]),
        qrels,
      ),
    ).toBe(1);
    expect(ndcgAt(10, run([['x', 2]]), qrels)).toBe(0);
    expect(ndcgAt(10, run([]), qrels)).toBe(0);
  });

  it('discounts a relevant document at rank 3 by log2(4)', () => {
    // DCG = 1 / log2(3 + 1) = 0.5; ideal DCG = 1.
    expect(
      ndcgAt(
        10,
        run([
          ['a', 3],
          ['b', 2],
          ['r', 1],
        ]),
        judged([['r', 1]]),
      ),
    ).toBeCloseTo(0.5, 12);
  });

  it('normalises by the ideal ranking of all judged relevant documents, cut at k', () => {
    // Relevant r1, r2 at ranks 2 and 4: DCG = 1/log2(3) + 1/log2(5) = 1.0616; ideal = 1 + 1/log2(3) = 1.6309.
    const result = ndcgAt(
      10,
      run([
        ['a', 4],
        ['r1', 3],
        ['b', 2],
        ['r2', 1],
      ]),
      judged([
        ['r1', 1],
        ['r2', 1],
      ]),
    );
    const expected = (1 / Math.log2(3) + 1 / Math.log2(5)) / (1 + 1 / Math.log2(3));
    expect(result).toBeCloseTo(expected, 12);
    expect(result).toBeCloseTo(0.6509, 4);
  });

  it('ignores what is ranked below k', () => {
    const deep = run(Array.from({ length: 11 }, (_, i): [string, number] => [`d${i}`, 100 - i]));
    expect(ndcgAt(10, deep, judged([['d10', 1]]))).toBe(0);
    expect(recallAt(10, deep, judged([['d10', 1]]))).toBe(0);
    expect(recallAt(10, deep, judged([['d9', 1]]))).toBe(1);
  });

  it('uses graded gains when judgements are graded', () => {
    // DCG = 1 + 2/log2(3); ideal = 2 + 1/log2(3).
    const result = ndcgAt(
      10,
      run([
        ['low', 2],
        ['high', 1],
      ]),
      judged([
        ['low', 1],
        ['high', 2],
      ]),
    );
    expect(result).toBeCloseTo((1 + 2 / Math.log2(3)) / (2 + 1 / Math.log2(3)), 12);
  });

  it('counts recall@10 as the share of relevant documents in the top 10', () => {
    const qrels = judged([
      ['r1', 1],
      ['r2', 1],
      ['r3', 1],
      ['nr', 0],
    ]);
    expect(
      recallAt(
        10,
        run([
          ['r1', 2],
          ['x', 1],
          ['r3', 0.5],
          ['nr', 0.1],
        ]),
        qrels,
      ),
    ).toBeCloseTo(2 / 3, 12);
  });

  it('averages over every judged query, counting an unanswered one as 0 (-c)', () => {
    const qrels = new Map([
      ['q1', judged([['r', 1]])],
      ['q2', judged([['s', 1]])],
    ]);
    const runs = new Map([['q1', run([['r', 1]])]]);

    expect(meanMetrics(['q1', 'q2'], runs, qrels)).toEqual({
      queries: 2,
      ndcg10: 0.5,
      recall10: 0.5,
      recall100: 0.5,
      // q1: 1 relevant in the top 30 → 1/30; q2: 0.
      precision30: 1 / 60,
    });
  });

  it('counts P@30 as relevant documents in the top 30 over 30, however short the run', () => {
    // 40 documents, relevant at ranks 1, 5, 30 and 31 (and one judged 0 at rank 2): 3 of the top 30.
    const deep = run(
      Array.from({ length: 40 }, (_, i): [string, number] => [`d${i + 1}`, 100 - i]),
    );
    const qrels = judged([
      ['d1', 1],
      ['d2', 0],
      ['d5', 2],
      ['d30', 1],
      ['d31', 1],
    ]);
    expect(precisionAt(30, deep, qrels)).toBeCloseTo(3 / 30, 12);
    // Two documents, one relevant: 1/30, not 1/2 (trec_eval's P_30 divides by 30).
    expect(
      precisionAt(
        30,
        run([
          ['r', 2],
          ['x', 1],
        ]),
        judged([['r', 1]]),
      ),
    ).toBeCloseTo(1 / 30, 12);
  });
});
