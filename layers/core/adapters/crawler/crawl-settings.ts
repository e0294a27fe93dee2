import type { OutboundPolicy } from '../net/outbound-policy';
import { parseHtmlPage } from '../parsing/html-to-document';
import { CRAWLER_USER_AGENT_TOKEN } from '../parsing/robots';
import type { PageFetcher } from './page-fetcher';

export const CRAWLER_DEFAULTS = {
  concurrency: 4,
  timeoutMs: 10_000,
  maxPageBytes: 5 * 1024 * 1024,
  maxRedirects: 5,
  userAgent: `${CRAWLER_USER_AGENT_TOKEN}/1.0`,
  /** The longest robots.txt `Crawl-delay` obeyed as written; longer ones are shortened to this. */
  maxCrawlDelayMs: 10_000,
  /** URLs waiting to be crawled, at most; links found beyond it are ignored (crawler traps, calendars). */
  maxQueuedUrls: 50_000,
  /** URLs longer than this are not crawled (session ids, traps). */
  maxUrlLength: 2_048,
  /**
   * A compressed page decoding to more than 100 bytes per byte received
   * (past its first MiB) is a compression bomb; the ratio Apache POI refuses
   * zip entries at. HTML compresses 5 to 20 times.
   */
  maxDecompressionRatio: 100,
  /**
   * Response bytes (decoded: pages, robots.txt, sitemaps) one crawl may
   * read: 10,000 pages (the most `max_pages` allows) of 100 KiB.
   */
  maxTotalBytes: 1024 * 1024 * 1024,
  /**
   * How long one crawl may run: the cloud sync worker's 15 minutes less
   * the minute it keeps to record the job (functions/sync-worker/handler.ts),
   * so a crawl ends the same way on one machine and in the cloud.
   */
  maxDurationMs: 14 * 60_000,
} as const;

/** What parsing an HTML page gives the crawler: its document, its links, and whether it is a link index. */
export type ParsedPage = ReturnType<typeof parseHtmlPage>;

/**
 * Parses a crawled HTML page ({@link parseHtmlPage}) where the deployment
 * runs CPU-bound work: in process by default (the cloud's sync
 * worker), in the parsing process on one machine. Rejects with
 * `DocumentTooComplexError` for a page past the parser's limits.
 */
export type PageParser = (html: string, url: string) => Promise<ParsedPage>;

/** The crawler's default: the page parsed in this process. */
export const inProcessPageParser: PageParser = async (html, url) => parseHtmlPage(html, url);

export interface CrawlWebsiteOptions {
  /** The website data source's `config.url` (`http` or `https`, no credentials). */
  readonly startUrl: string;
  /** Pages successfully parsed before the crawl stops (the data source's `max_pages`, 1–10,000). */
  readonly maxPages: number;
  /** {@link crawlerPolicy}; `allowPrivateAddresses` only from `SVC_ALLOW_PRIVATE_URLS`. */
  readonly policy: OutboundPolicy;
  /** Requests in flight at once (1 whenever robots.txt sets a crawl delay). @default 4 */
  readonly concurrency?: number;
  /** Deadline of one request, DNS to last byte. @default 10,000 */
  readonly timeoutMs?: number;
  /** Largest page read, decoded. @default 5 MiB */
  readonly maxPageBytes?: number;
  /** Redirect hops followed for one page. @default 5 */
  readonly maxRedirects?: number;
  /** The `User-Agent` header; robots.txt groups are matched on its product token. @default 'svc-crawler/1.0' */
  readonly userAgent?: string;
  /** @default 10,000 */
  readonly maxCrawlDelayMs?: number;
  /** @default 50,000 */
  readonly maxQueuedUrls?: number;
  /** Decoded bytes per compressed byte a page may reach (past its first MiB). @default 100 */
  readonly maxDecompressionRatio?: number;
  /** Response bytes, decoded, the whole crawl may read before it stops. @default 1 GiB */
  readonly maxTotalBytes?: number;
  /** How long the whole crawl may run before it stops. @default 14 minutes */
  readonly maxDurationMs?: number;
  /** Stops the crawl: requests in flight are abandoned and the iteration ends. */
  readonly signal?: AbortSignal;
  /**
   * The transport, for tests. @default node:http(s) under the SSRF guard
   * (`createGuardedPageFetcher`); a replacement must keep that guard.
   */
  readonly fetchImpl?: PageFetcher;
  /** Where HTML pages are parsed. @default {@link inProcessPageParser} */
  readonly parsePage?: PageParser;
}

/** The options with their defaults applied: what one crawl runs by. */
export type CrawlSettings = {
  readonly concurrency: number;
  readonly timeoutMs: number;
  readonly maxPageBytes: number;
  readonly maxRedirects: number;
  readonly userAgent: string;
  readonly maxCrawlDelayMs: number;
  readonly maxQueuedUrls: number;
  readonly maxDecompressionRatio: number;
  readonly maxTotalBytes: number;
};

export function crawlSettingsOf(options: CrawlWebsiteOptions): CrawlSettings {
  return {
    concurrency: Math.max(1, Math.floor(options.concurrency ?? CRAWLER_DEFAULTS.concurrency)),
    timeoutMs: options.timeoutMs ?? CRAWLER_DEFAULTS.timeoutMs,
    maxPageBytes: options.maxPageBytes ?? CRAWLER_DEFAULTS.maxPageBytes,
    maxRedirects: options.maxRedirects ?? CRAWLER_DEFAULTS.maxRedirects,
    userAgent: options.userAgent ?? CRAWLER_DEFAULTS.userAgent,
    maxCrawlDelayMs: options.maxCrawlDelayMs ?? CRAWLER_DEFAULTS.maxCrawlDelayMs,
    maxQueuedUrls: options.maxQueuedUrls ?? CRAWLER_DEFAULTS.maxQueuedUrls,
    maxDecompressionRatio: options.maxDecompressionRatio ?? CRAWLER_DEFAULTS.maxDecompressionRatio,
    maxTotalBytes: options.maxTotalBytes ?? CRAWLER_DEFAULTS.maxTotalBytes,
  };
}
