import type { DataSource } from '../../domain/data-source';
import { type KbArticle, kbContentHash } from '../../domain/kb-article';
import type { Clock } from '../../ports/clock.port';
import type { DataSourceRepository } from '../../ports/data-source-repository.port';
import { type DocumentChunker, DocumentRefusedError } from '../../ports/document-chunker.port';
import type { Embedder } from '../../ports/embedder.port';
import type { FileParser } from '../../ports/file-parser.port';
import type { KbArticleRepository } from '../../ports/kb-article-repository.port';
import type { RetrievalIndex } from '../../ports/retrieval-index.port';
import type { KbArticleIndexMessage } from '../../ports/sync-job-queue.port';
import { domainEvent } from '../events/domain-events';
import { indexDocument } from '../ingestion/index-document';
import { documentIdFor } from '../ingestion/run-sync-job';
import { kbArticleDocument } from './kb-article-document';

export interface KbIndexingDependencies {
  readonly kbArticles: Pick<KbArticleRepository, 'get'>;
  readonly dataSources: Pick<DataSourceRepository, 'get' | 'recordDirectIndexing'>;
  readonly fileParser: FileParser;
  readonly chunker: DocumentChunker;
  readonly retrieval: RetrievalIndex;
  readonly embedder: Embedder;
  readonly clock: Clock;
}

/** Rounds of "index, then look again" before the message is retried later. */
const ROUNDS = 3;

/** What the index should hold for an article: its published version's hash, or nothing. */
function wanted(article: KbArticle | null): string | null {
  return article && article.status === 'published' ? kbContentHash(article) : null;
}

export type KbIndexingOutcome = 'indexed' | 'removed' | 'refused' | 'no-source';

/**
 * Brings one article's chunks in line with the article: its
 * current version when published, nothing when it is a draft or gone. Safe
 * in any order and any number of times, since it reads the article when it
 * runs rather than trusting the message; after writing it reads the article
 * again and goes round once more if it changed meanwhile, so two workers
 * racing on two versions both end with the newer one written last. The
 * source's chunk count follows, and a published article stores
 * `datasource.processed` like an ingested file.
 */
export async function indexKbArticle(
  deps: KbIndexingDependencies,
  message: KbArticleIndexMessage,
): Promise<KbIndexingOutcome> {
  const { org_id: orgId, data_source_id: dataSourceId, kb_article_id: articleId } = message;
  const source = await deps.dataSources.get(orgId, dataSourceId);
  if (source?.type !== 'kb') return 'no-source';
  const documentId = documentIdFor(dataSourceId, articleId);
  const read = async () =>
    message.action === 'remove' ? null : await deps.kbArticles.get(orgId, articleId);

  let article = await read();
  for (let round = 1; round <= ROUNDS; round += 1) {
    const target = wanted(article);
    const started = deps.clock.now();
    let outcome: KbIndexingOutcome;
    let tokens = 0;
    let refusal: string | null = null;
    if (target === null || article === null) {
      await deps.retrieval.deleteDocument(orgId, dataSourceId, documentId);
      outcome = 'removed';
    } else {
      const document = await kbArticleDocument(deps.fileParser, article);
      try {
        if ('refused' in document) throw new DocumentRefusedError(document.refused);
        tokens = (
          await indexDocument(deps, orgId, dataSourceId, documentId, document.document, target)
        ).tokens;
        outcome = 'indexed';
      } catch (error) {
        if (!(error instanceof DocumentRefusedError)) throw error;
        await deps.retrieval.deleteDocument(orgId, dataSourceId, documentId);
        refusal = `${article.title}: ${error.message}`;
        outcome = 'refused';
      }
    }
    const now = await read();
    if (wanted(now) === target) {
      await record(deps, orgId, source, { outcome, started, tokens, refusal });
      return outcome;
    }
    article = now;
  }
  throw new Error(`Article ${articleId} kept changing while it was indexed; retried later`);
}

async function record(
  deps: Pick<KbIndexingDependencies, 'dataSources' | 'retrieval' | 'clock'>,
  orgId: string,
  source: DataSource,
  done: {
    readonly outcome: KbIndexingOutcome;
    readonly started: Date;
    readonly tokens: number;
    readonly refusal: string | null;
  },
): Promise<void> {
  const chunksIndexed = await deps.retrieval.count({ orgId, dataSourceIds: [source.id] });
  const finished = deps.clock.now();
  const dataSource = (status: 'COMPLETED' | 'FAILED') => ({
    id: source.id,
    name: source.name,
    type: source.type.toUpperCase(),
    status,
    stats: {
      documentsProcessed: status === 'COMPLETED' ? 1 : 0,
      tokensProcessed: done.tokens,
      duration: finished.getTime() - done.started.getTime(),
    },
  });
  if (done.outcome === 'indexed') {
    await deps.dataSources.recordDirectIndexing(
      orgId,
      source.id,
      { chunksIndexed, status: 'active' },
      [
        domainEvent(
          'datasource.processed',
          orgId,
          { dataSource: dataSource('COMPLETED') },
          finished,
        ),
      ],
    );
    return;
  }
  if (done.outcome === 'refused') {
    await deps.dataSources.recordDirectIndexing(
      orgId,
      source.id,
      chunksIndexed === 0 ? { chunksIndexed, status: 'failed' } : { chunksIndexed },
      [
        domainEvent(
          'datasource.failed',
          orgId,
          { dataSource: dataSource('FAILED'), error: done.refusal },
          finished,
        ),
      ],
    );
    return;
  }
  // Unpublished or deleted: the count follows, as after a deleted file; no event.
  await deps.dataSources.recordDirectIndexing(orgId, source.id, { chunksIndexed });
}
