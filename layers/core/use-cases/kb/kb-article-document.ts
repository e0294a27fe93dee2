import { type KbArticle, kbVersionPath } from '../../domain/kb-article';
import type { ParsedDocument } from '../../ports/document.port';
import type { FileParser } from '../../ports/file-parser.port';

/**
 * A published article as the document the index keeps: its Markdown read by
 * the same parser as an uploaded `.md` file (so it is chunked by headings
 * like every document), titled with the article's own title, and addressed
 * at the version it was indexed from (what a citation points at).
 * `null` when the parser refuses the text (the reason is given).
 */
export async function kbArticleDocument(
  parser: FileParser,
  article: Pick<KbArticle, 'id' | 'version' | 'title' | 'content'>,
): Promise<{ readonly document: ParsedDocument } | { readonly refused: string }> {
  const parsed = await parser.parse(
    Buffer.from(article.content, 'utf8'),
    `${article.id}.md`,
    'text/markdown',
  );
  if (!parsed.ok) return { refused: parsed.reason };
  return {
    document: {
      ...parsed.document,
      title: article.title,
      url: kbVersionPath(article.id, article.version),
    },
  };
}
