import {
  htmlToDocument,
  parseHtmlPage,
} from '../../../../layers/core/adapters/parsing/html-to-document';
import { countSentences, namesChrome } from '../../../../layers/core/adapters/parsing/page-chrome';

/** Chrome as sites write it without `<nav>` or `<footer>`: a masthead of links, a footer div. */
const MASTHEAD =
  '<div id="top"><a href="/">Acme</a> <a href="/refunds">Refunds</a> <a href="/shipping">Shipping</a> <a href="/security">Security</a> <a href="/login">Log in</a></div>';
const FOOTER =
  '<div class="site-footer"><p>© 2026 Acme Inc. All rights reserved.</p><p><a href="/privacy">Privacy</a> · <a href="/terms">Terms</a></p></div>';
const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body>${MASTHEAD}${body}${FOOTER}</body></html>`;
const paragraphsOf = (html: string) =>
  parseHtmlPage(html, 'https://example.com/page').document.sections.map((section) => ({
    path: section.headingPath.join(' > '),
    paragraphs: section.paragraphs,
  }));

/** Issue 10 item 2 (P122, P123): a page's main content, without the chrome it does not mark up. */
describe('Content over chrome (P122, P123)', () => {
  describe('extraction', () => {
    it('keeps a blog article and drops its sidebar widgets, share links and comments', () => {
      const html = page(
        'Why the sky is blue',
        `<div id="wrapper"><div id="main-col"><div class="post"><h1>Why the sky is blue</h1><div class="byline">By Ada, 3 March 2025</div>
        <p>Sunlight is made of many colours, and the air scatters blue light more than red.</p>
        <h2>Why not violet?</h2><p>The sun emits less violet, and our eyes are less sensitive to it.</p>
        <div class="share"><a href="/s/tw">Share on Twitter</a> <a href="/s/fb">Share on Facebook</a></div></div>
        <div class="comments"><h3>3 comments</h3><p>Great post! - Bob</p></div></div>
        <div id="right-col" class="widget-area"><h3>Popular posts</h3><ul><li><a href="/p1">Why is grass green</a></li><li><a href="/p2">Rainbows</a></li></ul></div></div>`,
      );

      expect(paragraphsOf(html)).toEqual([
        {
          path: 'Why the sky is blue',
          paragraphs: [
            'By Ada, 3 March 2025',
            'Sunlight is made of many colours, and the air scatters blue light more than red.',
          ],
        },
        {
          path: 'Why the sky is blue > Why not violet?',
          paragraphs: ['The sun emits less violet, and our eyes are less sensitive to it.'],
        },
      ]);
    });

    it('keeps a docs page with code and a table, without its sidebar and table of contents', () => {
      const html = page(
        'Install',
        `<div class="docs"><div class="sidebar"><ul><li><a href="/a">Intro</a></li><li><a href="/b">Install</a></li></ul></div>
        <div class="doc-content"><div class="toc"><a href="#a">Install</a><a href="#b">Configure</a></div>
        <h1>Install</h1><p>Install the widget with npm:</p><pre><code>npm install widget
