import {
  admitCeiling,
  admittedState,
  emissionInterval,
  refusedState,
} from '../../../layers/core/domain/gcra';

const write = { perMinute: 10, burst: 15 };

describe('Domain: GCRA token bucket', () => {
  it('spaces tokens by the per-minute rate', () => {
    expect(emissionInterval(write)).toBe(6_000);
  });

  it('reports the whole tokens left after an admitted request', () => {
    const now = 1_000_000;
    // A fresh bucket: the first request moves TAT to now + one interval.
    expect(admittedState(write, now, now + 6_000).remaining).toBe(14);
    // The fifteenth request in a burst leaves nothing.
    expect(admittedState(write, now, now + 15 * 6_000).remaining).toBe(0);
    expect(admittedState(write, now, now + 6_000)).toMatchObject({
      allowed: true,
      retryAfterSeconds: 0,
      fullAt: now + 6_000,
    });
  });

  it('admits up to the burst and no more', () => {
    const now = 0;
    let tat = now;
    let admitted = 0;
    for (let i = 0; i < 20; i += 1) {
      if (Math.max(tat, now) <= admitCeiling(write, now)) {
        tat = Math.max(tat, now) + emissionInterval(write);
        admitted += 1;
      }
    }
    expect(admitted).toBe(15);
  });

  it('tells a refused caller when the next token arrives', () => {
    const now = 0;
    const tat = now + 15 * 6_000; // bucket empty
    const state = refusedState(write, now, tat);
    expect(state).toMatchObject({
      allowed: false,
      remaining: 0,
      fullAt: tat,
      retryAfterSeconds: 6,
    });
  });
});
