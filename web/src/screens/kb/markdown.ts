import MarkdownIt from 'markdown-it';

/**
 * An article's Markdown as the console previews it. Raw HTML is shown
 * as text (`html: false`), so an article can never put markup or script in
 * the page; markdown-it's own check refuses `javascript:`, `vbscript:`,
 * `file:` and most `data:` links. Links open in a new tab without the
 * console as opener or referrer, so reading one never leaves the editor.
 * Images are shown as a link to the image, not loaded: the console's CSP
 * loads images from its own origin only (`img-src 'self' data:`), and
 * fetching another site's image would tell it who is reading.
 */
const markdown = new MarkdownIt({ html: false, linkify: true, typographer: false });

markdown.renderer.rules.link_open = (tokens, index, options, _env, self) => {
  const token = tokens[index];
  token?.attrSet('target', '_blank');
  token?.attrSet('rel', 'noopener noreferrer');
  return self.renderToken(tokens, index, options);
};

markdown.renderer.rules.image = (tokens, index, options, env) => {
  const token = tokens[index];
  const source = String(token?.attrGet('src') ?? '');
  const alt = token?.children
    ? markdown.renderer.renderInlineAsText(token.children, options, env)
    : '';
  const label = markdown.utils.escapeHtml(alt ? `Image: ${alt}` : 'Image');
  return `<a href="${markdown.utils.escapeHtml(source)}" target="_blank" rel="noopener noreferrer" class="markdown__image">${label}</a>`;
};

/** The article's content as HTML that is safe to put in the page. */
export function renderMarkdown(source: string): string {
  return markdown.render(source);
}
