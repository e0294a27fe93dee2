import {
  citedSourceNumbers,
  quotesOf,
  renumberCitations,
  stripCitations,
} from '../../../layers/core/domain/citations';
import { isVerbatimQuote } from '../../../layers/core/domain/retrieval/verbatim';

describe('Domain: citations', () => {
  it('lists the cited sources in order of first citation', () => {
    expect(citedSourceNumbers('Yes [2]. Thirty days [1]. Again [2].', [1, 2, 3])).toEqual([2, 1]);
  });

  it('reads adjacent and comma-separated markers', () => {
    expect(citedSourceNumbers('See [3][1] and [2, 4].', [1, 2, 3, 4])).toEqual([3, 1, 2, 4]);
  });

  it('keeps only numbers that were offered', () => {
    expect(citedSourceNumbers('Made up [7], real [1], zero [0].', [1, 2])).toEqual([1]);
  });

  it('ignores brackets that are not citations', () => {
    expect(citedSourceNumbers('An array [a, b] or [1a] or [ ].', [1])).toEqual([]);
  });

  it('strips markers and the space before them', () => {
    expect(stripCitations('Thirty days [1][2]. Pro rata [3, 4].')).toBe('Thirty days. Pro rata.');
  });

  // Issue 10, P174: the reader gets only the cited sources, so [n] is sources[n - 1].
  describe('renumberCitations', () => {
    it('numbers the cited sources 1, 2, … in order of first citation', () => {
      expect(renumberCitations('Yes. [3] Also [1, 3][9].', [3, 1])).toBe('Yes. [1] Also [2, 1].');
    });

    it('drops numbers that were not cited, and a marker left empty with its space', () => {
      expect(renumberCitations('Thirty days [7]. Ask [2].', [2])).toBe('Thirty days. Ask [1].');
    });

    it('leaves a text without markers as it is', () => {
      expect(renumberCitations('No markers here.', [])).toBe('No markers here.');
    });

    it('agrees with citedSourceNumbers: the renumbered text cites 1…k', () => {
      const text = 'A [4]. B [2][4]. C [5, 2].';
      const cited = citedSourceNumbers(text, [1, 2, 3, 4, 5]);
      expect(citedSourceNumbers(renumberCitations(text, cited), [1, 2, 3])).toEqual([1, 2, 3]);
    });
  });
});

describe('Function: quotesOf', () => {
  it('reads the text before each marker as a quote of the sources it names', () => {
    expect(quotesOf('Refunds take 5 days. [1] Gift cards are final. [2][3]')).toEqual([
      { text: 'Refunds take 5 days.', sources: [1] },
      { text: 'Gift cards are final.', sources: [2, 3] },
    ]);
  });

  it('gives a fenced code block the citation of the sentence that introduces it, or its own', () => {
    const answer =
      'Install it with: [1]\n```\nnpm install foo\nfoo init\n```\n\n```\nfoo --help\n```\n[2]';

    expect(quotesOf(answer)).toEqual([
      { text: 'Install it with:', sources: [1] },
      { text: 'npm install foo\nfoo init', sources: [1] },
      { text: 'foo --help', sources: [2] },
    ]);
  });

  it('leaves list bullets out of the quoted text', () => {
    expect(quotesOf('It has levels: [1]\n- `global`: everyone [1]')).toEqual([
      { text: 'It has levels:', sources: [1] },
      { text: '`global`: everyone', sources: [1] },
    ]);
  });
});

describe('Function: isVerbatimQuote', () => {
  const passage = 'Binds and listens for connections\non the given port.';

  it('accepts a span of the passage after whitespace normalization', () => {
    expect(isVerbatimQuote('listens for connections on the', passage)).toBe(true);
  });

  it('accepts a span led by one of its headings, and no other lead', () => {
    expect(isVerbatimQuote('app.listen() — Binds and listens', passage, ['app.listen()'])).toBe(
      true,
    );
    expect(isVerbatimQuote('app.close() — Binds and listens', passage, ['app.listen()'])).toBe(
      false,
    );
    expect(isVerbatimQuote('Binds and listens for requests', passage, ['app.listen()'])).toBe(
      false,
    );
  });
});
