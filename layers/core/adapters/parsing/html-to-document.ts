/**
 * HTML to a {@link ParsedDocument}: the page's title, and its main content as
 * plain text split into sections by headings.
 *
 * Parser: `htmlparser2` (with its `domhandler` tree). It is small (no
 * dependencies beyond its own `dom*` and `entities` packages), fast,
 * forgiving with broken markup, decodes entities, and is maintained by the
 * cheerio team — cheerio itself builds on it. Major 10 is the one cheerio 1.x
 * still ships, and the last with a CommonJS build, which this CommonJS project
 * and its jest setup load without transforming `node_modules`. cheerio was not
 * used: it adds parse5, undici and encoding sniffing for nothing we need here;
 * a DOM emulation (linkedom, jsdom) is heavier still.
 */
import type { AnyNode, Document, Element } from 'domhandler';
import { isTag, isText } from 'domhandler';
import { collapseWhitespace, removeInvisible } from '../../domain/retrieval/verbatim';
import type { ParsedDocument, ParsedSection } from '../../ports/document.port';
import { DocumentTooComplexError } from './errors';
import { MAX_HTML_NESTING, nestsDeeperThan } from './html-nesting';
import { chromeElements, type LinkIndexMeasure, measureLinkIndex } from './page-chrome';

export interface HtmlToDocumentOptions {
  /** The title when the page has none (no `<title>`, `og:title` or `<h1>`). @default derived from `url`, else "Untitled" */
  readonly fallbackTitle?: string;
  /**
   * The HTML is a web page (crawled, or uploaded as an HTML file): chrome
   * that is not marked up as such (a `div.sidebar`, a list of links) is
   * dropped too (page-chrome.ts). Off for HTML generated from DOCX,
   * Markdown or Confluence, where every part is content.
   * @default false
   */
  readonly page?: boolean;
  /**
   * Inline `<code>` keeps the backticks Markdown wrote around it, so an
   * identifier stays recognisable as one in the text (the offline answerer
   * quotes `pip cache dir` as a command, not as three words). Only for HTML
   * rendered from Markdown, where the backticks are the document's own text.
   * @default false
   */
  readonly markInlineCode?: boolean;
}

/**
 * Extracts the title and the main text of an HTML page.
 *
 * - **Title**: `<title>`, else `og:title`, else the first `<h1>`.
 * - **Main content**: `<main>`, else `[role=main]`, else the outermost
 *   `<article>`s, else the whole body. Within it, navigation, page headers
 *   and footers, asides, scripts, styles, `noscript`, templates, embedded
 *   objects, form controls, hidden elements (`hidden`, `aria-hidden="true"`,
 *   inline `display:none`), landmark roles that are not content (banner,
 *   navigation, contentinfo, complementary, search, dialogs) and recognisable
 *   cookie banners are dropped. A `<header>` inside an article, section or
 *   `<main>` is kept: it holds that part's title, and per the HTML standard
 *   it is not the page banner.
 * - **Sections**: every `h1`–`h6` (or `role=heading`) starts a section whose
 *   heading path is the chain of enclosing headings, outermost first.
 *   Sections without text are left out (their heading lives on in their
 *   subsections' paths).
 * - **Paragraphs**: one per block element (`p`, `li`, `div`, `tr`,
 *   `blockquote`, …); whitespace collapsed, `<br>` kept as a line break,
 *   `<pre>` kept line by line, table cells joined with a space. Entities are
 *   decoded by the parser.
 *
 * @throws {DocumentTooComplexError} for markup nested deeper than
 * {@link MAX_HTML_NESTING} (parsing it would take minutes).
 *
 * @example
 * const document = htmlToDocument('<title>Help</title><main><h1>Billing</h1><p>Pay monthly.</p></main>', 'https://example.com/help');
 * // { title: 'Help', url: 'https://example.com/help', sections: [{ headingPath: ['Billing'], paragraphs: ['Pay monthly.'] }] }
 */
export function htmlToDocument(
  html: string,
  url: string | null,
  options: HtmlToDocumentOptions = {},
): ParsedDocument {
  return documentOf(parseGuarded(html), url, options);
}

