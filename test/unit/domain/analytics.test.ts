import {
  EMPTY_ROLLUP,
  groundednessCounters,
  mergeRollups,
  metricsOf,
} from '../../../layers/core/domain/analytics';

describe('groundedness in analytics', () => {
  it('counts an answer citing a source, in thousandths', () => {
    expect(groundednessCounters({ cited_sources: 2, groundedness: 0.667 })).toEqual({
      milli: 667,
      counted: 1,
    });
  });

  it('leaves out answers citing nothing, and interactions never grounded', () => {
    expect(groundednessCounters({ cited_sources: 0, groundedness: 1 })).toEqual({
      milli: 0,
      counted: 0,
    });
    expect(groundednessCounters({ cited_sources: 1, groundedness: null })).toEqual({
      milli: 0,
      counted: 0,
    });
  });

  it('averages over the merged hours by sum and count, null when nothing was counted', () => {
    const hour = (milli: number, counted: number) => ({
      ...EMPTY_ROLLUP,
      queries: counted,
      groundedness_milli_sum: milli,
      grounded: counted,
    });

    expect(metricsOf(mergeRollups(hour(1000 + 500, 2), hour(250, 1))).avg_groundedness).toBe(0.583);
    expect(metricsOf(EMPTY_ROLLUP).avg_groundedness).toBeNull();
  });
});
