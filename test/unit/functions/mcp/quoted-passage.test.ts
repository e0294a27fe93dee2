import { excerpt, quotedPassage } from '../../../../functions/mcp/quoted-passage';

describe('The passage an MCP source shows (quotedPassage)', () => {
  const chunk_text =
    'Every Acme widget carries a two year warranty. It does not cover drops. Returns take 30 days.';

  it('is the parts the answer quotes, joined by an ellipsis', () => {
    const passage = quotedPassage({
      chunk_text,
      quoted_ranges: [
        { start: 0, end: 46 },
        { start: 72, end: 94 },
      ],
    });

    expect(passage).toBe('Every Acme widget carries a two year warranty. … Returns take 30 days.');
  });

  it('is the chunk when the answer quotes none of it, cut at a word when long', () => {
    const long = `${'word '.repeat(200)}end`;

    expect(quotedPassage({ chunk_text, quoted_ranges: [] })).toBe(chunk_text);
    expect(excerpt(long).length).toBeLessThanOrEqual(402);
    expect(excerpt(long)).toMatch(/word …$/);
  });
});
