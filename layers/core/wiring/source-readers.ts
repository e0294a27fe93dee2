import { ConnectorSourceReader } from '../adapters/connectors/connector-source-reader';
import type { Connectors } from '../adapters/connectors/connectors';
import type { PageParser } from '../adapters/crawler/website-crawler';
import {
  type CrawlBudget,
  UnavailableSourceReader,
  WebsiteSourceReader,
} from '../adapters/crawler/website-source-reader';
import { FileSourceReader } from '../adapters/files/file-source-reader';
import type { OutboundPolicy } from '../adapters/net/outbound-policy';
import { crawlerPolicy } from '../adapters/net/outbound-policy';
import type { ConnectorType } from '../domain/connector';
import type { DataSource } from '../domain/data-source';
import type { FileParser } from '../ports/file-parser.port';
import type { FileStorage } from '../ports/file-storage.port';
import type { KbArticleRepository } from '../ports/kb-article-repository.port';
import type { SourceReader } from '../ports/source-reader.port';
import type { UploadedFileRepository } from '../ports/uploaded-file-repository.port';
import type { GrantDependencies } from '../use-cases/connectors/connector-grant';
import { KbSourceReader } from '../use-cases/kb/kb-source-reader';

/**
 * How a sync reads each type of data source: websites through the crawler
 * (under the SSRF guard's address policy), file sources from their uploads, the
 * built-in knowledge base from its published articles, connector
 * sources through their provider's reader with their grant (issue 12); a
 * connector type without a reader yet says so.
 */
export function sourceReaders(options: {
  readonly outboundPolicy: Pick<OutboundPolicy, 'allowPrivateAddresses'>;
  readonly files: UploadedFileRepository;
  readonly fileStorage: FileStorage;
  readonly fileParser: FileParser;
  /** Issue 12: the sync worker's connectors and what their grants need. */
  readonly connectors?: { readonly built: Connectors; readonly grants: GrantDependencies };
  readonly kbArticles: Pick<KbArticleRepository, 'list' | 'get'>;
  /** The crawl budget of one sync; the crawler's defaults (1 GiB, 14 minutes) if not given. */
  readonly crawlBudget?: CrawlBudget;
  /** Where crawled pages are parsed; in this process if not given. */
  readonly pageParser?: PageParser;
}): (source: DataSource, orgId: string) => SourceReader {
  const website = new WebsiteSourceReader(
    crawlerPolicy({ allowPrivateAddresses: options.outboundPolicy.allowPrivateAddresses }),
    {
      ...options.crawlBudget,
      ...(options.pageParser ? { parsePage: options.pageParser } : {}),
    },
  );
  const unavailable = new UnavailableSourceReader();
  return (source, orgId) => {
    if (source.type === 'website') return website;
    if (source.type === 'kb')
      return new KbSourceReader(orgId, options.kbArticles, options.fileParser);
    if (source.type === 'file') {
      return new FileSourceReader(orgId, options.files, options.fileStorage, options.fileParser);
    }
    const type = source.type as ConnectorType;
    const connector = options.connectors;
    const oauth = connector?.built.oauth[type];
    const reader = connector?.built.readers[type];
    if (connector && oauth && reader) {
      return new ConnectorSourceReader(
        connector.grants,
        orgId,
        oauth,
        connector.built.fetch,
        reader,
      );
    }
    return unavailable;
  };
}
