import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ParsedDocument } from '../../ports/document.port';
import type { OutboundPolicy } from '../net/outbound-policy';
import { checkOutboundUrl, parseOutboundUrl } from '../net/url-guard';
import { DocumentTooComplexError } from '../parsing/errors';
import { textToDocument } from '../parsing/file-parsers';
import { parseHtmlPage } from '../parsing/html-to-document';
import {
  allowAllRobots,
  CRAWLER_USER_AGENT_TOKEN,
  disallowAllRobots,
  parseRobotsTxt,
  ROBOTS_MAX_BYTES,
  type RobotsRules,
  robotsTxtUrl,
} from '../parsing/robots';
import { readSitemaps, SITEMAP_DEFAULTS } from '../parsing/sitemap';
import { charsetOf, decodeHtml, decodeText, mediaTypeOf } from '../parsing/text-decoding';
import { createGuardedPageFetcher, type PageFetcher, type PageResponse } from './page-fetcher';

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
   * P98: a compressed page decoding to more than 100 bytes per byte received
   * (past its first MiB) is a compression bomb; the ratio Apache POI refuses
   * zip entries at. HTML compresses 5 to 20 times.
   */
  maxDecompressionRatio: 100,
  /**
   * P98: response bytes (decoded: pages, robots.txt, sitemaps) one crawl may
   * read: 10,000 pages (the most `max_pages` allows) of 100 KiB.
   */
  maxTotalBytes: 1024 * 1024 * 1024,
  /**
   * P98: how long one crawl may run: the cloud sync worker's 15 minutes less
   * the minute it keeps to record the job (functions/sync-worker/handler.ts),
   * so a crawl ends the same way on one machine and in the cloud.
   */
  maxDurationMs: 14 * 60_000,
} as const;

/** What parsing an HTML page gives the crawler: its document, its links, and whether it is a link index (P123). */
export type ParsedPage = ReturnType<typeof parseHtmlPage>;

/**
 * Parses a crawled HTML page ({@link parseHtmlPage}) where the deployment
 * runs CPU-bound work (P201): in process by default (the cloud's sync
 * worker), in the parsing process on one machine. Rejects with
 * `DocumentTooComplexError` for a page past the parser's limits.
 */
export type PageParser = (html: string, url: string) => Promise<ParsedPage>;

/** The crawler's default: the page parsed in this process. */
export const inProcessPageParser: PageParser = async (html, url) => parseHtmlPage(html, url);

export interface CrawlWebsiteOptions {
  /** The website data source's `config.url` (D17: `http` or `https`, no credentials). */
  readonly startUrl: string;
  /** Pages successfully parsed before the crawl stops (the data source's `max_pages`, 1–10,000). */
  readonly maxPages: number;
  /** D35: {@link crawlerPolicy}; `allowPrivateAddresses` only from `SVC_ALLOW_PRIVATE_URLS`. */
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
   * The transport, for tests. @default node:http(s) under the D35 guard
   * ({@link createGuardedPageFetcher}); a replacement must keep that guard.
   */
  readonly fetchImpl?: PageFetcher;
  /** Where HTML pages are parsed (P201). @default {@link inProcessPageParser} */
  readonly parsePage?: PageParser;
}

/** Why a URL produced no document. */
export const CRAWL_SKIP_REASONS = [
  /** 404 or 410: the page no longer exists (the sync deletes its document). */
  'gone',
  /** robots.txt does not let us fetch it, or could not be read (RFC 9309: then nothing may be fetched). */
  'disallowed',
  /** Larger than `maxPageBytes`. */
  'too-large',
  /** Not HTML or plain text (by `Content-Type`, or by its extension, then not fetched). */
  'not-html',
  /** A redirect to another origin (scheme, host and port). */
  'redirect-off-origin',
  /** More than `maxRedirects` hops. */
  'too-many-redirects',
  /** D35: the address is not public, or the scheme not allowed. */
  'address-refused',
  /** Any other HTTP status, or a redirect without a usable `Location`. */
  'http-error',
  'timeout',
  'connection-failed',
  /** Redirects to a page that is crawled under its own address. */
  'duplicate',
  /** The body could not be turned into a document. */
  'unparseable',
  /** A compressed body that decodes past `maxDecompressionRatio`. */
  'compression-bomb',
  /**
   * P123: the page is mostly links (a home page, a site map, a category
   * list): its links are followed, the page itself is not indexed as an answer.
   */
  'link-index',
] as const;
export type CrawlSkipReason = (typeof CRAWL_SKIP_REASONS)[number];

