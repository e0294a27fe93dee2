import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import {
  CRAWLER_DEFAULTS,
  type CrawlResult,
  type CrawlWebsiteOptions,
  crawlWebsite,
} from '../../../layers/core/adapters/crawler/website-crawler';
import { crawlerPolicy } from '../../../layers/core/adapters/net/outbound-policy';
import { brotliBomb, deflateBomb, gzipBomb } from '../../support/hostile-files';
import { type LocalReceiver, startHttpReceiver } from '../net/local-receivers';

const MiB = 1024 * 1024;
const localPolicy = crawlerPolicy({ allowPrivateAddresses: true });

type Route = (res: ServerResponse, path: string) => void;

const page = (title: string, links: readonly string[] = [], filler = '') =>
  `<!doctype html><html><head><title>${title}</title></head><body><nav>${links
    .map((href) => `<a href="${href}">${href}</a>`)
    .join(' ')}</nav><h1>${title}</h1><p>Text of ${title}. ${filler}</p></body></html>`;

const compressed =
  (encoding: 'gzip' | 'br' | 'deflate', body: Buffer): Route =>
  (res) =>
    res.writeHead(200, { 'Content-Type': 'text/html', 'Content-Encoding': encoding }).end(body);

/**
 * Issue 13 / P98: a crawl is bounded per page (size, decompression ratio,
 * time, redirects) and per sync (bytes read, time); loopback servers serve
 * the traps.
 */
