/**
 * Content over chrome (issue 10 item 2, P122): what of a web page is
 * navigation, site header and footer, sidebars and link lists, when the page
 * does not say so with `<nav>`, `<footer>` or ARIA roles (those are dropped
 * by html-to-document.ts already), and whether the whole page is a link
 * index rather than an answer.
 *
 * A hand-written density heuristic over htmlparser2's tree rather than
 * Mozilla's Readability on a DOM emulation (P122): measured on the unit
 * fixtures, Readability (0.6 on linkedom 0.18) kept a docs site's table of
 * contents and "Edit this page" link, returned the site footer as a link
 * list's "article", dropped every page's `<h1>`, added 480 KB minified to the
 * worker (linkedom's CSS parser alone is 200 KB) with 0.8 s to load, and
 * parsed a page 5 to 10 times slower than htmlparser2 alone.
 *
 * Two rules, both applied only to pages (crawled or uploaded HTML), never to
 * HTML we generate from DOCX, Markdown or Confluence, whose every part is
 * content:
 *
 * - **By name**: an element whose `id` or `class` words name chrome
 *   (`sidebar`, `navbar`, `footer`, `breadcrumbs`, `toc`, `share`, …) is
 *   dropped, unless it holds half or more of the page's text or the page's
 *   first `<h1>` (a `div.sidebar-layout` around the whole article).
 * - **By link density**: a block (`ul`, `ol`, `div`, `p`, `td`, …) with at
 *   least {@link LINK_BLOCK.minLinks} links, whose link text is at least
 *   {@link LINK_BLOCK.minLinkShare} of its text, and with fewer than
 *   {@link LINK_BLOCK.maxOtherChars} characters of other text outside
 *   headings, is a link list: dropped. A paragraph of prose with links in it
 *   is kept.
 */
import type { AnyNode, Element } from 'domhandler';
import { isTag, isText } from 'domhandler';
import { collapseWhitespace } from '../../domain/retrieval/verbatim';

/** Words of an `id` or `class` that always name chrome. */
const CHROME_WORDS = new Set([
  'breadcrumb',
  'breadcrumbs',
  'footer',
  'menu',
  'menubar',
  'nav',
  'navbar',
  'navigation',
  'pagination',
  'pager',
  'share',
  'sharing',
  'sidebar',
  'sidenav',
  'skiplink',
  'social',
  'toc',
  'topbar',
]);

/** Words that name chrome unless a content word stands beside them (`article-header` is content). */
const WEAK_CHROME_WORDS = new Set([
  'ad',
  'ads',
  'advert',
  'advertisement',
  'banner',
  'comment',
  'comments',
  'header',
  'masthead',
  'newsletter',
  'promo',
  'related',
  'sponsor',
  'sponsored',
  'subscribe',
  'widget',
  'widgets',
]);

/** Whole tokens that name chrome (screen-reader-only skip links, tables of contents). */
const CHROME_TOKENS = new Set([
  'screen-reader-text',
  'skip-link',
  'skip-to-content',
  'sr-only',
  'table-of-contents',
  'visually-hidden',
]);

const CONTENT_WORDS = new Set(['article', 'body', 'content', 'entry', 'main', 'post', 'story']);

/** The link-list rule's thresholds (P122). */
export const LINK_BLOCK = {
  minLinks: 2,
  minLinkShare: 0.5,
  /** Text outside links and headings below this is a label or separators, not prose. */
  maxOtherChars: 40,
} as const;

/** Blocks the link-list rule looks at; tables and rows are not (a data table of links is content). */
const LINK_BLOCK_ELEMENTS = new Set([
  'dd',
  'div',
  'dl',
  'header',
  'li',
  'menu',
  'ol',
  'p',
  'section',
  'td',
  'th',
  'ul',
]);