/** Why a crawl stopped before it had seen the whole site (P98). */
export type CrawlStopReason = 'byte-budget' | 'time-budget';

export type CrawlResult =
  | {
      readonly status: 'ok';
      /** The page's address after same-origin redirects; equals `document.url`. */
      readonly url: string;
      /** The address that was requested, when it redirected. */
      readonly redirectedFrom?: string;
      readonly document: ParsedDocument;
      /** SHA-256 (hex) of the parsed title and text: changes only when the text does, not the markup. */
      readonly contentHash: string;
    }
  | {
      readonly status: 'skipped';
      /** The address that was requested. */
      readonly url: string;
      readonly reason: CrawlSkipReason;
      /** For people: what happened, without response content. */
      readonly detail: string;
    }
  | {
      /**
       * The crawl reached its byte or time budget and ended early: always the
       * last result. What it did not reach may still exist.
       */
      readonly status: 'stopped';
      /** The start URL. */
      readonly url: string;
      readonly reason: CrawlStopReason;
      readonly detail: string;
    };

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
 *   D35 again. The whole crawl may read `maxTotalBytes` and run
 *   `maxDurationMs` (P98): past either, requests in flight are abandoned and
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
 * for await (const result of crawlWebsite({ startUrl: 'https://docs.example.com/', maxPages: 100, policy: crawlerPolicy() })) {
 *   if (result.status === 'ok') await index(result.document, result.contentHash);
 * }
 */
export async function* crawlWebsite(options: CrawlWebsiteOptions): AsyncGenerator<CrawlResult> {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  const stopOnParent = () => controller.abort();
  options.signal?.addEventListener('abort', stopOnParent, { once: true });
  if (options.signal?.aborted) controller.abort();

  const settings = {
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
  const transport = options.fetchImpl
    ? { fetch: options.fetchImpl, close: () => undefined }
    : createGuardedPageFetcher(options.policy, { maxSockets: settings.concurrency });

  // A budget reached stops the crawl as the caller's signal would, and says so (P98).
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
    yield* new Crawl(options, settings, transport.fetch, controller.signal, stop).run();
    if (stopped) yield stopped;
  } finally {
    clearTimeout(deadline);
    // Also when the caller stops iterating early: nothing keeps running.
    controller.abort();
    options.signal?.removeEventListener('abort', stopOnParent);
    transport.close();
  }
}

