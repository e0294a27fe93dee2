import { costUsd, MODEL_PRICES, priceOf } from '../../../layers/core/domain/model-pricing';

describe('Domain: model pricing', () => {
  it('prices input and output tokens per million', () => {
    // 1,200 × $0.15/M + 300 × $0.60/M
    expect(costUsd('gpt-4o-mini', 1_200, 300)).toEqual({ usd: 0.00036, priced: true });
    // 1M × $2.50/M + 1M × $10/M
    expect(costUsd('gpt-4o', 1_000_000, 1_000_000)).toEqual({ usd: 12.5, priced: true });
  });

  it('rounds to a millionth of a dollar', () => {
    // 7 × $0.02/M = $0.00000014
    expect(costUsd('text-embedding-3-small', 7, 0)).toEqual({ usd: 0, priced: true });
    // 333 × $0.40/M + 333 × $1.60/M = $0.000666
    expect(costUsd('gpt-4.1-mini', 333, 333).usd).toBe(0.000666);
    // 1 × $1.25/M + 1 × $10/M = $0.00001125
    expect(costUsd('gpt-5', 1, 1).usd).toBe(0.000011);
  });

  it('charges nothing for the offline models (D20)', () => {
    expect(costUsd('offline-extractive', 5_000, 800)).toEqual({ usd: 0, priced: true });
  });

  it('prices a dated snapshot as its base model', () => {
    expect(priceOf('gpt-4o-mini-2024-07-18')).toBe(MODEL_PRICES['gpt-4o-mini']);
    expect(priceOf('gpt-3.5-turbo-0125')).toBe(MODEL_PRICES['gpt-3.5-turbo']);
    expect(priceOf('gpt-4.1-nano-2025-04-14')).toBe(MODEL_PRICES['gpt-4.1-nano']);
  });

  it('prefers a snapshot of its own price over its base model', () => {
    expect(costUsd('gpt-4o-2024-05-13', 1_000_000, 0).usd).toBe(5);
    expect(costUsd('gpt-4o-2024-08-06', 1_000_000, 0).usd).toBe(2.5);
  });

  it('reports an unknown model as unpriced, costing 0', () => {
    expect(costUsd('llama-3.1-70b-instruct', 1_000, 1_000)).toEqual({ usd: 0, priced: false });
    expect(priceOf('gpt-4o-mini-extended')).toBeNull();
  });

  it('refuses token counts that are not non-negative integers', () => {
    expect(() => costUsd('gpt-4o', -1, 0)).toThrow(RangeError);
    expect(() => costUsd('gpt-4o', 0, 1.5)).toThrow('tokensOutput must be a non-negative integer');
  });
});

describe('Domain: model prices and prototype names', () => {
  it('treats names of Object.prototype members as unknown models', () => {
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      expect(priceOf(name)).toBeNull();
      expect(costUsd(name, 10, 10)).toEqual({ usd: 0, priced: false });
    }
  });
});
