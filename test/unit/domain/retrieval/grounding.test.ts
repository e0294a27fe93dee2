import { NO_ANSWER_TEXT } from '../../../../layers/core/domain/no-answer';
import {
  type GroundingSource,
  groundAnswer,
} from '../../../../layers/core/domain/retrieval/grounding';
import { withinScanBudget } from '../../../support/scan-work';

const REFUNDS: GroundingSource = {
  chunk_text:
    'Refunds are paid within 5 business days. Gift cards are never refunded.\n\nExchanges are free for 30 days after delivery.',
};
const SHIPPING: GroundingSource = {
  chunk_text: 'Orders ship from Rotterdam. Express delivery costs 12 euros.',
};

/** The text of a source that a range covers. */
const covered = (source: GroundingSource, range: { start: number; end: number }) =>
  source.chunk_text.slice(range.start, range.end);

describe('groundAnswer', () => {
  describe('verbatim quotes', () => {
    it('scores an answer that quotes its source sentence by sentence as 1, with the quoted ranges', () => {
      const grounding = groundAnswer(
        'Refunds are paid within 5 business days. [1] Gift cards are never refunded. [1]',
        [REFUNDS],
      );

      expect(grounding.groundedness).toBe(1);
      expect(grounding.claims.map((claim) => [claim.text, claim.sources, claim.supported])).toEqual(
        [
          ['Refunds are paid within 5 business days.', [1], true],
          ['Gift cards are never refunded.', [1], true],
        ],
      );
      const ranges = grounding.quotedRanges.get(1) ?? [];
      // Adjacent sentences' ranges meet (the space between them is not quoted) or merge.
      expect(ranges.map((range) => covered(REFUNDS, range)).join(' ')).toBe(
        'Refunds are paid within 5 business days. Gift cards are never refunded.',
      );
    });

    it('maps a quote back to the original offsets when the source has other whitespace and invisible characters', () => {
      const source = {
        chunk_text:
          'Intro.\n\nThe   kettle\twarranty\n lasts two\u200b years \ufeff from\ufeffdelivery.',
      };
      const grounding = groundAnswer('The kettle warranty lasts two years [1].', [source]);

      expect(grounding.groundedness).toBe(1);
      const [range] = grounding.quotedRanges.get(1) ?? [];
      expect(range).toBeDefined();
      expect(covered(source, range ?? { start: 0, end: 0 })).toBe(
        'The   kettle\twarranty\n lasts two\u200b years',
      );
      // A byte-order mark vanishes (as verbatim.ts normalizes it) rather than becoming a space.
      const joined = groundAnswer('The warranty lasts two years from delivery. [1]', [source]);
      expect(joined.groundedness).toBe(1);
      expect(joined.claims[0]?.support).toBeDefined();
      const quoted = groundAnswer('years fromdelivery [1]', [source]).quotedRanges.get(1) ?? [];
      expect(quoted.map((range) => covered(source, range))).toEqual([
        'years \ufeff from\ufeffdelivery',
      ]);
    });

    it('reads markers inside, after and at the start of the next sentence, and ranges in [n, m] lists', () => {
      const grounding = groundAnswer(
        'Orders ship from Rotterdam [2]. Gift cards are never refunded.\n[1] Express delivery costs 12 euros [1, 2].',
        [REFUNDS, SHIPPING],
      );

      expect(grounding.claims.map((claim) => claim.sources)).toEqual([[2], [1], [1, 2]]);
      expect(grounding.groundedness).toBe(1);
      expect(grounding.claims[2]?.support?.source).toBe(2);
    });

    it('quotes a list item and a code block that follows the sentence introducing it', () => {
      const source = {
        chunk_text:
          'Install it with npm:\n\nnpm install express\n\nThen create an app:\n\n- Call express() to create it.',
      };
      const grounding = groundAnswer(
        'Install it with npm: [1]\n```sh\nnpm install express\n```\n- Call express() to create it. [1]',
        [source],
      );

      expect(grounding.claims).toHaveLength(3);
      expect(grounding.claims[1]).toMatchObject({
        text: 'npm install express',
        sources: [1],
        supported: true,
      });
      expect(grounding.groundedness).toBe(1);
      const ranges = grounding.quotedRanges.get(1) ?? [];
      expect(ranges.map((range) => covered(source, range))).toContain('npm install express');
    });
  });

  describe('structure', () => {
    const GUIDE = {
      chunk_text:
        'Install it with npm.\n\n1. Run npm install express.\n2. Create app.js with the code below.\n\n| Option | Default |\n| --- | --- |\n| port | 3000 |',
    };

    it('reads a numbered list item as one claim, its number no sentence of its own', () => {
      const grounding = groundAnswer(
        '1. Run npm install express. [1]\n2. Create app.js with the code below. [1]',
        [GUIDE],
      );

      expect(grounding.claims.map((claim) => claim.text)).toEqual([
        'Run npm install express.',
        'Create app.js with the code below.',
      ]);
      expect(grounding.groundedness).toBe(1);
    });

    it('checks an introduction ending in a colon, and a heading, against what follows them cites', () => {
      const grounding = groundAnswer(
        '## Installing\nTo install it with npm:\n- Run npm install express. [1]\n| port | 3000 | [1]',
        [GUIDE],
      );

      expect(grounding.claims.map((claim) => [claim.text, claim.sources, claim.supported])).toEqual(
        [
          ['Installing', [1], true],
          ['To install it with npm:', [1], true],
          ['Run npm install express.', [1], true],
          ['| port | 3000 |', [1], true],
        ],
      );
    });

    it('does not let an introduction borrow a citation it is not supported by', () => {
      const grounding = groundAnswer(
        'To deploy it on Kubernetes:\n- Run npm install express. [1]',
        [GUIDE],
      );

      expect(grounding.claims.map((claim) => claim.supported)).toEqual([false, true]);
      expect(grounding.groundedness).toBe(0.5);
    });
  });

  describe('claims a cited passage does not support', () => {
    it('scores a model answer with an unsupported sentence below 1', () => {
      const grounding = groundAnswer(
        'Refunds are paid within 5 business days [1]. Refunds are also available in cryptocurrency on request [1].',
        [REFUNDS],
      );

      expect(grounding.groundedness).toBe(0.5);
      expect(grounding.claims.map((claim) => claim.supported)).toEqual([true, false]);
      expect(grounding.claims[1]?.support).toBeUndefined();
    });

    it('does not count a paraphrase whose number differs from its source', () => {
      const grounding = groundAnswer('Refunds are paid within 7 business days [1].', [REFUNDS]);

      expect(grounding.groundedness).toBe(0);
      expect(grounding.quotedRanges.size).toBe(0);
    });

    it('supports a paraphrase with most of its weighted terms and all its numbers in one window', () => {
      const grounding = groundAnswer(
        'Within 5 business days, refunds are paid [1]. Exchanges after delivery are free for 30 days [1].',
        [REFUNDS],
      );

      expect(grounding.groundedness).toBe(1);
      const ranges = grounding.quotedRanges.get(1) ?? [];
      expect(ranges.map((range) => covered(REFUNDS, range)).join('|')).toContain(
        'Refunds are paid within 5 business days.',
      );
    });

    it('reads "according to the documentation" as pointing at the source, not as a claim', () => {
      const grounding = groundAnswer(
        'According to the documentation, gift cards are never refunded [1].',
        [REFUNDS],
      );

      expect(grounding.groundedness).toBe(1);
    });

    it('does not count a sentence checked against a source it does not cite', () => {
      const grounding = groundAnswer('Express delivery costs 12 euros [1].', [REFUNDS, SHIPPING]);

      expect(grounding.claims).toEqual([
        { text: 'Express delivery costs 12 euros.', sources: [1], supported: false },
      ]);
      expect(grounding.groundedness).toBe(0);
    });

    it('does not count a sentence without a citation, and leaves out one without content terms', () => {
      const grounding = groundAnswer(
        'Here is how it is. Gift cards are never refunded [1]. Refunds are paid within 5 business days.',
        [REFUNDS],
      );

      expect(grounding.claims.map((claim) => [claim.sources, claim.supported])).toEqual([
        [[1], true],
        [[], false],
      ]);
      expect(grounding.groundedness).toBe(0.5);
    });

    it('rounds to three decimals', () => {
      const grounding = groundAnswer(
        'Gift cards are never refunded [1]. Orders ship from Rotterdam [2]. The moon is made of cheese [1].',
        [REFUNDS, SHIPPING],
      );

      expect(grounding.groundedness).toBe(0.667);
    });
  });

  describe('answers without claims', () => {
    it.each([
      ['the honest non-answer', NO_ANSWER_TEXT],
      [
        'the non-answer saying what was searched',
        `${NO_ANSWER_TEXT} I searched for refunds of gift cards.`,
      ],
      ['the non-answer cut short by max_tokens', "I couldn't find anything…"],
      ['an answer of connectives only', 'Here is how.'],
      ['an empty answer', ''],
    ])('scores %s as 1 with no claims', (_, text) => {
      expect(groundAnswer(text, [REFUNDS])).toEqual({
        groundedness: 1,
        claims: [],
        quotedRanges: new Map(),
      });
    });
  });

  describe('cost', () => {
    it('reads the source each claim cites at most once, however long the answer and sources', () => {
      const sentences = Array.from(
        { length: 2_000 },
        (_, index) =>
          `Setting number ${index} controls the ${index % 7}th cache layer of module m${index}.`,
      );
      const sources = Array.from({ length: 5 }, (_, part) => ({
        chunk_text: sentences.slice(part * 400, (part + 1) * 400).join(' '),
      }));
      const claims = 100;
      const answer = Array.from(
        { length: claims },
        (_, index) => `${sentences[index * 20]} [${Math.floor((index * 20) / 400) + 1}]`,
      ).join(' ');
      const longestSource = Math.max(...sources.map((source) => source.chunk_text.length));
      const input = answer.length + sources.reduce((sum, s) => sum + s.chunk_text.length, 0);

      // Work, not time (a loaded machine cannot fail this): a claim compared with every
      // source, or each of its terms searched through the source on its own, examines
      // several times this many characters.
      const { result, examined } = withinScanBudget(claims * longestSource + 10 * input, () =>
        groundAnswer(answer, sources),
      );

      expect(result.groundedness).toBe(1);
      expect(examined).toBeGreaterThan(input);
    });
  });
});
