import { DocumentTooComplexError } from '../../../../layers/core/adapters/parsing/errors';
import { MAX_HTML_NESTING } from '../../../../layers/core/adapters/parsing/html-nesting';
import {
  extractLinks,
  htmlToDocument,
} from '../../../../layers/core/adapters/parsing/html-to-document';
import { withinScanBudget } from '../../../support/scan-work';

const page = (body: string, head = '<title>Site</title>') =>
  `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;

describe('Function: htmlToDocument', () => {
  describe('title', () => {
    it('takes <title> first', () => {
      // Prepare
      const html = page(
        '<h1>Heading</h1>',
        '<title> Pricing &amp; plans </title><meta property="og:title" content="OG">',
      );

      // Act
      const document = htmlToDocument(html, 'https://example.com/pricing');

      // Assess
      expect(document.title).toBe('Pricing & plans');
      expect(document.url).toBe('https://example.com/pricing');
    });

    it('falls back to og:title, then the first h1, then the URL', () => {
      expect(
        htmlToDocument(page('<h1>H</h1>', '<meta property="og:title" content="From OG">'), null)
          .title,
      ).toBe('From OG');
      expect(
        htmlToDocument(page('<nav><h1>Menu</h1></nav><main><h1>Real</h1></main>', ''), null).title,
      ).toBe('Real');
      expect(
        htmlToDocument(page('<p>x</p>', ''), 'https://example.com/docs/getting%20started').title,
      ).toBe('getting started');
      expect(htmlToDocument(page('<p>x</p>', ''), 'https://example.com/').title).toBe(
        'example.com',
      );
      expect(htmlToDocument(page('<p>x</p>', ''), null, { fallbackTitle: 'report' }).title).toBe(
        'report',
      );
      expect(htmlToDocument(page('<p>x</p>', ''), null).title).toBe('Untitled');
    });

    it('ignores an SVG <title>', () => {
      const html = '<html><body><svg><title>icon</title></svg><h1>Page</h1></body></html>';
      expect(htmlToDocument(html, null).title).toBe('Page');
    });
  });

  describe('main content', () => {
    it('drops navigation, page header and footer, asides, scripts, styles, forms and hidden parts', () => {
      // Prepare
      const html = page(`
        <header><a href="/">Logo</a> Site banner</header>
        <nav><ul><li>Home</li><li>About</li></ul></nav>
        <div role="navigation">Breadcrumbs</div>
        <p>Intro text.</p>
        <script>var tracking = 1;</script>
        <style>p { color: red }</style>
        <noscript>Enable JavaScript</noscript>
        <form action="/search"><input name="q" placeholder="Search"><button>Go</button></form>
        <div hidden>Hidden div</div>
        <div aria-hidden="true">Decoration</div>
        <div style="display: none">Invisible</div>
        <aside>Related links</aside>
        <div id="cookie-banner">We use cookies</div>
        <div class="cc-window x">Accept all</div>
        <div class="cookie-recipe">Bake at 180 degrees.</div>
        <footer>© 2026 Example</footer>
      `);

      // Act
      const document = htmlToDocument(html, null);

      // Assess
      expect(document.sections).toEqual([
        { headingPath: [], paragraphs: ['Intro text.', 'Bake at 180 degrees.'] },
      ]);
    });

    it('prefers <main> to the rest of the body', () => {
      const html = page(
        '<div>Sidebar promo</div><main><p>The content.</p></main><div>More promo</div>',
      );
      expect(htmlToDocument(html, null).sections).toEqual([
        { headingPath: [], paragraphs: ['The content.'] },
      ]);
    });

    it('uses [role=main], else the outermost articles', () => {
      const roleMain = page('<div>Promo</div><div role="main"><p>Role main.</p></div>');
      expect(htmlToDocument(roleMain, null).sections[0]?.paragraphs).toEqual(['Role main.']);

      const articles = page(
        '<div>Promo</div><article><p>First.</p><article><p>Nested.</p></article></article><article><p>Second.</p></article>',
      );
      expect(htmlToDocument(articles, null).sections[0]?.paragraphs).toEqual([
        'First.',
        'Nested.',
        'Second.',
      ]);
    });

    it("keeps an article's own header, which carries its title", () => {
      const html = page(
        '<main><article><header><h1>Release 2.0</h1><p>By Ada</p></header><p>Body.</p></article></main>',
      );
      expect(htmlToDocument(html, null).sections).toEqual([
        { headingPath: ['Release 2.0'], paragraphs: ['By Ada', 'Body.'] },
      ]);
    });

    it('keeps a form that wraps the whole page (ASP.NET WebForms)', () => {
      const html = page(
        '<form id="aspnetForm"><h1>Welcome</h1><p>Page text.</p><input type="hidden" value="x"></form>',
      );
      expect(htmlToDocument(html, null).sections).toEqual([
        { headingPath: ['Welcome'], paragraphs: ['Page text.'] },
      ]);
    });
  });

  describe('sections', () => {
    it('splits by headings and keeps the heading path, outermost first', () => {
      // Prepare
      const html = page(`
        <main>
          <p>Before any heading.</p>
          <h1>Guide</h1>
          <p>Guide intro.</p>
          <h2>Install</h2>
          <p>Run the installer.</p>
          <h3>On Linux</h3>
          <p>Use the package.</p>
          <h2>Configure</h2>
          <p>Edit the file.</p>
          <h1>Reference</h1>
          <h2>API</h2>
          <p>Endpoints.</p>
        </main>
      `);

      // Act
      const { sections } = htmlToDocument(html, null);

      // Assess
      expect(sections).toEqual([
        { headingPath: [], paragraphs: ['Before any heading.'] },
        { headingPath: ['Guide'], paragraphs: ['Guide intro.'] },
        { headingPath: ['Guide', 'Install'], paragraphs: ['Run the installer.'] },
        { headingPath: ['Guide', 'Install', 'On Linux'], paragraphs: ['Use the package.'] },
        { headingPath: ['Guide', 'Configure'], paragraphs: ['Edit the file.'] },
        // "Reference" has no text of its own: it lives on in its subsection's path.
        { headingPath: ['Reference', 'API'], paragraphs: ['Endpoints.'] },
      ]);
    });

    it('handles skipped levels, role=heading and empty headings', () => {
      const html = page(`
        <main>
          <h2>Two</h2><p>a</p>
          <h4>Four</h4><p>b</p>
          <h3>Three</h3><p>c</p>
          <div role="heading" aria-level="2">Aria two</div><p>d</p>
          <h2><a href="#x" aria-hidden="true">#</a></h2><p>e</p>
        </main>
      `);
      expect(htmlToDocument(html, null).sections).toEqual([
        { headingPath: ['Two'], paragraphs: ['a'] },
        { headingPath: ['Two', 'Four'], paragraphs: ['b'] },
        { headingPath: ['Two', 'Three'], paragraphs: ['c'] },
        { headingPath: ['Aria two'], paragraphs: ['d', 'e'] },
      ]);
    });

    it('drops hidden parts of a heading from its text', () => {
      const html = page('<main><h2>Limits <span aria-hidden="true">¶</span></h2><p>x</p></main>');
      expect(htmlToDocument(html, null).sections[0]?.headingPath).toEqual(['Limits']);
    });
  });

  describe('paragraphs', () => {
    it('makes one paragraph per block element and joins inline elements', () => {
      const html = page(`
        <main>
          <p>One <b>bold</b> <a href="/x">link</a>.</p>
          <div>Div text<span>joined</span></div>
          <ul><li>First item</li><li>Second <em>item</em><ul><li>Nested</li></ul></li></ul>
          <blockquote>Quoted</blockquote>
        </main>
      `);
      expect(htmlToDocument(html, null).sections[0]?.paragraphs).toEqual([
        'One bold link.',
        'Div textjoined',
        'First item',
        'Second item',
        'Nested',
        'Quoted',
      ]);
    });

    it('normalises whitespace and decodes entities', () => {
      const html = page(
        '<main><p>  Caf&eacute;&nbsp;&amp;\n\t bar &#8217;s &#x2014; &lt;tag&gt; &quot;q&quot;\u200b  </p></main>',
      );
      expect(htmlToDocument(html, null).sections[0]?.paragraphs).toEqual([
        'Café & bar ’s — <tag> "q"',
      ]);
    });

    it('keeps <br> as a line break and <pre> line by line', () => {
      const html = page(
        '<main><p>Line one<br>Line two<br/><br>Line three</p><pre>\nif (x) {\n  run();   \n}\n</pre></main>',
      );
      expect(htmlToDocument(html, null).sections[0]?.paragraphs).toEqual([
        'Line one\nLine two\nLine three',
        'if (x) {\n  run();\n}',
      ]);
    });

    // Issue 10 (P171): cells joined by a space, no separator the page does not hold.
    it('makes a table row a paragraph with its cells joined', () => {
      const html = page(
        '<main><table><caption>Plans</caption><tr><th>Plan</th><th>Price</th></tr><tr><td>Pro</td><td>$10</td></tr></table></main>',
      );
      expect(htmlToDocument(html, null).sections[0]?.paragraphs).toEqual([
        'Plans',
        'Plan Price',
        'Pro $10',
      ]);
    });

    it('returns no sections for a page without text', () => {
      expect(htmlToDocument(page('<nav>Menu</nav><script>x()</script>'), null).sections).toEqual(
        [],
      );
    });

    it('reads markup nested up to the limit', () => {
      const depth = MAX_HTML_NESTING - 10;
      const html = `${'<div>'.repeat(depth)}<p>Deep</p>${'</div>'.repeat(depth)}`;
      expect(htmlToDocument(html, null).sections[0]?.paragraphs).toEqual(['Deep']);
    });

    it('refuses markup nested deeper than the limit, after one pass over it', () => {
      // Prepare: 1 MiB of unclosed elements, minutes of work for a tree-building parser.
      const html = `<p>x</p>${'<span>'.repeat(200_000)}`;
      const refused = (act: () => unknown) => {
        try {
          // A few looks at each character: the nesting check, not a parse.
          withinScanBudget(8 * html.length, act);
        } catch (error) {
          return error;
        }
        return undefined;
      };

      // Act / Assess
      expect(refused(() => htmlToDocument(html, null))).toBeInstanceOf(DocumentTooComplexError);
      expect(refused(() => extractLinks(html, 'https://example.com/'))).toBeInstanceOf(
        DocumentTooComplexError,
      );
    });
  });
});

describe('Function: extractLinks', () => {
  it('returns absolute http(s) links without fragments, deduplicated, navigation included', () => {
    // Prepare
    const html = page(`
      <nav><a href="/about">About</a></nav>
      <main>
        <a href="guide/intro#setup">Intro</a>
        <a href="guide/intro#other">Intro again</a>
        <a href="https://other.example.org/x">Elsewhere</a>
        <a href="mailto:a@example.com">Mail</a>
        <a href="javascript:void(0)">JS</a>
        <a href="tel:+100">Call</a>
        <a href="//cdn.example.com/page">Protocol-relative</a>
        <a href="#top">Top</a>
        <a href="?page=2">Next</a>
        <a rel="nofollow" href="/login">Login</a>
        <a>No href</a>
        <a href="http://[invalid">Broken</a>
        <map><area href="/area-target"></map>
      </main>
    `);

    // Act
    const links = extractLinks(html, 'https://example.com/docs/index.html');

    // Assess
    expect(links).toEqual([
      'https://example.com/about',
      'https://example.com/docs/guide/intro',
      'https://other.example.org/x',
      'https://cdn.example.com/page',
      'https://example.com/docs/index.html',
      'https://example.com/docs/index.html?page=2',
      'https://example.com/login',
      'https://example.com/area-target',
    ]);
  });

  it('resolves against <base href>', () => {
    const html =
      '<html><head><base href="/v2/"></head><body><a href="start">Start</a><a href="/abs">Abs</a></body></html>';
    expect(extractLinks(html, 'https://example.com/docs/page')).toEqual([
      'https://example.com/v2/start',
      'https://example.com/abs',
    ]);
  });

  it('returns nothing for an invalid base URL', () => {
    expect(extractLinks('<a href="/x">x</a>', 'not a url')).toEqual([]);
  });
});