type Settings = {
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

function seconds(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`;
}

/** What one page task ends with: its result, and the links it found if it was parsed. */
type PageOutcome = { readonly result: CrawlResult; readonly links: readonly string[] };

/** Links that are very likely not pages: not fetched, to spare the site and the crawl. */
const NON_PAGE_EXTENSION =
  /\.(?:7z|aac|avi|bmp|bz2|css|csv|dmg|docx?|eot|epub|exe|flac|gif|gz|ico|iso|jpe?g|js|json|m4a|mkv|mov|mp3|mp4|mpe?g|msi|odp|ods|odt|ogg|otf|pdf|png|pptx?|rar|rss|svg|tar|tgz|tiff?|ttf|wav|webm|webp|woff2?|xlsx?|xml|zip)$/i;

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const ACCEPT = 'text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8,*/*;q=0.1';

class Crawl {
  readonly #options: CrawlWebsiteOptions;
  readonly #settings: Settings;
  readonly #fetch: PageFetcher;
  readonly #signal: AbortSignal;
  #origin = '';
  #robots: RobotsRules = disallowAllRobots();
  #delayMs = 0;
  #nextRequestAt = 0;
  /** Every URL ever queued or reached by a redirect, so none is fetched twice. */
  readonly #seen = new Set<string>();
  /** Breadth-first frontier; `#head` is the next to crawl (no `shift()`, which copies the array). */
  readonly #queue: string[] = [];
  #head = 0;
  /** Results known without a request (disallowed, not a page), yielded before the next wait. */
  readonly #ready: CrawlResult[] = [];
  #parsed = 0;
  /** Decoded response bytes read so far, against `maxTotalBytes`. */
  #bytesRead = 0;
  readonly #stop: (reason: CrawlStopReason, detail: string) => void;

  constructor(
    options: CrawlWebsiteOptions,
    settings: Settings,
    fetch: PageFetcher,
    signal: AbortSignal,
    stop: (reason: CrawlStopReason, detail: string) => void,
  ) {
    this.#options = options;
    this.#settings = settings;
    this.#fetch = fetch;
    this.#signal = signal;
    this.#stop = stop;
  }

  async *run(): AsyncGenerator<CrawlResult> {
    const start = await this.#checkStart();
    if (!start.ok) {
      yield start.result;
      return;
    }
    const refusal = await this.#readRobots(start.url);
    if (refusal) {
      yield refusal;
      return;
    }
    // Concurrency 1 under a crawl delay: the delay is between requests, not per worker.
    const concurrency = this.#delayMs > 0 ? 1 : this.#settings.concurrency;

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
          this.#crawlPage(url).then((outcome) => ({ id, outcome })),
        );
      }
      if (running.size === 0) {
        if (this.#ready.length > 0) continue;
        return;
      }
      const { id, outcome } = await Promise.race(running.values());
      running.delete(id);
      if (this.#signal.aborted) return;
      // A link index (P123) was fetched and parsed like any page: it counts, and its links are followed.
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

  /**
   * Loads robots.txt (RFC 9309 §2.3.1). Returns the start URL's result when
   * nothing may be crawled: robots.txt unreachable, or its address refused.
   */
  async #readRobots(start: URL): Promise<CrawlResult | undefined> {
    const robotsUrl = robotsTxtUrl(start);
    this.#robots = allowAllRobots(start); // while fetching robots.txt itself
    const response = await this.#get(robotsUrl, ROBOTS_MAX_BYTES, true);
    if (response.kind === 'failed') {
      return response.reason === 'address-refused'
        ? skipped(start.href, 'address-refused', response.detail)
        : skipped(
            start.href,
            'disallowed',
            `robots.txt could not be fetched (${response.detail}), so nothing may be crawled`,
          );
    }
    if (response.kind === 'compression-bomb') {
      this.#robots = disallowAllRobots();
      return skipped(
        start.href,
        'disallowed',
        `robots.txt could not be read (${response.detail}), so nothing may be crawled`,
      );
    }
    // RFC 9309 §2.5: a parser must read at least 500 KiB; what follows may be ignored.
    const body = response.kind === 'too-large' ? response.partialBody : response.body;
    const { status } = response;
    if (status >= 200 && status < 300) {
      this.#robots = parseRobotsTxt(
        robotsUrl,
        decodeText(body, charsetOf(response.contentType)),
        this.#settings.userAgent,
      );
      const delay = this.#robots.crawlDelaySeconds;
      if (delay !== undefined && delay > 0) {
        this.#delayMs = Math.min(delay * 1000, this.#settings.maxCrawlDelayMs);
        this.#nextRequestAt = Date.now() + this.#delayMs;
      }
      return undefined;
    }
    // 429 is "come back later", not "no rules": treated like a server error.
    if (status >= 400 && status < 500 && status !== 429) return undefined;
    this.#robots = disallowAllRobots();
    return skipped(
      start.href,
      'disallowed',
      `robots.txt answered HTTP ${status}, so nothing may be crawled (RFC 9309)`,
    );
  }

  async #seedFromSitemaps(): Promise<void> {
    const declared = this.#robots.sitemaps.filter((url) => this.#isOnOrigin(url));
    const roots = declared.length > 0 ? declared : [new URL('/sitemap.xml', this.#origin).href];
    const { urls } = await readSitemaps({
      roots,
      fetch: async (url) => {
        if (!this.#robots.isAllowed(url)) return undefined;
        const response = await this.#get(url, SITEMAP_DEFAULTS.maxBytes, false);
        return response.kind === 'response' && isSuccess(response.status)
          ? response.body
          : undefined;
      },
      accept: (url) => this.#isOnOrigin(url),
      maxUrls: this.#settings.maxQueuedUrls,
    });
    for (const url of urls) this.#enqueue(url);
  }

  /**
   * GET for robots.txt and sitemaps, body wanted on 2xx only. Redirects are
   * followed to any origin (RFC 9309 §2.3.1.2 asks it for robots.txt; the
   * rules still apply to our origin, and sitemap entries are filtered by
   * origin), each hop through the D35-guarded fetcher.
   */
  async #get(url: string, maxBytes: number, keepPartial: boolean): Promise<PageResponse> {
    let current = new URL(url);
    for (let hop = 0; ; hop += 1) {
      const response = await this.#request(current, maxBytes, isSuccess, keepPartial);
      if (response.kind !== 'response' || !REDIRECT_STATUSES.has(response.status)) return response;
      const next = redirectTarget(current, response.location);
      if (!next) return failedWith(`HTTP ${response.status} without a usable Location`);
      if (hop >= this.#settings.maxRedirects) {
        return failedWith(`more than ${this.#settings.maxRedirects} redirects`);
      }
      current = next;
    }
  }

  async #request(
    url: URL,
    maxBytes: number,
    wantBody: (status: number, contentType: string | undefined) => boolean,
    keepPartial = false,
  ): Promise<PageResponse> {
    await this.#politeness();
    if (this.#signal.aborted) return { kind: 'failed', reason: 'aborted', detail: 'crawl stopped' };
    const response = await this.#fetch({
      url,
      headers: { 'User-Agent': this.#settings.userAgent, Accept: ACCEPT },
      timeoutMs: this.#settings.timeoutMs,
      maxBytes,
      maxDecompressionRatio: this.#settings.maxDecompressionRatio,
      keepPartial,
      wantBody,
      signal: this.#signal,
    });
    this.#count(response);
    return response;
  }

  /**
   * Adds what a response made us read to the crawl's byte budget; past it the
   * crawl stops. A page in flight may pass it by one page at most each.
   */
  #count(response: PageResponse): void {
    if (response.kind === 'response') this.#bytesRead += response.body.length;
    else if (response.kind === 'too-large') this.#bytesRead += response.partialBody.length;
    else if (response.kind === 'compression-bomb') this.#bytesRead += response.bytesRead;
    if (this.#bytesRead >= this.#settings.maxTotalBytes) {
      this.#stop(
        'byte-budget',
        `the crawl read its limit of ${this.#settings.maxTotalBytes} bytes of responses`,
      );
    }
  }

  /** Waits out the robots.txt crawl delay (requests are sequential then). */
  async #politeness(): Promise<void> {
    if (this.#delayMs === 0) return;
    const now = Date.now();
    const wait = this.#nextRequestAt - now;
    this.#nextRequestAt = Math.max(now, this.#nextRequestAt) + this.#delayMs;
    if (wait > 0) await sleep(wait, undefined, { signal: this.#signal }).catch(() => undefined);
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

  /** Fetches and parses one page, following redirects; every failure becomes a result. */
  async #crawlPage(url: string): Promise<PageOutcome> {
    try {
      return await this.#fetchAndParse(url);
    } catch (error) {
      // A pathological document, or a parser bug, must not end the crawl.
      const detail =
        error instanceof DocumentTooComplexError
          ? error.message
          : `could not be parsed (${error instanceof Error ? error.name : 'error'})`;
      return { result: skipped(url, 'unparseable', detail), links: [] };
    }
  }

  async #fetchAndParse(url: string): Promise<PageOutcome> {
    const none = (reason: CrawlSkipReason, detail: string): PageOutcome => ({
      result: skipped(url, reason, detail),
      links: [],
    });
    let current = new URL(url);
    const chain = new Set([url]);
    for (let hops = 0; ; hops += 1) {
      const response = await this.#request(current, this.#settings.maxPageBytes, wantsPageBody);
      if (response.kind === 'failed') {
        return none(
          response.reason === 'aborted' ? 'connection-failed' : response.reason,
          response.detail,
        );
      }
      if (response.kind === 'compression-bomb') return none('compression-bomb', response.detail);
      const { status, contentType } = response;
      if (response.kind === 'too-large') {
        return none('too-large', `larger than ${this.#settings.maxPageBytes} bytes`);
      }
      if (REDIRECT_STATUSES.has(status)) {
        const next = redirectTarget(current, response.location);
        if (!next) return none('http-error', `HTTP ${status} without a usable Location`);
        if (next.origin !== this.#origin) {
          return none(
            'redirect-off-origin',
            `redirects to ${next.origin}, outside the crawled site ${this.#origin}; use that address as the source URL to crawl it`,
          );
        }
        if (hops >= this.#settings.maxRedirects) {
          return none('too-many-redirects', `more than ${this.#settings.maxRedirects} redirects`);
        }
        if (chain.has(next.href)) return none('too-many-redirects', 'redirect loop');
        chain.add(next.href);
        // D35 again for the hop: the scheme here; the address when the guarded lookup connects.
        const allowed = parseOutboundUrl(next.href, this.#options.policy);
        if (!allowed.ok) return none('address-refused', allowed.reason);
        if (!this.#robots.isAllowed(next.href)) {
          return none('disallowed', `redirects to ${next.href}, which robots.txt does not allow`);
        }
        if (this.#seen.has(next.href)) {
          return none(
            'duplicate',
            `redirects to ${next.href}, which is crawled under its own address`,
          );
        }
        this.#seen.add(next.href);
        current = next;
        continue;
      }
      if (status === 404 || status === 410) return none('gone', `HTTP ${status}`);
      if (!isSuccess(status)) return none('http-error', `HTTP ${status}`);
      return await this.#parse(url, current, contentType, response.body, none);
    }
  }

  async #parse(
    requested: string,
    final: URL,
    contentType: string | undefined,
    body: Buffer,
    none: (reason: CrawlSkipReason, detail: string) => PageOutcome,
  ): Promise<PageOutcome> {
    const mediaType = mediaTypeOf(contentType) ?? (looksLikeHtml(body) ? 'text/html' : undefined);
    let document: ParsedDocument;
    let links: string[] = [];
    if (mediaType !== undefined && HTML_TYPES.has(mediaType)) {
      const parsePage = this.#options.parsePage ?? inProcessPageParser;
      const page = await parsePage(decodeHtml(body, contentType), final.href);
      ({ document, links } = page);
      if (page.linkIndex.mostlyLinks) {
        const { linkShare, links: count, sentences } = page.linkIndex;
        return {
          result: skipped(
            requested,
            'link-index',
            `mostly links (${Math.round(linkShare * 100)}% of its text is in ${count} links, ${sentences} sentence(s) of prose): its links are followed, the page is not indexed`,
          ),
          links,
        };
      }
    } else if (mediaType === 'text/plain') {
      const text = decodeText(body, charsetOf(contentType));
      document = textToDocument(text, lastSegmentOf(final), final.href);
    } else {
      return none('not-html', `content type ${safeMediaType(mediaType)} is not crawled`);
    }
    return {
      result: {
        status: 'ok',
        url: final.href,
        ...(final.href !== requested ? { redirectedFrom: requested } : {}),
        document,
        contentHash: contentHashOf(document),
      },
      links,
    };
  }

  #isOnOrigin(url: string): boolean {
    return URL.canParse(url) && new URL(url).origin === this.#origin;
  }
}

