import type { DataSource } from '../../domain/data-source';
import type { SourceItem, SourceReader } from '../../ports/source-reader.port';
import type { OutboundPolicy } from '../net/outbound-policy';
import { RepeatedParagraphs } from './repeated-paragraphs';
import { contentHashOf, crawlWebsite, type PageParser } from './website-crawler';

/** A sync's crawl budget; the crawler's defaults where not given. */
export interface CrawlBudget {
  /** Decoded response bytes one sync may read. */
  readonly maxTotalBytes?: number;
  /** How long one sync's crawl may run. */
  readonly maxDurationMs?: number;
}

/** A website data source read by crawling it (issue 3: origin-bound, robots.txt, sitemap). */
export class WebsiteSourceReader implements SourceReader {
  constructor(
    private readonly policy: OutboundPolicy,
    private readonly options: CrawlBudget & {
      readonly concurrency?: number;
      readonly timeoutMs?: number;
      /** Where pages are parsed; in this process if not given. */
      readonly parsePage?: PageParser;
    } = {},
  ) {}

  /**
   * Every page of the site, in crawl order. A paragraph an earlier page of
   * this crawl held is dropped (boilerplate is indexed once), and the
   * content hash is taken after the drop.
   */
  async *read(source: DataSource, signal: AbortSignal): AsyncIterable<SourceItem> {
    const config = source.config as { url: string; max_pages: number };
    const repeated = new RepeatedParagraphs();
    for await (const result of crawlWebsite({
      startUrl: config.url,
      maxPages: config.max_pages,
      policy: this.policy,
      signal,
      ...this.options,
    })) {
      if (result.status === 'ok') {
        const document = repeated.keepNew(result.document);
        yield {
          status: 'ok',
          key: result.url,
          document,
          contentHash: document === result.document ? result.contentHash : contentHashOf(document),
        };
      } else if (result.status === 'stopped') {
        yield { status: 'stopped', reason: result.reason, detail: result.detail };
      } else {
        yield { status: 'skipped', key: result.url, reason: result.reason, detail: result.detail };
      }
    }
  }

  expectedTotal(source: DataSource): number | null {
    return (source.config as { max_pages: number }).max_pages;
  }
}

/**
 * The reader for data source types whose ingestion is not built yet (the
 * OAuth connectors): it reads nothing and says why,
 * so the sync ends `failed` with that reason instead of pretending.
 */
export class UnavailableSourceReader implements SourceReader {
  async *read(source: DataSource): AsyncIterable<SourceItem> {
    yield {
      status: 'skipped',
      key: source.id,
      reason: 'unavailable',
      detail: `syncing ${source.type} data sources is not available yet`,
    };
  }

  expectedTotal(): number | null {
    return null;
  }
}
