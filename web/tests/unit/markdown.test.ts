import { renderAnswerMarkdown, renderMarkdown } from '../../src/format/markdown';

const button = (n: number) =>
  `<button type="button" class="citation" data-citation="${n}" aria-haspopup="dialog">[${n}]</button>`;

describe("An answer's Markdown (format/markdown.ts)", () => {
  it('renders lists, emphasis and code as Markdown', () => {
    expect(renderAnswerMarkdown('1. **Fill** it\n2. Run `descale`', 0)).toBe(
      '<ol>\n<li><strong>Fill</strong> it</li>\n<li>Run <code>descale</code></li>\n</ol>\n',
    );
  });

  it('makes each [n] that names a source a button, in running text only', () => {
    expect(renderAnswerMarkdown('Two years [1], claims [2].\n\n`code [1]`', 2)).toBe(
      `<p>Two years ${button(1)}, claims ${button(2)}.</p>\n<p><code>code [1]</code></p>\n`,
    );
  });

  it('leaves [0] and a number past the sources as text', () => {
    expect(renderAnswerMarkdown('See [0] and [3] but [2].', 2)).toBe(
      `<p>See [0] and [3] but ${button(2)}.</p>\n`,
    );
  });

  it('shows raw HTML as text and refuses script links', () => {
    const html = renderAnswerMarkdown(
      '<img src=x onerror=alert(1)> <b>[1]</b>\n\n[run](javascript:alert(1))',
      1,
    );

    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>');
    expect(html).toContain('&lt;b&gt;');
    expect(html).not.toContain('href');
  });

  it("keeps the knowledge base's rendering free of citation buttons", () => {
    expect(renderMarkdown('Cited [1].')).toBe('<p>Cited [1].</p>\n');
  });
});