/**
 * Every link on the page (navigation and footers included, since that is how
 * a site is crawled), as absolute `http(s)` URLs without fragments, first
 * occurrence first. Relative links resolve against `<base href>` if the page
 * has one, else `baseUrl`.
 *
 * `rel="nofollow"` links are returned too: nofollow tells search engines not
 * to pass ranking to the target, it does not forbid fetching it. What may be
 * fetched is robots.txt's to say, and the crawler checks every URL there.
 *
 * @throws {DocumentTooComplexError} as {@link htmlToDocument}.
 *
 * @example
 * extractLinks('<a href="/b#top">b</a>', 'https://example.com/a'); // ['https://example.com/b']
 */
export function extractLinks(html: string, baseUrl: string): string[] {
  return linksOf(parseGuarded(html), baseUrl);
}

/**
 * {@link htmlToDocument} (as a page) and {@link extractLinks} of one page,
 * parsing it once (parsing is most of the cost: about a second for 5 MiB),
 * with how much of it is links (a link index is followed, not indexed).
 *
 * @throws {DocumentTooComplexError} as {@link htmlToDocument}.
 */
export function parseHtmlPage(
  html: string,
  url: string,
): {
  readonly document: ParsedDocument;
  readonly links: string[];
  readonly linkIndex: LinkIndexMeasure;
} {
  const dom = parseGuarded(html);
  const { document, roots } = extract(dom, url, { page: true });
  const linkIndex = measureLinkIndex(
    roots,
    isDropped,
    document.sections.flatMap((section) => section.paragraphs),
  );
  return { document, links: linksOf(dom, url), linkIndex };
}

function documentOf(
  dom: Document,
  url: string | null,
  options: HtmlToDocumentOptions,
): ParsedDocument {
  return extract(dom, url, options).document;
}

function extract(
  dom: Document,
  url: string | null,
  options: HtmlToDocumentOptions,
): { readonly document: ParsedDocument; readonly roots: AnyNode[] } {
  const roots = contentRoots(dom);
  const chrome = options.page === true ? chromeElements(roots, isDropped) : new Set<Element>();
  const dropped =
    chrome.size === 0 ? isDropped : (element: Element) => chrome.has(element) || isDropped(element);
  return {
    document: {
      title: titleOf(dom, roots) ?? options.fallbackTitle ?? titleFromUrl(url) ?? 'Untitled',
      url,
      sections: new SectionBuilder(dropped, options.markInlineCode === true).build(roots),
    },
    roots,
  };
}

function linksOf(dom: Document, baseUrl: string): string[] {
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    return [];
  }
  const baseElement = findFirst(
    dom,
    (element) => element.name === 'base' && 'href' in element.attribs,
  );
  const declaredBase = resolve(baseElement?.attribs.href, base);
  if (declaredBase) base = declaredBase;

  const links = new Set<string>();
  for (const element of elements(dom)) {
    if (element.name !== 'a' && element.name !== 'area') continue;
    const target = resolve(element.attribs.href, base);
    if (!target || (target.protocol !== 'http:' && target.protocol !== 'https:')) continue;
    target.hash = '';
    links.add(target.href);
  }
  return [...links];
}

/**
 * Parses with htmlparser2 after the nesting guard.
 *
 * @throws {DocumentTooComplexError} when elements nest deeper than {@link MAX_HTML_NESTING}.
 */
function parseGuarded(html: string): Document {
  if (nestsDeeperThan(html, MAX_HTML_NESTING)) {
    throw new DocumentTooComplexError(
      `HTML nests elements deeper than ${MAX_HTML_NESTING} levels; no page needs that`,
    );
  }
  return htmlParser().parseDocument(html);
}

let htmlparser2: typeof import('htmlparser2') | undefined;

/**
 * htmlparser2, with the DOM serializer and the entity tables it brings, is
 * read at the first HTML parsed (a page, an HTML, DOCX or Markdown file), not
 * when a worker starts: a message with a PDF or a CSV never loads it. It is
 * shipped beside the worker's `index.js`; synchronous, so that
 * {@link htmlToDocument} stays a plain function for its callers.
 */
export function htmlParser(): typeof import('htmlparser2') {
  htmlparser2 ??= require('htmlparser2') as typeof import('htmlparser2');
  return htmlparser2;
}