function isLinkIndex(result: CrawlResult): boolean {
  return result.status === 'skipped' && result.reason === 'link-index';
}

function skipped(url: string, reason: CrawlSkipReason, detail: string): CrawlResult {
  return { status: 'skipped', url, reason, detail };
}

function failedWith(detail: string): PageResponse {
  return { kind: 'failed', reason: 'connection-failed', detail };
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/** `/notes/todo.txt` → `todo.txt` (decoded), else the host: the title of a plain-text page. */
function lastSegmentOf(url: URL): string {
  const segment = url.pathname.split('/').filter(Boolean).at(-1);
  if (segment === undefined) return url.host;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Bodies worth reading: 2xx pages that may be HTML or text (unlabelled ones are sniffed). */
function wantsPageBody(status: number, contentType: string | undefined): boolean {
  if (!isSuccess(status)) return false;
  const mediaType = mediaTypeOf(contentType);
  return mediaType === undefined || HTML_TYPES.has(mediaType) || mediaType === 'text/plain';
}

function redirectTarget(from: URL, location: string | undefined): URL | undefined {
  if (location === undefined || location.trim() === '') return undefined;
  try {
    const next = new URL(location.trim(), from);
    next.hash = '';
    return next;
  } catch {
    return undefined;
  }
}

/** An unlabelled body that starts like HTML (after a BOM and whitespace). */
function looksLikeHtml(body: Buffer): boolean {
  const head = body
    .subarray(0, 512)
    .toString('latin1')
    .replace(/^\u00ef\u00bb\u00bf/, '')
    .trimStart();
  return /^<(?:!doctype html|html[\s>]|head[\s>]|body[\s>])/i.test(head);
}

/** The hash covers what is indexed, so markup-only changes (a new CSRF token, a rotated ad) do not re-index. */
export function contentHashOf(document: ParsedDocument): string {
  const indexed = JSON.stringify({ title: document.title, sections: document.sections });
  return createHash('sha256').update(indexed).digest('hex');
}

function safeMediaType(mediaType: string | undefined): string {
  if (mediaType === undefined) return '(none)';
  return /^[\w.+-]{1,64}\/[\w.+-]{1,64}$/.test(mediaType) ? mediaType : '(unrecognised)';
}
