import { setTimeout as sleep } from 'node:timers/promises';
import type { CrawlStopReason } from './crawl-results';
import type { CrawlSettings } from './crawl-settings';
import type { PageFetcher, PageResponse } from './page-fetcher';

export const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const ACCEPT = 'text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8,*/*;q=0.1';

/**
 * Every request one crawl sends: with its User-Agent and limits, spaced by
 * the robots.txt crawl delay when there is one, and counted against the
 * crawl's byte budget, which stops the crawl once reached.
 */
export class CrawlRequester {
  readonly #settings: CrawlSettings;
  readonly #fetch: PageFetcher;
  readonly #signal: AbortSignal;
  readonly #stop: (reason: CrawlStopReason, detail: string) => void;
  #delayMs = 0;
  #nextRequestAt = 0;
  /** Decoded response bytes read so far, against `maxTotalBytes`. */
  #bytesRead = 0;

  constructor(
    settings: CrawlSettings,
    fetch: PageFetcher,
    signal: AbortSignal,
    stop: (reason: CrawlStopReason, detail: string) => void,
  ) {
    this.#settings = settings;
    this.#fetch = fetch;
    this.#signal = signal;
    this.#stop = stop;
  }

  /** The robots.txt crawl delay kept between requests; 0 when there is none. */
  get delayMs(): number {
    return this.#delayMs;
  }

  /** From now on, `delayMs` passes between one request and the next (the first included). */
  keepDelay(delayMs: number): void {
    this.#delayMs = delayMs;
    this.#nextRequestAt = Date.now() + delayMs;
  }

  /**
   * GET for robots.txt and sitemaps, body wanted on 2xx only. Redirects are
   * followed to any origin (RFC 9309 §2.3.1.2 asks it for robots.txt; the
   * rules still apply to our origin, and sitemap entries are filtered by
   * origin), each hop through the SSRF-guarded fetcher.
   */
  async get(url: string, maxBytes: number, keepPartial: boolean): Promise<PageResponse> {
    let current = new URL(url);
    for (let hop = 0; ; hop += 1) {
      const response = await this.request(current, maxBytes, isSuccess, keepPartial);
      if (response.kind !== 'response' || !REDIRECT_STATUSES.has(response.status)) return response;
      const next = redirectTarget(current, response.location);
      if (!next) return failedWith(`HTTP ${response.status} without a usable Location`);
      if (hop >= this.#settings.maxRedirects) {
        return failedWith(`more than ${this.#settings.maxRedirects} redirects`);
      }
      current = next;
    }
  }

  async request(
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
}

export function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

export function redirectTarget(from: URL, location: string | undefined): URL | undefined {
  if (location === undefined || location.trim() === '') return undefined;
  try {
    const next = new URL(location.trim(), from);
    next.hash = '';
    return next;
  } catch {
    return undefined;
  }
}

function failedWith(detail: string): PageResponse {
  return { kind: 'failed', reason: 'connection-failed', detail };
}