/** Elements dropped with everything inside them, wherever they are. */
const DROPPED_ELEMENTS = new Set([
  'aside',
  'audio',
  'button',
  'canvas',
  'datalist',
  'dialog',
  'embed',
  'footer',
  'head',
  'iframe',
  'input',
  'link',
  'map',
  'math',
  'meta',
  'nav',
  'noscript',
  'object',
  'option',
  'script',
  'select',
  'style',
  'svg',
  'template',
  'textarea',
  'video',
]);

/** ARIA landmark and widget roles that are never the page's content. */
const DROPPED_ROLES = new Set([
  'alertdialog',
  'banner',
  'complementary',
  'contentinfo',
  'dialog',
  'menu',
  'menubar',
  'navigation',
  'search',
  'toolbar',
  'tooltip',
]);

/**
 * Sectioning elements in which `<header>` is that section's header rather
 * than the page banner (HTML standard, the `banner` role's scoping rule).
 */
const SECTIONING = new Set(['article', 'aside', 'main', 'nav', 'section']);

/** Elements whose text is a paragraph of its own. */
const BLOCK_ELEMENTS = new Set([
  'address',
  'article',
  'blockquote',
  'body',
  'caption',
  'dd',
  'details',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'form',
  'header',
  'hr',
  'html',
  'legend',
  'li',
  'main',
  'ol',
  'p',
  'section',
  'summary',
  'table',
  'tbody',
  'tfoot',
  'thead',
  'tr',
  'ul',
]);

const HEADING = /^h([1-6])$/;

/**
 * Ids and classes of consent and cookie banners (common hand-written names
 * and the big consent-management platforms). Deliberately specific: a class
 * like `cookie-recipe` must not drop a recipe.
 */
const COOKIE_BANNER =
  /^(?:cookie[-_]?(?:banner|bar|consent|law|notice|notification|popup|message|policy[-_]?banner)|cookieconsent|cc[-_](?:banner|window)|consent[-_]?(?:banner|manager|popup|dialog)|gdpr[-_]?(?:banner|consent|notice)|onetrust[-_\w]*|cybotcookiebot\w*|cookiebot\w*)$/i;

const HIDDEN_STYLE =
  /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important\s*)?(?:;|$)/i;

function isDropped(element: Element): boolean {
  const { name, attribs } = element;
  if (DROPPED_ELEMENTS.has(name)) return true;
  if (name === 'header' && !hasAncestor(element, SECTIONING)) return true;
  // A form is dropped unless it wraps the content itself (ASP.NET WebForms wrap whole pages in one).
  if (
    name === 'form' &&
    !findFirst(element, (inner) => HEADING.test(inner.name) || inner.name === 'main')
  ) {
    return true;
  }
  if ('hidden' in attribs || attribs['aria-hidden'] === 'true') return true;
  if (attribs.role && DROPPED_ROLES.has(attribs.role.trim().toLowerCase())) return true;
  if (attribs.style && HIDDEN_STYLE.test(attribs.style)) return true;
  if (attribs.id === undefined && attribs.class === undefined) return false;
  const tokens = `${attribs.id ?? ''} ${attribs.class ?? ''}`.split(/\s+/);
  return tokens.some((token) => token !== '' && COOKIE_BANNER.test(token));
}

/** `<main>`, else `[role=main]`, else the outermost articles, else the body, else the document. */
function contentRoots(dom: Document): AnyNode[] {
  const visible = (element: Element) => !isDropped(element);
  const mains = findAll(dom, (element) => element.name === 'main' && visible(element));
  if (mains.length > 0) return outermost(mains);
  const roleMains = findAll(dom, (element) => element.attribs.role === 'main' && visible(element));
  if (roleMains.length > 0) return outermost(roleMains);
  const articles = findAll(dom, (element) => element.name === 'article' && visible(element));
  if (articles.length > 0) return outermost(articles);
  const body = findFirst(dom, (element) => element.name === 'body');
  return [body ?? dom];
}