/** "Mostly links": the measure and its thresholds. */
export const LINK_INDEX = {
  /** Link text at least this share of the content area's visible text… */
  minLinkShare: 0.5,
  /** …and fewer than this many sentences of prose left once link lists are dropped. */
  maxSentences: 2,
  /** A sentence counts when it has at least this many words. */
  minSentenceWords: 4,
} as const;

const HEADING = /^h[1-6]$/;

/** Text measures of one element (dropped elements excluded). */
interface TextMeasure {
  /** Characters of collapsed text. */
  text: number;
  /** Of which inside links. */
  link: number;
  /** Of which outside links and headings. */
  other: number;
  links: number;
}

/**
 * Measures every element under `roots` (iterative: a hostile page nests
 * deeper than the call stack), skipping what `isDropped` drops. The map is in
 * document order.
 */
export function measureText(
  roots: readonly AnyNode[],
  isDropped: (element: Element) => boolean,
): Map<Element, TextMeasure> {
  type Step = { readonly node: AnyNode; readonly inLink: boolean; readonly inHeading: boolean };
  const order: Element[] = [];
  const stack: Step[] = roots.map((node) => ({ node, inLink: false, inHeading: false }));
  const textOf = new Map<Element, TextMeasure>();
  const parentMeasure = (node: AnyNode) => {
    const parent = node.parent;
    return parent && isTag(parent) ? textOf.get(parent) : undefined;
  };
  while (stack.length > 0) {
    const step = stack.pop();
    if (!step) break;
    const { node } = step;
    if (isText(node)) {
      const length = collapseWhitespace(node.data).trim().length;
      const own = parentMeasure(node);
      if (own && length > 0) {
        own.text += length;
        if (step.inLink) own.link += length;
        else if (!step.inHeading) own.other += length;
      }
      continue;
    }
    if (!('children' in node)) continue;
    let { inLink, inHeading } = step;
    if (isTag(node)) {
      if (isDropped(node)) continue;
      const measure = { text: 0, link: 0, other: 0, links: 0 };
      textOf.set(node, measure);
      order.push(node);
      if (node.name === 'a' && node.attribs.href !== undefined) {
        measure.links += 1;
        inLink = true;
      }
      if (HEADING.test(node.name)) inHeading = true;
    }
    for (let index = node.children.length - 1; index >= 0; index -= 1) {
      const child = node.children[index];
      if (child) stack.push({ node: child, inLink, inHeading });
    }
  }
  // Children were pushed after their parents: summing in reverse adds each into its parent once complete.
  for (let index = order.length - 1; index >= 0; index -= 1) {
    const element = order[index] as Element;
    const measure = textOf.get(element) as TextMeasure;
    const parent = parentMeasure(element);
    if (parent) {
      parent.text += measure.text;
      parent.link += measure.link;
      parent.other += measure.other;
      parent.links += measure.links;
    }
  }
  return textOf;
}

/** Whether the element's `id` or `class` names chrome. */
export function namesChrome(element: Element): boolean {
  const { id, class: className } = element.attribs;
  if (id === undefined && className === undefined) return false;
  let weak = false;
  let content = false;
  for (const token of `${id ?? ''} ${className ?? ''}`.toLowerCase().split(/\s+/)) {
    if (token === '') continue;
    if (CHROME_TOKENS.has(token)) return true;
    for (const word of token.split(/[-_]+/)) {
      if (CHROME_WORDS.has(word)) return true;
      if (WEAK_CHROME_WORDS.has(word)) weak = true;
      if (CONTENT_WORDS.has(word)) content = true;
    }
  }
  return weak && !content;
}

/**
 * The elements under `roots` that are chrome by name or link lists by
 * density, outermost only (what is inside a dropped element goes with it).
 */
