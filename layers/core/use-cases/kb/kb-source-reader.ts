import type { DataSource } from '../../domain/data-source';
import { kbContentHash } from '../../domain/kb-article';
import type { FileParser } from '../../ports/file-parser.port';
import type { KbArticleRepository } from '../../ports/kb-article-repository.port';
import type { SourceItem, SourceReader } from '../../ports/source-reader.port';
import { kbArticleDocument } from './kb-article-document';

/**
 * The built-in `kb` data source read for a sync: every published
 * article at its current version, keyed by the article's id so its document
 * id is the one publishing uses. Drafts are not read, so a sync removes
 * whatever of them might be left in the index (the sync deletes documents
 * it did not see); unchanged articles hash as before and are not
 * re-embedded. What a sync is for here is repair (an embedder change, a
 * lost message), publishing indexes without one.
 */
export class KbSourceReader implements SourceReader {
  constructor(
    private readonly orgId: string,
    private readonly articles: Pick<KbArticleRepository, 'list' | 'get'>,
    private readonly parser: FileParser,
  ) {}

  async *read(_source: DataSource, signal: AbortSignal): AsyncIterable<SourceItem> {
    const published = await this.articles.list(this.orgId, { status: 'published' });
    for (const summary of published) {
      if (signal.aborted) return;
      const article = await this.articles.get(this.orgId, summary.id);
      if (article?.status !== 'published') continue;
      const read = await kbArticleDocument(this.parser, article);
      yield 'document' in read
        ? {
            status: 'ok',
            key: article.id,
            document: read.document,
            contentHash: kbContentHash(article),
          }
        : { status: 'skipped', key: article.id, reason: 'unreadable', detail: read.refused };
    }
  }

  expectedTotal(): number | null {
    return null;
  }
}
