import MarkdownIt, { type MarkdownIt as Markdown, type StateCore, type Token } from 'markdown-it';

/**
 * Markdown as the console shows it: a knowledge-base article, and an
 * agent's answer. Raw HTML is shown as text (`html: false`), so neither can
 * ever put markup or script in the page; markdown-it's own check refuses
 * `javascript:`, `vbscript:`, `file:` and most `data:` links. Links open in
 * a new tab without the console as opener or referrer, so following one
 * never leaves the page. Images are shown as a link to the image, not
 * loaded: the console's CSP loads images from its own origin only
 * (`img-src 'self' data:`), and fetching another site's image would tell it
 * who is reading.
 */
function safeMarkdown(): Markdown {
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
  return markdown;
}

const articles = safeMarkdown();

/** An article's content as HTML that is safe to put in the page. */
export function renderMarkdown(source: string): string {
  return articles.render(source);
}

/** What an answer's rendering needs to know: how many sources its `[n]` may name. */
type AnswerEnv = { readonly sourceCount: number };

const CITATION = /\[(\d{1,3})\]/g;

/**
 * An answer's `[n]` citations as buttons: in running text only (a `[1]` in
 * code is code), and only a number that names one of its sources (`[0]` or
 * a number past the list stays text). The button carries its number for
 * the page to open the source with; it is built here, from a number, so
 * nothing of the answer's own text becomes markup.
 */
const answers = safeMarkdown();
answers.core.ruler.push('citations', (state: StateCore) => {
  const sourceCount = Number(state.env.sourceCount ?? 0);
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    block.children = block.children.flatMap((token: Token) => {
      if (token.type !== 'text') return [token];
      const pieces: Token[] = [];
      let last = 0;
      for (const match of token.content.matchAll(CITATION)) {
        const number = Number(match[1]);
        if (number < 1 || number > sourceCount) continue;
        if (match.index > last) {
          const text = new state.Token('text', '', 0);
          text.content = token.content.slice(last, match.index);
          pieces.push(text);
        }
        const citation = new state.Token('citation', '', 0);
        citation.meta = { number };
        pieces.push(citation);
        last = match.index + match[0].length;
      }
      if (pieces.length === 0) return [token];
      if (last < token.content.length) {
        const text = new state.Token('text', '', 0);
        text.content = token.content.slice(last);
        pieces.push(text);
      }
      return pieces;
    });
  }
});
answers.renderer.rules.citation = (tokens: Token[], index: number) => {
  const number = Number(tokens[index]?.meta?.number);
  return `<button type="button" class="citation" data-citation="${number}" aria-haspopup="dialog">[${number}]</button>`;
};

/** An answer as safe HTML, each `[n]` naming one of its `sourceCount` sources a button. */
export function renderAnswerMarkdown(source: string, sourceCount: number): string {
  const env: AnswerEnv = { sourceCount };
  return answers.render(source, env);
}
