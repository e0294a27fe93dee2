import {
  askerOf,
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

describe('unique users in analytics', () => {
  it('names the signed-in user, else the API key, else the conversation of an old interaction', () => {
    expect(askerOf({ user_id: 'usr_1', key_id: null, session_id: 'sess_1' })).toBe('usr_1');
    expect(askerOf({ user_id: null, key_id: 'key_1', session_id: 'sess_1' })).toBe('key_1');
    expect(askerOf({ key_id: null, session_id: 'sess_1' })).toBe('session:sess_1');
  });

  it('counts one person once across conversations and hours', () => {
    const hour = (...askers: string[]) => ({ ...EMPTY_ROLLUP, askers: new Set(askers) });

    const merged = mergeRollups(hour('usr_1', 'key_1'), hour('usr_1'));

    expect(metricsOf(merged).unique_users).toBe(2);
  });
});
