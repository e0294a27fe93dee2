import fc from 'fast-check';
import {
  estimateTokens,
  firstEstimatedTokens,
} from '../../../../layers/core/domain/retrieval/token-estimate';
import { countTokens } from '../../../../layers/core/domain/retrieval/tokens';

const PROSE = [
  'How long do refunds take? Refunds are issued within 14 days to the original payment method.',
  'The Agent Query Service answers from an organization’s own data, with cited sources.',
  'Webhooks are signed with HMAC-SHA256 (X-Svc-Signature) and retried at 5 s, 30 s, 5 min and 1 h.',
  '日本語のテキストはトークン数が多いです。',
  'Ünïcödé façade naïve café résumé 😀 🎉',
];

describe('Function: estimateTokens', () => {
  it('counts nothing in an empty text', () => {
    expect(estimateTokens('')).toBe(0);
  });

  it('is close to or above the cl100k count on prose, CJK and emoji (a conservative budget)', () => {
    for (const text of PROSE)
      expect(estimateTokens(text)).toBeGreaterThanOrEqual(0.9 * countTokens(text));
  });

  it('stays within twice the cl100k count on English prose', () => {
    for (const text of PROSE.slice(0, 3))
      expect(estimateTokens(text)).toBeLessThanOrEqual(2 * countTokens(text));
  });

  it('grows linearly with a run without spaces (issue 14: no quadratic work)', () => {
    expect(estimateTokens('x'.repeat(400_000))).toBe(100_000);
  });
});

describe('Function: firstEstimatedTokens', () => {
  it('keeps whole words while they fit, then cuts the next by characters (as a token cut would)', () => {
    expect(firstEstimatedTokens('one two three four', 2)).toBe('one two');
    expect(firstEstimatedTokens('one two three four', 3)).toBe('one two thr');
  });

  it('cuts a piece too long for the budget by characters', () => {
    expect(firstEstimatedTokens('x'.repeat(100), 2)).toBe('xxxxxxxx');
  });

  it('never exceeds the budget, never splits a surrogate pair, and is a prefix', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.nat(60), (text, budget) => {
        const start = firstEstimatedTokens(text, budget);
        expect(text.startsWith(start)).toBe(true);
        expect(estimateTokens(start)).toBeLessThanOrEqual(budget);
        expect(start).not.toMatch(/[\uD800-\uDBFF]$/);
      }),
    );
  });
});
