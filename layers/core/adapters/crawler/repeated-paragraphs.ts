/**
 * Boilerplate indexed once (issue 10 item 2, P124): a paragraph that a page
 * of the same crawl already held (a footer the page did not mark up, a
 * "Contact support at …" block under every article) is dropped from every
 * later page, so it is indexed once, with the first page that has it.
 *
 * - **Identical**: two paragraphs are the same when they are equal after
 *   Unicode NFC, whitespace collapsed and trimmed, and lower case. Only
 *   paragraphs of at least {@link MIN_WORDS} words count: a table row
 *   ("Europe $15 5") or a one-word label repeats legitimately.
 * - **Scope**: one data source's crawl. The crawler reads every page on every
 *   sync, so which page keeps a paragraph is decided anew each time: the
 *   first page of the crawl that holds it. A page's content hash is taken
 *   after the drop, so when the page that kept a paragraph is deleted or
 *   loses it, the next page holding it keeps it in that same sync, its hash
 *   changes and it is indexed again with the paragraph. Nothing is lost, and
 *   no chunk has to know about another.
 * - What is dropped is dropped from the page's stored text, so chunks stay
 *   verbatim slices of it.
 */
import { createHash } from 'node:crypto';
import type { ParsedDocument, ParsedSection } from '../../ports/document.port';

/** Paragraphs shorter than this are never treated as boilerplate. */
export const MIN_WORDS = 4;

const WORDS = new Intl.Segmenter('en', { granularity: 'word' });

export class RepeatedParagraphs {
  /** Digests of the paragraphs kept so far (16 bytes each, whatever the paragraph's size). */
  readonly #seen = new Set<string>();

  /**
   * The document without the paragraphs an earlier page kept; records its
   * own. Sections left without a paragraph are left out.
   */
  keepNew(document: ParsedDocument): ParsedDocument {
    const kept: ParsedSection[] = [];
    const mine: string[] = [];
    let dropped = false;
    for (const section of document.sections) {
      const paragraphs = section.paragraphs.filter((paragraph) => {
        if (!hasWords(paragraph, MIN_WORDS)) return true;
        const key = digest(paragraph);
        if (this.#seen.has(key)) {
          dropped = true;
          return false;
        }
        mine.push(key);
        return true;
      });
      if (paragraphs.length > 0) kept.push({ headingPath: section.headingPath, paragraphs });
    }
    // A page repeating its own paragraph keeps both: only other pages' copies are dropped.
    for (const key of mine) this.#seen.add(key);
    return dropped ? { ...document, sections: kept } : document;
  }
}

function digest(paragraph: string): string {
  const normalized = paragraph.normalize('NFC').replace(/\s+/g, ' ').trim().toLowerCase();
  return createHash('sha256').update(normalized).digest('base64').slice(0, 22);
}

function hasWords(text: string, count: number): boolean {
  let words = 0;
  for (const segment of WORDS.segment(text.length > 2_048 ? text.slice(0, 2_048) : text)) {
    if (segment.isWordLike) words += 1;
    if (words >= count) return true;
  }
  return false;
}
