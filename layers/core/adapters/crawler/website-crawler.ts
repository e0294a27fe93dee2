import { setMaxListeners } from 'node:events';
import { checkOutboundUrl } from '../net/url-guard';
import { disallowAllRobots, type RobotsRules } from '../parsing/robots';
import { readSitemaps, SITEMAP_DEFAULTS } from '../parsing/sitemap';
import { CrawlRequester, isSuccess } from './crawl-requester';
import { type CrawlResult, type CrawlStopReason, isLinkIndex, skipped } from './crawl-results';
import { readRobots } from './crawl-robots';
import {
  CRAWLER_DEFAULTS,
  type CrawlSettings,
  type CrawlWebsiteOptions,
  crawlSettingsOf,
} from './crawl-settings';
import { createGuardedPageFetcher } from './page-fetcher';
import { type PageOutcome, PageReader } from './page-reader';

// The crawler's public face: its options and results live beside it, one concern a file
// (settings, results, requests and politeness, robots.txt, reading one page).
export {
  CRAWL_SKIP_REASONS,
  type CrawlResult,
  type CrawlSkipReason,
  type CrawlStopReason,
  contentHashOf,
} from './crawl-results';
export {
  CRAWLER_DEFAULTS,
  type CrawlWebsiteOptions,
  inProcessPageParser,
  type PageParser,
  type ParsedPage,
} from './crawl-settings';

/**
 * Crawls one website, yielding a result per URL as soon as it is known.
 *
 * - **Scope**: the start URL's origin only — scheme, host and port exactly,
 *   so `example.com` and `www.example.com`, or `http` and `https`, are
 *   different sites. A redirect to another origin is refused
 *   (`redirect-off-origin`) and its detail names the origin, so the user can
 *   set the source URL to the site's real address. Following it instead
 *   would let one redirect widen the crawl to a site nobody configured.
 * - **Order**: robots.txt first (RFC 9309: 2xx rules apply; 4xx means no
 *   rules; anything else means nothing may be fetched). Then the start URL,
 *   the URLs of the sitemaps robots.txt names (else `/sitemap.xml`), then
 *   links, breadth first. URLs are deduplicated without their fragment.
 * - **Politeness**: at most `concurrency` requests at once; a robots.txt
 *   `Crawl-delay` (capped at `maxCrawlDelayMs`) makes the crawl sequential
 *   with that spacing between requests.
 * - **Limits**: stops once `maxPages` pages are parsed; every request has
 *   `timeoutMs` and `maxPageBytes`, and a compressed body may decode to at
 *   most `maxDecompressionRatio` times its size; redirects are followed by
 *   hand, at most `maxRedirects`, each hop checked for origin, robots.txt and
 *   The SSRF check again. The whole crawl may read `maxTotalBytes` and run
 *   `maxDurationMs`: past either, requests in flight are abandoned and
 *   a last `stopped` result says which.
 * - **D35**: the start URL is checked (resolved, every address public) before
 *   any request, and every connection goes through the guarded lookup.
 * - **Content**: `text/html` and XHTML become documents via
 *   {@link parseHtmlPage} (their links are followed; a page that is mostly
 *   links is `skipped` as a `link-index`, P123, its links followed all the
 *   same); `text/plain` via
 *   {@link textToDocument}. A page without text is still `ok` (with no
 *   sections), so a page that was emptied replaces its old text.
 *   `<meta name="robots">` and `rel="nofollow"` are not obeyed: they address
 *   search engines' indexes, and the site's owner chose to index it here.
 *
 * Never throws for a page: every failure is a `skipped` result.
 *
 * @example
 * for await (const result of crawlWebsite({ startUrl: 'https://docs.example.com/', maxPages: 100, policy: crawlerPolicy })) {
 *   if (result.status === 'ok') await index(result.document, result.contentHash);
 * }
 */
export async function* crawlWebsite(options: CrawlWebsiteOptions): AsyncGenerator<CrawlResult> {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  const stopOnParent = () => controller.abort();
  options.signal?.addEventListener('abort', stopOnParent, { once: true });
  if (options.signal?.aborted) controller.abort();

  const settings = crawlSettingsOf(options);
  const transport = options.fetchImpl
    ? { fetch: options.fetchImpl, close: () => undefined }
    : createGuardedPageFetcher(options.policy, { maxSockets: settings.concurrency });

  // A budget reached stops the crawl as the caller's signal would, and says so.
  let stopped: CrawlResult | undefined;
  const stop = (reason: CrawlStopReason, detail: string) => {
    if (!stopped && !controller.signal.aborted) {
      stopped = { status: 'stopped', url: options.startUrl, reason, detail };
    }
    controller.abort();
  };
  const maxDurationMs = options.maxDurationMs ?? CRAWLER_DEFAULTS.maxDurationMs;
  const deadline = setTimeout(
    () => stop('time-budget', `the crawl reached its time limit of ${seconds(maxDurationMs)}`),
    maxDurationMs,
  );
  try {
    const requester = new CrawlRequester(settings, transport.fetch, controller.signal, stop);
    yield* new Crawl(options, settings, requester, controller.signal).run();
    if (stopped) yield stopped;
  } finally {
    clearTimeout(deadline);
    // Also when the caller stops iterating early: nothing keeps running.
    controller.abort();
    options.signal?.removeEventListener('abort', stopOnParent);
    transport.close();
  }
}

