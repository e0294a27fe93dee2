import { gzipSync } from 'node:zlib';
import {
  type CrawlWebsiteOptions,
  crawlWebsite,
  inProcessPageParser,
} from '../../../layers/core/adapters/crawler/website-crawler';
import { crawlerPolicy } from '../../../layers/core/adapters/net/outbound-policy';
import { startHttpsReceiver, TEST_CA } from '../net/local-receivers';
import { byUrl, crawl, html, localPolicy, loopbackSites, page, status } from './crawl-site';

/** What the crawler takes from a page, and the limits it keeps: size, errors, max_pages, concurrency, Crawl-delay, stopping, https. */
describe('Function: crawlWebsite (pages and limits)', () => {
  const { startSite, closeAfterTest } = loopbackSites();

  it('skips pages too large, whether declared, streamed or compressed', async () => {
    // Prepare
    const maxPageBytes = 64 * 1024;
    const big = `<html><body><p>${'x'.repeat(300 * 1024)}</p></body></html>`;
    let streamedBytes = 0;
    const site = await startSite(() => ({
      '/': page('Home', 'Index', ['/declared', '/streamed', '/bomb', '/small-gzip']),
      '/declared': html(big),
      '/streamed': (_request, res) => {
        res.writeHead(200, { 'Content-Type': 'text/html' });
        const chunk = 'y'.repeat(16 * 1024);
        const timer = setInterval(() => {
          if (res.destroyed || streamedBytes > 10 * 1024 * 1024) {
            clearInterval(timer);
            res.end();
            return;
          }
          streamedBytes += chunk.length;
          res.write(chunk);
        }, 1);
      },
      '/bomb': (_request, res) =>
        res
          .writeHead(200, { 'Content-Type': 'text/html', 'Content-Encoding': 'gzip' })
          .end(gzipSync(Buffer.alloc(20 * 1024 * 1024, 0x20))),
      '/small-gzip': (_request, res) =>
        res
          .writeHead(200, { 'Content-Type': 'text/html', 'Content-Encoding': 'gzip' })
          .end(gzipSync(page('Compressed', 'Inflated fine'))),
    }));

    // Act
    const results = await crawl(`${site.origin}/`, { maxPageBytes });

    // Assess
    expect(byUrl(results)).toEqual({
      [`${site.origin}/`]: 'ok',
      [`${site.origin}/declared`]: `too-large: larger than ${maxPageBytes} bytes`,
      [`${site.origin}/streamed`]: `too-large: larger than ${maxPageBytes} bytes`,
      [`${site.origin}/bomb`]: `too-large: larger than ${maxPageBytes} bytes`,
      [`${site.origin}/small-gzip`]: 'ok',
    });
    // Reading stopped near the cap, not at the end of the stream.
    expect(streamedBytes).toBeLessThan(2 * 1024 * 1024);
  });

  it('takes HTML and plain text, sniffs unlabelled HTML, and skips other content types', async () => {
    const site = await startSite(() => ({
      '/': page('Home', 'Index', ['/api/data', '/notes', '/unlabelled', '/image']),
      '/api/data': (_request, res) =>
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"a":1}'),
      '/notes': (_request, res) =>
        res
          .writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' })
          .end('Line one\n\nLine two'),
      '/unlabelled': (_request, res) => {
        res.removeHeader('Content-Type');
        res.writeHead(200).end('<!DOCTYPE html><title>Bare</title><p>No header</p>');
      },
      '/image': (_request, res) =>
        res.writeHead(200, { 'Content-Type': 'image/png' }).end(Buffer.alloc(100)),
    }));

    const results = await crawl(`${site.origin}/`);

    expect(byUrl(results)).toEqual({
      [`${site.origin}/`]: 'ok',
      [`${site.origin}/api/data`]: 'not-html: content type application/json is not crawled',
      [`${site.origin}/notes`]: 'ok',
      [`${site.origin}/unlabelled`]: 'ok',
      [`${site.origin}/image`]: 'not-html: content type image/png is not crawled',
    });
    expect(results.find((result) => result.url.endsWith('/notes'))).toMatchObject({
      document: {
        title: 'notes',
        sections: [{ headingPath: [], paragraphs: ['Line one', 'Line two'] }],
      },
    });
  });

  it('reports server errors and timeouts per page and carries on', async () => {
    const site = await startSite(() => ({
      '/': page('Home', 'Index', ['/error', '/slow', '/fine']),
      '/error': status(500),
      '/slow': () => {
        // Never answers.
      },
      '/fine': page('Fine', 'Still crawled'),
    }));

    const results = await crawl(`${site.origin}/`, { timeoutMs: 300 });

    expect(byUrl(results)).toEqual({
      [`${site.origin}/`]: 'ok',
      [`${site.origin}/error`]: 'http-error: HTTP 500',
      [`${site.origin}/slow`]: 'timeout: no complete response within 300 ms',
      [`${site.origin}/fine`]: 'ok',
    });
  });

  it('stops at max_pages parsed pages', async () => {
    // Prepare: a chain of 50 pages, each also linking to a missing one.
    const site = await startSite(() =>
      Object.fromEntries(
        Array.from({ length: 50 }, (_, index) => [
          index === 0 ? '/' : `/p/${index}`,
          page(`Page ${index}`, 'Text', [`/p/${index + 1}`, `/missing/${index}`]),
        ]),
      ),
    );

    // Act
    const results = await crawl(`${site.origin}/`, { maxPages: 5, concurrency: 3 });

    // Assess
    expect(results.filter((result) => result.status === 'ok')).toHaveLength(5);
    const pageRequests = site
      .paths()
      .filter((path) => path !== '/robots.txt' && path !== '/sitemap.xml');
    // Successful pages, plus at most the missing ones tried alongside them.
    expect(pageRequests.filter((path) => !path.startsWith('/missing/'))).toHaveLength(5);
  });

  it('never has more than `concurrency` requests in flight', async () => {
    // Prepare: 20 pages linked from the start page, each answered after 50 ms.
    const links = Array.from({ length: 20 }, (_, index) => `/page/${index}`);
    const site = await startSite(
      () => ({
        '/': page('Home', 'Index', links),
        ...Object.fromEntries(links.map((link) => [link, page(link, 'Text')])),
      }),
      50,
    );

    // Act
    const results = await crawl(`${site.origin}/`, { concurrency: 3 });

    // Assess
    expect(results.filter((result) => result.status === 'ok')).toHaveLength(21);
    expect(site.maxInFlight()).toBe(3);
  });

  it('parses pages with the parser it is given, as in process (P201)', async () => {
    // Prepare: a parser that records what it parsed (the local runtime gives its parsing process's)
    const links = Array.from({ length: 5 }, (_, index) => `/page/${index}`);
    const site = await startSite(() => ({
      '/': page('Home', 'Index', links),
      ...Object.fromEntries(links.map((link) => [link, page(link, 'Text')])),
    }));
    const parsed: string[] = [];
    const recordingParser: CrawlWebsiteOptions['parsePage'] = async (html, url) => {
      parsed.push(new URL(url).pathname);
      return inProcessPageParser(html, url);
    };

    // Act
    const given = await crawl(`${site.origin}/`, { parsePage: recordingParser });
    const inProcess = await crawl(`${site.origin}/`);

    // Assess
    expect(parsed.sort()).toEqual(['/', ...links].sort());
    expect(given).toEqual(inProcess);
  });

  it('honours Crawl-delay with one request at a time, shortened to maxCrawlDelayMs', async () => {
    // Prepare
    const arrivals: number[] = [];
    const site = await startSite(() => ({
      '/robots.txt': (_request, res) => res.writeHead(200).end('User-agent: *\nCrawl-delay: 60\n'),
      '/': (request, res) => {
        arrivals.push(Date.now());
        html(page('Home', 'x', ['/a', '/b', '/c']))(request, res);
      },
      '/a': page('A', 'a'),
      '/b': page('B', 'b'),
      '/c': page('C', 'c'),
    }));

    // Act
    const started = Date.now();
    const results = await crawl(`${site.origin}/`, { concurrency: 4, maxCrawlDelayMs: 150 });

    // Assess: robots, sitemap, 4 pages = 6 requests, 5 gaps of 150 ms, nothing like 60 s.
    expect(results.filter((result) => result.status === 'ok')).toHaveLength(4);
    expect(site.maxInFlight()).toBe(1);
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(5 * 150 - 20);
    // One uncapped gap would take the site's 60 s: far above anything a busy machine adds.
    expect(elapsed).toBeLessThan(60_000);
  });

  it('stops requesting when the caller stops iterating', async () => {
    const links = Array.from({ length: 20 }, (_, index) => `/page/${index}`);
    const site = await startSite(
      () => ({
        '/': page('Home', 'Index', links),
        ...Object.fromEntries(links.map((link) => [link, page(link, 'Text')])),
      }),
      20,
    );

    let seen = 0;
    for await (const _result of crawlWebsite({
      startUrl: `${site.origin}/`,
      maxPages: 100,
      policy: localPolicy,
      concurrency: 2,
    })) {
      seen += 1;
      if (seen === 3) break;
    }
    // Requests already on the wire may still land; after that, nothing new.
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    await pause(100);
    const requestsAfterStop = site.paths().length;
    await pause(300);

    expect(site.paths().length).toBe(requestsAfterStop);
    expect(requestsAfterStop).toBeLessThan(links.length);
  });

  it('crawls https with a certificate from the policy', async () => {
    // Prepare
    const receiver = await startHttpsReceiver('localhost', (request, res) => {
      if (request.url === '/') html(page('Secure', 'Over TLS', ['/next']))(request, res);
      else if (request.url === '/next') html(page('Next', 'Also TLS'))(request, res);
      else status(404)(request, res);
    });
    closeAfterTest(receiver);
    const policy = crawlerPolicy({
      allowPrivateAddresses: true,
      extraCaCertificates: [TEST_CA],
      resolve: async () => ['127.0.0.1'],
    });

    // Act
    const results = await crawl(`https://localhost:${receiver.port}/`, { policy });

    // Assess
    expect(byUrl(results)).toEqual({
      [`https://localhost:${receiver.port}/`]: 'ok',
      [`https://localhost:${receiver.port}/next`]: 'ok',
    });
    expect(receiver.servernames).toContain('localhost');
  });
});