npx widget init</code></pre>
        <h2>Configuration</h2><table><tr><th>Option</th><th>Default</th></tr><tr><td>port</td><td>8080</td></tr></table>
        <div class="edit-link"><a href="/edit">Edit this page</a> <a href="/history">History</a></div></div></div>`,
      );

      expect(paragraphsOf(html)).toEqual([
        {
          path: 'Install',
          paragraphs: ['Install the widget with npm:', 'npm install widget\nnpx widget init'],
        },
        { path: 'Install > Configuration', paragraphs: ['Option Default', 'port 8080'] },
      ]);
    });

    it('finds the text of an old table layout without semantic tags, dropping its menu cell', () => {
      const html = page(
        'Opening hours',
        `<table width="100%"><tr><td class="left"><a href="/1">Home</a><br><a href="/2">News</a><br><a href="/3">Contact</a></td><td>
        <b>Opening hours</b><br>The shop is open from 9 to 5 on weekdays.<br>Call 555-0100 to book outside these hours.</td></tr></table>`,
      );

      expect(paragraphsOf(html)).toEqual([
        {
          path: '',
          paragraphs: [
            'Opening hours\nThe shop is open from 9 to 5 on weekdays.\nCall 555-0100 to book outside these hours.',
          ],
        },
      ]);
    });

    it('keeps prose with links in it, a data table of links, and a header that holds the title', () => {
      const html = page(
        'Releases',
        `<div class="header"><h1>Releases</h1></div>
        <p>Read the <a href="/guide">upgrade guide</a> before moving from <a href="/v1">version 1</a> to version 2 of the widget.</p>
        <table><tr><td><a href="/v2">2.0</a></td><td>March</td></tr><tr><td><a href="/v1">1.0</a></td><td>January</td></tr></table>`,
      );

      expect(paragraphsOf(html)).toEqual([
        {
          path: 'Releases',
          paragraphs: [
            'Read the upgrade guide before moving from version 1 to version 2 of the widget.',
            '2.0 March',
            '1.0 January',
          ],
        },
      ]);
    });

    it('keeps every part of HTML that is not a page (DOCX, Markdown, Confluence): no chrome there', () => {
      const html =
        '<h1>References</h1><ul><li><a href="/a">First source</a></li><li><a href="/b">Second source</a></li></ul><div class="sidebar">Kept</div>';

      expect(htmlToDocument(html, null).sections).toEqual([
        { headingPath: ['References'], paragraphs: ['First source', 'Second source', 'Kept'] },
      ]);
      expect(htmlToDocument(html, null, { page: true }).sections).toEqual([]);
    });

    it('tells chrome from content by id and class words', () => {
      const element = (attribs: Record<string, string>) =>
        ({ attribs }) as unknown as Parameters<typeof namesChrome>[0];

      expect(namesChrome(element({ class: 'navbar navbar-expand-lg' }))).toBe(true);
      expect(namesChrome(element({ id: 'sidebar' }))).toBe(true);
      expect(namesChrome(element({ class: 'table-of-contents' }))).toBe(true);
      expect(namesChrome(element({ class: 'site-header' }))).toBe(true);
      expect(namesChrome(element({ class: 'article-header' }))).toBe(false);
      expect(namesChrome(element({ class: 'content' }))).toBe(false);
      expect(namesChrome(element({ class: 'cookie-recipe' }))).toBe(false);
      expect(namesChrome(element({}))).toBe(false);
    });
  });

  describe('link-index pages (P123)', () => {
    it('calls a home page whose body is a list of links a link index', () => {
      const html = page(
        'Acme Help Center',
        '<div class="content"><h1>Acme Help Center</h1><ul><li><a href="/refunds">Refunds</a></li><li><a href="/shipping">Shipping</a></li><li><a href="/security">Security</a></li></ul></div>',
      );

      const { linkIndex, links } = parseHtmlPage(html, 'https://example.com/');

      expect(linkIndex).toMatchObject({ mostlyLinks: true, sentences: 0 });
      expect(linkIndex.linkShare).toBeGreaterThanOrEqual(0.5);
      expect(links).toEqual(
        expect.arrayContaining(['https://example.com/refunds', 'https://example.com/security']),
      );
    });

    it('does not call a one-sentence answer page with a masthead and sidebar a link index', () => {
      const html = page(
        'Refunds',
        `<div class="sidebar"><a href="/a">Getting started</a> <a href="/b">Billing</a> <a href="/c">Refunds</a></div>
        <div class="content"><h1>Refunds</h1><h2>How long do refunds take?</h2><p>Refunds take 5 business days after we receive the item.</p></div>`,
      );

      const { linkIndex, document } = parseHtmlPage(html, 'https://example.com/refunds');

      expect(linkIndex.mostlyLinks).toBe(false);
      expect(document.sections).toEqual([
        {
          headingPath: ['Refunds', 'How long do refunds take?'],
          paragraphs: ['Refunds take 5 business days after we receive the item.'],
        },
      ]);
    });

    it('does not call a page of links with two sentences of prose a link index', () => {
      const html = page(
        'Guides',
        `<main><h1>Guides</h1><p>These guides walk you through the widget step by step. Start with the first one if you are new.</p>
        <ul>${Array.from({ length: 20 }, (_, n) => `<li><a href="/g/${n}">Guide number ${n}</a></li>`).join('')}</ul></main>`,
      );

      const { linkIndex, document } = parseHtmlPage(html, 'https://example.com/guides');

      expect(linkIndex).toMatchObject({ mostlyLinks: false, sentences: 2 });
      expect(linkIndex.linkShare).toBeGreaterThan(0.5);
      expect(document.sections.flatMap((section) => section.paragraphs)).toEqual([
        'These guides walk you through the widget step by step. Start with the first one if you are new.',
      ]);
    });

    it('does not call a page without links a link index', () => {
      expect(parseHtmlPage('<p>Short.</p>', 'https://example.com/').linkIndex.mostlyLinks).toBe(
        false,
      );
    });

    it('counts sentences of four words or more', () => {
      expect(countSentences(['Yes. It takes five days. Call us any time today.'], 4, 10)).toBe(2);
      expect(countSentences(['One two three.'], 4, 10)).toBe(0);
    });
  });
});