function seconds(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`;
}

/** Links that are very likely not pages: not fetched, to spare the site and the crawl. */
const NON_PAGE_EXTENSION =
  /\.(?:7z|aac|avi|bmp|bz2|css|csv|dmg|docx?|eot|epub|exe|flac|gif|gz|ico|iso|jpe?g|js|json|m4a|mkv|mov|mp3|mp4|mpe?g|msi|odp|ods|odt|ogg|otf|pdf|png|pptx?|rar|rss|svg|tar|tgz|tiff?|ttf|wav|webm|webp|woff2?|xlsx?|xml|zip)$/i;

class Crawl {
  readonly #options: CrawlWebsiteOptions;
  readonly #settings: CrawlSettings;
  readonly #requester: CrawlRequester;
  readonly #signal: AbortSignal;
  #origin = '';
  #robots: RobotsRules = disallowAllRobots();
  /** Every URL ever queued or reached by a redirect, so none is fetched twice. */
  readonly #seen = new Set<string>();
  /** Breadth-first frontier; `#head` is the next to crawl (no `shift()`, which copies the array). */
  readonly #queue: string[] = [];
  #head = 0;
  /** Results known without a request (disallowed, not a page), yielded before the next wait. */
  readonly #ready: CrawlResult[] = [];
  #parsed = 0;

  constructor(
    options: CrawlWebsiteOptions,
    settings: CrawlSettings,
    requester: CrawlRequester,
    signal: AbortSignal,
  ) {
    this.#options = options;
    this.#settings = settings;
    this.#requester = requester;
    this.#signal = signal;
  }

  async *run(): AsyncGenerator<CrawlResult> {
    const start = await this.#checkStart();
    if (!start.ok) {
      yield start.result;
      return;
    }
    const robots = await readRobots(start.url, this.#requester, this.#settings);
    if (robots.refusal) {
      yield robots.refusal;
      return;
    }
    this.#robots = robots.robots;
    // Concurrency 1 under a crawl delay: the delay is between requests, not per worker.
    const concurrency = this.#requester.delayMs > 0 ? 1 : this.#settings.concurrency;
    const pages = new PageReader(this.#requester, this.#settings, {
      origin: this.#origin,
      robots: this.#robots,
      seen: this.#seen,
      policy: this.#options.policy,
      parsePage: this.#options.parsePage,
    });

    this.#enqueue(start.url.href);
    await this.#seedFromSitemaps();

    const running = new Map<number, Promise<{ id: number; outcome: PageOutcome }>>();
    let nextId = 0;
    while (!this.#signal.aborted) {
      while (this.#ready.length > 0) {
        const result = this.#ready.shift();
        if (result) yield result;
      }
      // Launch no more than could still be needed: in-flight pages may all succeed.
      while (
        running.size < concurrency &&
        this.#head < this.#queue.length &&
        this.#parsed + running.size < this.#options.maxPages
      ) {
        const url = this.#queue[this.#head];
        this.#head += 1;
        if (url === undefined) break;
        const id = nextId++;
        running.set(
          id,
          pages.read(url).then((outcome) => ({ id, outcome })),
        );
      }
      if (running.size === 0) {
        if (this.#ready.length > 0) continue;
        return;
      }
      const { id, outcome } = await Promise.race(running.values());
      running.delete(id);
      if (this.#signal.aborted) return;
      // A link index was fetched and parsed like any page: it counts, and its links are followed.
      if (outcome.result.status === 'ok' || isLinkIndex(outcome.result)) {
        this.#parsed += 1;
        if (this.#parsed < this.#options.maxPages) {
          for (const link of outcome.links) this.#enqueue(link);
        }
      }
      yield outcome.result;
    }
  }

  /** D35 before anything is sent: the URL's form, then every address its host resolves to. */
  async #checkStart(): Promise<{ ok: true; url: URL } | { ok: false; result: CrawlResult }> {
    const raw = this.#options.startUrl;
    const check = await checkOutboundUrl(raw, this.#options.policy, this.#settings.timeoutMs);
    if (!check.ok) return { ok: false, result: skipped(raw, 'address-refused', check.reason) };
    const url = new URL(check.url.href);
    url.hash = '';
    this.#origin = url.origin;
    return { ok: true, url };
  }

  async #seedFromSitemaps(): Promise<void> {
    const declared = this.#robots.sitemaps.filter((url) => this.#isOnOrigin(url));
    const roots = declared.length > 0 ? declared : [new URL('/sitemap.xml', this.#origin).href];
    const { urls } = await readSitemaps({
      roots,
      fetch: async (url) => {
        if (!this.#robots.isAllowed(url)) return undefined;
        const response = await this.#requester.get(url, SITEMAP_DEFAULTS.maxBytes, false);
        return response.kind === 'response' && isSuccess(response.status)
          ? response.body
          : undefined;
      },
      accept: (url) => this.#isOnOrigin(url),
      maxUrls: this.#settings.maxQueuedUrls,
    });
    for (const url of urls) this.#enqueue(url);
  }

  #enqueue(raw: string): void {
    if (this.#parsed >= this.#options.maxPages) return;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return;
    }
    url.hash = '';
    const key = url.href;
    // Other origins are simply not ours: links to them are normal, not worth a result.
    if (url.origin !== this.#origin || key.length > CRAWLER_DEFAULTS.maxUrlLength) return;
    if (this.#seen.has(key) || this.#seen.size >= this.#settings.maxQueuedUrls) return;
    this.#seen.add(key);
    if (!this.#robots.isAllowed(key)) {
      this.#ready.push(skipped(key, 'disallowed', 'robots.txt does not allow this URL'));
      return;
    }
    const extension = NON_PAGE_EXTENSION.exec(url.pathname)?.[0];
    if (extension) {
      this.#ready.push(skipped(key, 'not-html', `not fetched: a ${extension.slice(1)} file`));
      return;
    }
    this.#queue.push(key);
  }

  #isOnOrigin(url: string): boolean {
    return URL.canParse(url) && new URL(url).origin === this.#origin;
  }
}
