import { countTokens, TOKEN_ENCODING } from '../../../../layers/core/domain/retrieval/tokens';

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
});