export function chromeElements(
  roots: readonly AnyNode[],
  isDropped: (element: Element) => boolean,
): Set<Element> {
  const measures = measureText(roots, isDropped);
  const pageText = roots.reduce(
    (sum, root) => sum + (isTag(root) ? (measures.get(root)?.text ?? 0) : 0),
    0,
  );
  const firstH1 = [...measures.keys()].find((element) => element.name === 'h1');
  const dropped = new Set<Element>();
  /** Elements inside a dropped one: measures are in document order, so a parent is decided first. */
  const covered = new Set<AnyNode>();
  for (const [element, measure] of measures) {
    const parent = element.parent;
    if (parent && (covered.has(parent) || (isTag(parent) && dropped.has(parent)))) {
      covered.add(element);
      continue;
    }
    if (roots.includes(element)) continue;
    if (isChromeByName(element, measure, pageText, firstH1) || isLinkList(element, measure)) {
      dropped.add(element);
    }
  }
  return dropped;
}

function isChromeByName(
  element: Element,
  measure: TextMeasure,
  pageText: number,
  firstH1: Element | undefined,
): boolean {
  if (!namesChrome(element)) return false;
  if (pageText > 0 && measure.text * 2 >= pageText) return false;
  return firstH1 === undefined || !contains(element, firstH1);
}

function isLinkList(element: Element, measure: TextMeasure): boolean {
  return (
    LINK_BLOCK_ELEMENTS.has(element.name) &&
    measure.links >= LINK_BLOCK.minLinks &&
    measure.link >= LINK_BLOCK.minLinkShare * measure.text &&
    measure.other < LINK_BLOCK.maxOtherChars
  );
}

/** How much of a page is links, with the figures the decision rests on. */
export interface LinkIndexMeasure {
  /** Link text over visible text in the content area, chrome by element, role and name dropped. */
  readonly linkShare: number;
  readonly links: number;
  /** Sentences of at least {@link LINK_INDEX.minSentenceWords} words in the extracted text. */
  readonly sentences: number;
  /** The page is a link index: followed, not indexed. */
  readonly mostlyLinks: boolean;
}

const SENTENCES = new Intl.Segmenter('en', { granularity: 'sentence' });
const WORDS = new Intl.Segmenter('en', { granularity: 'word' });

/** Sentences of at least `minWords` words in `paragraphs`, counting no further than `enough`. */
export function countSentences(
  paragraphs: readonly string[],
  minWords: number,
  enough: number,
): number {
  let count = 0;
  for (const paragraph of paragraphs) {
    for (const { segment } of SENTENCES.segment(paragraph.slice(0, 4_096))) {
      let words = 0;
      for (const word of WORDS.segment(segment)) {
        if (word.isWordLike) words += 1;
        if (words >= minWords) break;
      }
      if (words >= minWords) count += 1;
      if (count >= enough) return count;
    }
  }
  return count;
}

/**
 * Whether a page is mostly links: its link text is at least half of
 * the visible text of its content area (after chrome by element, role and
 * name is dropped, before link lists are), and its extracted text holds
 * fewer than two sentences of four or more words.
 */
export function measureLinkIndex(
  roots: readonly AnyNode[],
  isDropped: (element: Element) => boolean,
  extractedParagraphs: readonly string[],
): LinkIndexMeasure {
  const measures = measureText(roots, (element) => isDropped(element) || namesChrome(element));
  let text = 0;
  let link = 0;
  let links = 0;
  for (const root of roots) {
    const measure = isTag(root) ? measures.get(root) : undefined;
    if (!measure) continue;
    text += measure.text;
    link += measure.link;
    links += measure.links;
  }
  const linkShare = text > 0 ? link / text : 0;
  const sentences = countSentences(
    extractedParagraphs,
    LINK_INDEX.minSentenceWords,
    LINK_INDEX.maxSentences,
  );
  return {
    linkShare,
    links,
    sentences,
    mostlyLinks:
      links > 0 && linkShare >= LINK_INDEX.minLinkShare && sentences < LINK_INDEX.maxSentences,
  };
}

function contains(ancestor: Element, node: AnyNode): boolean {
  for (let current: AnyNode | null = node; current; current = current.parent) {
    if (current === ancestor) return true;
  }
  return false;
}