function titleOf(dom: Document, roots: readonly AnyNode[]): string | undefined {
  const title = findFirst(
    dom,
    (element) => element.name === 'title' && !hasAncestor(element, new Set(['svg'])),
  );
  const fromTitle = title ? normaliseInline(textOf(title)) : '';
  if (fromTitle !== '') return fromTitle;
  const ogTitle = findFirst(
    dom,
    (element) => element.name === 'meta' && element.attribs.property?.toLowerCase() === 'og:title',
  );
  const fromOg = normaliseInline(ogTitle?.attribs.content ?? '');
  if (fromOg !== '') return fromOg;
  for (const scope of [...roots, dom]) {
    const h1 = findFirst(scope, (element) => element.name === 'h1' && !isDropped(element));
    const fromH1 = h1 ? normaliseInline(textOf(h1)) : '';
    if (fromH1 !== '') return fromH1;
  }
  return undefined;
}

/** The last path segment, decoded (`/docs/getting-started` → `getting-started`), else the host. */
function titleFromUrl(url: string | null): string | undefined {
  if (url === null || !URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  const segment = parsed.pathname.split('/').filter(Boolean).at(-1);
  if (segment) {
    try {
      return decodeURIComponent(segment);
    } catch {
      return segment;
    }
  }
  return parsed.hostname || undefined;
}

type HeadingLevel = { readonly level: number; readonly text: string };

/**
 * Walks the content in document order, iteratively (a hostile page can nest
 * elements deeper than the call stack), collecting paragraphs into sections.
 */
class SectionBuilder {
  readonly #isDropped: (element: Element) => boolean;
  readonly #sections: { headingPath: string[]; paragraphs: string[] }[] = [];
  #headings: HeadingLevel[] = [];
  #current: { headingPath: string[]; paragraphs: string[] } = { headingPath: [], paragraphs: [] };
  #buffer = '';
  /** Whether the buffer holds a table cell already (the next one is joined with ` | `). */
  #cellsInRow = 0;

  readonly #markInlineCode: boolean;

  constructor(isDroppedElement: (element: Element) => boolean, markInlineCode: boolean) {
    this.#isDropped = isDroppedElement;
    this.#markInlineCode = markInlineCode;
  }

  build(roots: readonly AnyNode[]): ParsedSection[] {
    this.#sections.push(this.#current);
    for (const root of roots) this.#walk(root);
    this.#flush();
    return this.#sections.filter((section) => section.paragraphs.length > 0);
  }

  #walk(root: AnyNode): void {
    type Step = { readonly node: AnyNode; readonly leaving: boolean };
    const stack: Step[] = [{ node: root, leaving: false }];
    while (stack.length > 0) {
      const step = stack.pop();
      if (!step) break;
      const { node, leaving } = step;
      if (leaving) {
        this.#flush();
        if (isTag(node) && node.name === 'tr') this.#cellsInRow = 0;
        continue;
      }
      if (isText(node)) {
        this.#buffer += collapse(node.data);
        continue;
      }
      if (!('children' in node)) continue; // comments, directives
      if (isTag(node)) {
        if (this.#isDropped(node)) continue;
        const level = headingLevel(node);
        if (level !== undefined) {
          this.#heading(level, normaliseInline(textOf(node, false, this.#isDropped)));
          continue;
        }
        if (node.name === 'br') {
          this.#buffer += '\n';
          continue;
        }
        if (node.name === 'code' && this.#markInlineCode) {
          const code = normaliseInline(textOf(node, false, this.#isDropped));
          if (code !== '') this.#buffer += `\`${code}\``;
          continue;
        }
        if (node.name === 'pre') {
          this.#flush();
          this.#paragraph(preformatted(textOf(node, true, this.#isDropped)));
          continue;
        }
        if (node.name === 'td' || node.name === 'th') {
          // A space, as the page shows cells: no separator the document does not hold (issue 10, verbatim).
          if (this.#cellsInRow > 0) this.#buffer += ' ';
          this.#cellsInRow += 1;
        }
        if (BLOCK_ELEMENTS.has(node.name)) {
          this.#flush();
          if (node.name === 'tr') this.#cellsInRow = 0;
          stack.push({ node, leaving: true });
        }
      }
      for (let index = node.children.length - 1; index >= 0; index -= 1) {
        const child = node.children[index];
        if (child) stack.push({ node: child, leaving: false });
      }
    }
  }

  #heading(level: number, text: string): void {
    if (text === '') return; // an empty heading (an icon, an anchor) does not start a section
    this.#flush();
    while ((this.#headings.at(-1)?.level ?? 0) >= level) this.#headings.pop();
    this.#headings.push({ level, text });
    this.#current = { headingPath: this.#headings.map((heading) => heading.text), paragraphs: [] };
    this.#sections.push(this.#current);
  }

  #flush(): void {
    const text = this.#buffer
      .split('\n')
      .map(normaliseInline)
      .filter((line) => line !== '')
      .join('\n');
    this.#buffer = '';
    this.#paragraph(text);
  }

  #paragraph(text: string): void {
    if (text !== '') this.#current.paragraphs.push(text);
  }
}

function headingLevel(element: Element): number | undefined {
  const match = HEADING.exec(element.name);
  if (match?.[1]) return Number(match[1]);
  if (element.attribs.role === 'heading') {
    const level = Number(element.attribs['aria-level'] ?? '2');
    return Number.isInteger(level) && level >= 1 && level <= 6 ? level : 2;
  }
  return undefined;
}

/**
 * The text inside `node`, skipping dropped elements (e.g. a heading's hidden
 * anchor icon). `<br>` is a line break when `keepLines`, else a space.
 */
function textOf(
  node: AnyNode,
  keepLines = false,
  dropped: (element: Element) => boolean = isDropped,
): string {
  let text = '';
  const stack: AnyNode[] = [node];
  while (stack.length > 0) {
    const current = stack.pop();
    if (!current) break;
    if (isText(current)) {
      text += keepLines ? current.data : collapse(current.data);
      continue;
    }
    if (!('children' in current)) continue;
    if (isTag(current) && current !== node) {
      if (dropped(current)) continue;
      if (current.name === 'br') {
        text += keepLines ? '\n' : ' ';
        continue;
      }
    }
    for (let index = current.children.length - 1; index >= 0; index -= 1) {
      const child = current.children[index];
      if (child) stack.push(child);
    }
  }
  return text;
}

/** Whitespace (including no-break spaces) to one space; invisible characters removed (domain/retrieval/verbatim.ts). */
function collapse(text: string): string {
  return collapseWhitespace(text);
}

function normaliseInline(text: string): string {
  return collapse(text).trim();
}

/** `<pre>` text: lines kept, trailing spaces and surrounding blank lines removed. */
function preformatted(text: string): string {
  const lines = removeInvisible(text)
    .split(/\r?\n/)
    .map((line) => line.replace(/\s+$/, ''));
  while (lines[0] === '') lines.shift();
  while (lines.at(-1) === '') lines.pop();
  return lines.join('\n');
}

function resolve(href: string | undefined, base: URL): URL | undefined {
  if (href === undefined) return undefined;
  try {
    return new URL(href.trim(), base);
  } catch {
    return undefined;
  }
}

function hasAncestor(element: Element, names: ReadonlySet<string>): boolean {
  for (let parent = element.parent; parent; parent = parent.parent) {
    if (isTag(parent) && names.has(parent.name)) return true;
  }
  return false;
}

/** Every element under `root` (not `root` itself), in document order. */
function* elements(root: AnyNode): Generator<Element> {
  const stack: AnyNode[] = 'children' in root ? [...root.children].reverse() : [];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!node) break;
    if (isTag(node)) yield node;
    if ('children' in node) {
      for (let index = node.children.length - 1; index >= 0; index -= 1) {
        const child = node.children[index];
        if (child) stack.push(child);
      }
    }
  }
}

function findFirst(root: AnyNode, test: (element: Element) => boolean): Element | undefined {
  for (const element of elements(root)) if (test(element)) return element;
  return undefined;
}

function findAll(root: AnyNode, test: (element: Element) => boolean): Element[] {
  return [...elements(root)].filter(test);
}

/** The matches that are not inside another match (nested articles belong to their outer one). */
function outermost(matches: readonly Element[]): Element[] {
  const set = new Set<AnyNode>(matches);
  return matches.filter((element) => {
    for (let parent = element.parent; parent; parent = parent.parent) {
      if (set.has(parent)) return false;
    }
    return true;
  });
}
