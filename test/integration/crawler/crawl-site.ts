/**
 * The loopback websites the crawler's integration suites crawl: routes,
 * pages, redirects and sitemaps, a site that records every request path and
 * how many it answered at once, and the crawl itself.
 */
import type { ServerResponse } from 'node:http';
import {
  type CrawlResult,
  type CrawlWebsiteOptions,
  crawlWebsite,
} from '../../../layers/core/adapters/crawler/website-crawler';
import { crawlerPolicy } from '../../../layers/core/adapters/net/outbound-policy';
import {
  type LocalReceiver,
  type ReceivedRequest,
  startHttpReceiver,
} from '../net/local-receivers';

/** Loopback sites are private addresses: the crawl runs with SVC_ALLOW_PRIVATE_URLS semantics. */
export const localPolicy = crawlerPolicy({ allowPrivateAddresses: true });

export type Route = (request: ReceivedRequest, res: ServerResponse) => void;

export interface LoopbackSite {
  readonly origin: string;
  readonly receiver: LocalReceiver;
  /** Request paths in arrival order. */
  paths(): string[];
  /** The most requests the site was answering at once. */
  maxInFlight(): number;
  /** Replaces or adds routes (a page that changes or disappears). */
  set(routes: Record<string, Route | string>): void;
}

/** An HTML page linking to `links` from its navigation (in its content, a short page of links is a link index, P123). */
export const page = (title: string, text: string, links: readonly string[] = []) =>
  `<!doctype html><html><head><title>${title}</title></head><body>
  <nav><a href="/">Home</a> ${links.map((href) => `<a href="${href}">${href}</a>`).join(' ')}</nav>
  <main><h1>${title}</h1><p>${text}</p></main>
  <footer>© Loopback</footer></body></html>`;

export const html =
  (body: string, status = 200, headers: Record<string, string> = {}): Route =>
  (_request, res) =>
    res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', ...headers }).end(body);

export const redirect =
  (location: string, status = 301): Route =>
  (_request, res) =>
    res.writeHead(status, { Location: location }).end();

export const status =
  (code: number): Route =>
  (_request, res) =>
    res.writeHead(code, { 'Content-Type': 'text/plain' }).end(`status ${code}`);

export const sitemap = (origin: string, paths: readonly string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths
    .map((path) => `<url><loc>${origin}${path}</loc></url>`)
    .join('')}</urlset>`;

/**
 * Loopback websites for one suite, closed after each test: `startSite` serves
 * one (a route given as a string is an HTML page; unknown paths are 404);
 * `closeAfterTest` takes another receiver the test started.
 */
export function loopbackSites() {
  const receivers: LocalReceiver[] = [];
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  });

  async function startSite(
    routes: (origin: string) => Record<string, Route | string>,
    delayMs = 0,
  ): Promise<LoopbackSite> {
    const table = new Map<string, Route>();
    let inFlight = 0;
    let maxInFlight = 0;
    const receiver = await startHttpReceiver((request, res) => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      res.on('close', () => {
        inFlight -= 1;
      });
      const route = table.get(request.url) ?? status(404);
      if (delayMs === 0) route(request, res);
      else setTimeout(() => route(request, res), delayMs);
    });
    const origin = `http://127.0.0.1:${receiver.port}`;
    const set = (more: Record<string, Route | string>) => {
      for (const [path, route] of Object.entries(more)) {
        table.set(path, typeof route === 'string' ? html(route) : route);
      }
    };
    set(routes(origin));
    const site: LoopbackSite = {
      origin,
      receiver,
      paths: () => receiver.received.map((request) => request.url),
      maxInFlight: () => maxInFlight,
      set,
    };
    receivers.push(receiver);
    return site;
  }

  return { startSite, closeAfterTest: (receiver: LocalReceiver) => receivers.push(receiver) };
}

/** Crawls `startUrl` on loopback (at most 100 pages, 2 s a request) and collects every result. */
export async function crawl(
  startUrl: string,
  options: Partial<CrawlWebsiteOptions> = {},
): Promise<CrawlResult[]> {
  const results: CrawlResult[] = [];
  for await (const result of crawlWebsite({
    startUrl,
    maxPages: 100,
    policy: localPolicy,
    timeoutMs: 2_000,
    ...options,
  })) {
    results.push(result);
  }
  return results;
}

/** Each result by its URL: `ok`, or its reason and detail. */
export const byUrl = (results: readonly CrawlResult[]) =>
  Object.fromEntries(
    results.map((result) => [
      result.url,
      result.status === 'ok' ? 'ok' : `${result.reason}: ${result.detail}`,
    ]),
  );
