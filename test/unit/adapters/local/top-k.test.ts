import { TopK } from '../../../../layers/core/adapters/local/top-k';

describe('Class: TopK', () => {
  it('keeps the k best scores, best first', () => {
    const best = new TopK(3);
    for (const [id, score] of [5, 1, 9, 3, 7, 2].entries()) best.offer(score, id);

    expect(best.drain()).toEqual([
      { id: 2, score: 9 },
      { id: 4, score: 7 },
      { id: 0, score: 5 },
    ]);
  });

  it('prefers the lower id between equal scores', () => {
    const best = new TopK(2);
    for (const id of [4, 1, 3, 2]) best.offer(1, id);

    expect(best.drain().map(({ id }) => id)).toEqual([1, 2]);
  });

  it('raises its threshold once full', () => {
    const best = new TopK(2);
    expect(best.threshold).toBe(Number.NEGATIVE_INFINITY);
    best.offer(3, 0);
    best.offer(8, 1);

    expect(best.threshold).toBe(3);
  });

  it('keeps nothing for k 0', () => {
    const best = new TopK(0);
    best.offer(1, 0);

    expect(best.drain()).toEqual([]);
  });

  it('agrees with sorting everything', () => {
    const scores = Array.from({ length: 500 }, (_, i) => (Math.sin(i * 12.9898) * 43758.5453) % 1);
    const best = new TopK(25);
    for (const [id, score] of scores.entries()) best.offer(score, id);

    const expected = scores
      .map((score, id) => ({ id, score }))
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .slice(0, 25);
    expect(best.drain()).toEqual(expected);
  });
});