describe('Crawl budgets (issue 13, P98)', () => {
  const receivers: LocalReceiver[] = [];
  const timers = new Set<NodeJS.Timeout>();
  afterEach(async () => {
    for (const timer of timers) clearInterval(timer);
    timers.clear();
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  });

  /** A loopback site without robots.txt or sitemap; `fallback` answers paths not in `routes`; bytes written are counted. */
  async function startSite(
    routes: Record<string, Route | string>,
    fallback?: Route,
  ): Promise<{ origin: string; sent: () => number; paths: () => string[] }> {
    let sent = 0;
    const receiver = await startHttpReceiver((request, res) => {
      const write = res.write.bind(res);
      const end = res.end.bind(res);
      res.write = ((chunk: Buffer | string, ...rest: never[]) => {
        sent += Buffer.byteLength(chunk);
        return write(chunk, ...rest);
      }) as typeof res.write;
      res.end = ((chunk?: Buffer | string, ...rest: never[]) => {
        if (chunk && typeof chunk !== 'function') sent += Buffer.byteLength(chunk);
        return end(chunk as never, ...rest);
      }) as typeof res.end;
      const route = routes[request.url];
      if (request.url === '/robots.txt' || request.url === '/sitemap.xml') {
        res.writeHead(404).end();
      } else if (typeof route === 'string') {
        res.writeHead(200, { 'Content-Type': 'text/html' }).end(route);
      } else if (route) route(res, request.url);
      else if (fallback) fallback(res, request.url);
      else res.writeHead(404).end();
    });
    receivers.push(receiver);
    return {
      origin: `http://127.0.0.1:${receiver.port}`,
      sent: () => sent,
      paths: () => receiver.received.map((request) => request.url),
    };
  }

  async function crawl(startUrl: string, options: Partial<CrawlWebsiteOptions> = {}) {
    const results: CrawlResult[] = [];
    for await (const result of crawlWebsite({
      startUrl,
      maxPages: 10_000,
      policy: localPolicy,
      timeoutMs: 5_000,
      ...options,
    })) {
      results.push(result);
    }
    return results;
  }

  const outcomes = (results: readonly CrawlResult[]) =>
    Object.fromEntries(
      results.map((result) => [
        result.url,
        result.status === 'ok' ? 'ok' : `${result.status}/${result.reason}: ${result.detail}`,
      ]),
    );

  it('stops gzip, brotli and deflate bombs at the decompression ratio, and reads ordinary compressed pages', async () => {
    // Prepare: 1 GiB of gzip (1 MB on the wire), 16 MiB of brotli (tens of bytes), 16 MiB of deflate
    const gzip = gzipBomb(1024 * MiB);
    const ordinary = page('Ordinary', [], randomBytes(2 * MiB).toString('base64'));
    const site = await startSite({
      '/': page('Home', ['/gzip', '/br', '/deflate', '/ordinary']),
      '/gzip': compressed('gzip', gzip),
      '/br': compressed('br', brotliBomb(16 * MiB)),
      '/deflate': compressed('deflate', deflateBomb(16 * MiB)),
      '/ordinary': compressed('gzip', gzipSync(ordinary)),
    });

    // Act
    const results = await crawl(`${site.origin}/`, { maxPageBytes: 5 * MiB });

    // Assess
    const byUrl = outcomes(results);
    expect(byUrl[`${site.origin}/`]).toBe('ok');
    expect(byUrl[`${site.origin}/ordinary`]).toBe('ok');
    for (const [path, encoding] of [
      ['/gzip', 'gzip'],
      ['/br', 'br'],
      ['/deflate', 'deflate'],
    ]) {
      expect(byUrl[`${site.origin}${path}`]).toMatch(
        new RegExp(
          `^skipped/compression-bomb: its ${encoding} body decompresses more than 100 times \\(\\d+ bytes from \\d+\\)$`,
        ),
      );
    }
    // The ratio tripped after about 1 MiB decoded: a few KB of the 1 MB gzip body were needed.
    const gzipResult = results.find((result) => result.url === `${site.origin}/gzip`);
    const decoded = Number(/\((\d+) bytes/.exec(JSON.stringify(gzipResult))?.[1]);
    expect(decoded).toBeLessThan(2 * MiB);
    expect(CRAWLER_DEFAULTS.maxDecompressionRatio).toBe(100);
  });

  it('ends the crawl at its byte budget on a site of endless pages, saying so last', async () => {
    // Prepare: every /page/n is 100 KB and links to /page/n+1, without end
    const filler = 'lorem ipsum '.repeat(8_500);
    const site = await startSite({ '/': page('Start', ['/page/1']) }, (res, path) => {
      const n = Number(path.split('/').at(-1)) || 0;
      res
        .writeHead(200, { 'Content-Type': 'text/html' })
        .end(page(`Page ${n}`, [`/page/${n + 1}`], filler));
    });

    // Act
    const results = await crawl(`${site.origin}/`, { maxTotalBytes: 2 * MiB, concurrency: 2 });

    // Assess
    const last = results.at(-1);
    expect(last).toEqual({
      status: 'stopped',
      url: `${site.origin}/`,
      reason: 'byte-budget',
      detail: `the crawl read its limit of ${2 * MiB} bytes of responses`,
    });
    const pages = results.filter((result) => result.status === 'ok').length;
    expect(pages).toBeGreaterThan(10);
    expect(pages).toBeLessThan(30);
    // At most one page per request in flight past the budget.
    expect(site.sent()).toBeLessThan(2 * MiB + 3 * 110_000 + 10_000);
  });

  it('ends the crawl at its time limit on a site that drips its pages, abandoning requests in flight', async () => {
    // Prepare: every page sends a byte every 50 ms and never ends
    const site = await startSite({}, (res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.write('<html><body><p>');
      const timer = setInterval(() => {
        if (res.destroyed) clearInterval(timer);
        else res.write('x');
      }, 50);
      timers.add(timer);
    });

    // Act
    const results = await crawl(`${site.origin}/`, { maxDurationMs: 1_000, timeoutMs: 60_000 });

    // Assess
    expect(results).toEqual([
      {
        status: 'stopped',
        url: `${site.origin}/`,
        reason: 'time-budget',
        detail: 'the crawl reached its time limit of 1 s',
      },
    ]);
  });

  it('gives up on one slow page at the request deadline and carries on', async () => {
    const site = await startSite(
      { '/': page('Home', ['/drip', '/fine']), '/fine': page('Fine') },
      (res) => {
        res.writeHead(200, { 'Content-Type': 'text/html' });
        const timer = setInterval(() => {
          if (res.destroyed) clearInterval(timer);
          else res.write('x');
        }, 20);
        timers.add(timer);
      },
    );

    const results = await crawl(`${site.origin}/`, { timeoutMs: 500 });

    expect(outcomes(results)).toEqual({
      [`${site.origin}/`]: 'ok',
      [`${site.origin}/fine`]: 'ok',
      [`${site.origin}/drip`]: 'skipped/timeout: no complete response within 500 ms',
    });
  });

  it('follows no more than the redirect limit through an endless chain of new addresses', async () => {
    const site = await startSite({}, (res, path) => {
      const n = Number(path.split('/').at(-1)) || 0;
      res.writeHead(302, { Location: `/hop/${n + 1}` }).end();
    });

    const results = await crawl(`${site.origin}/hop/0`);

    expect(outcomes(results)).toEqual({
      [`${site.origin}/hop/0`]: `skipped/too-many-redirects: more than ${CRAWLER_DEFAULTS.maxRedirects} redirects`,
    });
    expect(site.paths().filter((path) => path.startsWith('/hop/'))).toHaveLength(
      CRAWLER_DEFAULTS.maxRedirects + 1,
    );
  });
});
