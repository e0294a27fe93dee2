import fc from 'fast-check';
import { countTokens as encoderCount } from 'gpt-tokenizer/encoding/cl100k_base';
import {
  countTokens,
  MAX_ENCODED_RUN,
  TOKEN_ENCODING,
} from '../../../../layers/core/domain/retrieval/tokens';

const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

describe('Domain: countTokens', () => {
  it('counts cl100k_base tokens', () => {
    expect(TOKEN_ENCODING).toBe('cl100k_base');
    expect(countTokens('hello world')).toBe(2);
    expect(countTokens('')).toBe(0);
  });

  it('counts special-token text as plain text instead of refusing it', () => {
    expect(countTokens('before <|endoftext|> after')).toBeGreaterThan(3);
  });

  it('grows with the text', () => {
    const sentence = 'Refunds are processed within five business days. ';
    expect(countTokens(sentence.repeat(10))).toBeGreaterThan(countTokens(sentence) * 9);
  });

  it('counts text without a run longer than MAX_ENCODED_RUN exactly as the encoder does (P68)', () => {
    const word = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 });
    fc.assert(
      fc.property(fc.array(word, { maxLength: 30 }), (words) => {
        const text = words.join(' ');
        expect(countTokens(text)).toBe(encoderCount(text, PLAIN_TEXT));
      }),
    );
  });

  it('counts a run longer than MAX_ENCODED_RUN slice by slice, so counting stays linear (issue 14)', () => {
    const slice = 'x'.repeat(MAX_ENCODED_RUN);
    expect(countTokens(slice.repeat(40))).toBe(40 * countTokens(slice));
    expect(countTokens(' '.repeat(MAX_ENCODED_RUN * 40))).toBe(
      40 * countTokens(' '.repeat(MAX_ENCODED_RUN)),
    );
    // Seconds before the bound (200 KB took 42 s); now in proportion to the length. 20 MB: a
    // regular expression for long runs overflowed V8's backtracking stack at this size.
    expect(countTokens('x'.repeat(20_000_000))).toBe(
      Math.ceil(20_000_000 / MAX_ENCODED_RUN) * countTokens(slice),
    );
  });
});
