import { RepeatedParagraphs } from '../../../../layers/core/adapters/crawler/repeated-paragraphs';
import type { ParsedDocument } from '../../../../layers/core/ports/document.port';

const HELPFUL = 'Was this article helpful? Write to our support team.';
const doc = (title: string, sections: ParsedDocument['sections']): ParsedDocument => ({
  title,
  url: `https://example.com/${title}`,
  sections,
});

/** P124: a paragraph an earlier page of the crawl held is indexed once, with that page. */
describe('Class: RepeatedParagraphs (P124)', () => {
  it('keeps a paragraph on the first page that has it and drops it from later ones', () => {
    const repeated = new RepeatedParagraphs();
    const first = doc('a', [
      { headingPath: ['A'], paragraphs: ['Alpha text of page a.', HELPFUL] },
    ]);
    const second = doc('b', [
      { headingPath: ['B'], paragraphs: ['Beta text of page b.'] },
      { headingPath: ['B', 'Feedback'], paragraphs: [`  ${HELPFUL.toUpperCase()}\n`] },
    ]);

    expect(repeated.keepNew(first)).toBe(first);
    expect(repeated.keepNew(second)).toEqual(
      doc('b', [{ headingPath: ['B'], paragraphs: ['Beta text of page b.'] }]),
    );
  });

  it('keeps short paragraphs (a table row, a label) and a page repeating its own paragraph', () => {
    const repeated = new RepeatedParagraphs();
    const table = doc('a', [{ headingPath: [], paragraphs: ['Europe $15 5', HELPFUL, HELPFUL] }]);
    const again = doc('b', [{ headingPath: [], paragraphs: ['Europe $15 5', 'Yes.'] }]);

    expect(repeated.keepNew(table)).toBe(table);
    expect(repeated.keepNew(again)).toBe(again);
  });

  it('decides anew on every crawl: when the page that kept it is gone, the next one keeps it', () => {
    const pageA = doc('a', [{ headingPath: [], paragraphs: ['Only on a, long enough.', HELPFUL] }]);
    const pageB = doc('b', [{ headingPath: [], paragraphs: ['Only on b, long enough.', HELPFUL] }]);
    const firstCrawl = new RepeatedParagraphs();
    firstCrawl.keepNew(pageA);
    expect(firstCrawl.keepNew(pageB).sections[0]?.paragraphs).toEqual(['Only on b, long enough.']);

    const secondCrawl = new RepeatedParagraphs(); // page a was deleted
    expect(secondCrawl.keepNew(pageB)).toBe(pageB);
  });
});
