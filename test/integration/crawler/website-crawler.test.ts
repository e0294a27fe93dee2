import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import {
  type CrawlResult,
  type CrawlWebsiteOptions,
  crawlWebsite,
  inProcessPageParser,
} from '../../../layers/core/adapters/crawler/website-crawler';
import { crawlerPolicy, type Resolver } from '../../../layers/core/adapters/net/outbound-policy';
import {
  type LocalReceiver,
  type ReceivedRequest,
  startHttpReceiver,
  startHttpsReceiver,
  TEST_CA,
} from '../net/local-receivers';

/** Loopback sites are private addresses: the crawl runs with SVC_ALLOW_PRIVATE_URLS semantics. */
const localPolicy = crawlerPolicy({ allowPrivateAddresses: true });

type Route = (request: ReceivedRequest, res: ServerResponse) => void;

interface LoopbackSite {
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
const page = (title: string, text: string, links: readonly string[] = []) =>
  `<!doctype html><html><head><title>${title}</title></head><body>
  <nav><a href="/">Home</a> ${links.map((href) => `<a href="${href}">${href}</a>`).join(' ')}</nav>
  <main><h1>${title}</h1><p>${text}</p></main>
  <footer>© Loopback</footer></body></html>`;

const html =
  (body: string, status = 200, headers: Record<string, string> = {}): Route =>
  (_request, res) =>
    res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', ...headers }).end(body);

const redirect =
  (location: string, status = 301): Route =>
  (_request, res) =>
    res.writeHead(status, { Location: location }).end();

const status =
  (code: number): Route =>
  (_request, res) =>
    res.writeHead(code, { 'Content-Type': 'text/plain' }).end(`status ${code}`);

const sitemap = (origin: string, paths: readonly string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths
    .map((path) => `<url><loc>${origin}${path}</loc></url>`)
    .join('')}</urlset>`;

describe('Function: crawlWebsite', () => {
  const sites: LoopbackSite[] = [];
  afterEach(async () => {
    await Promise.all(sites.splice(0).map((site) => site.receiver.close()));
  });

  /** A loopback website; a route given as a string is an HTML page. Unknown paths are 404. */
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
    sites.push(site);
    return site;
  }

  async function crawl(
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

  const byUrl = (results: readonly CrawlResult[]) =>
    Object.fromEntries(
      results.map((result) => [
        result.url,
        result.status === 'ok' ? 'ok' : `${result.reason}: ${result.detail}`,
      ]),
    );

  it('reads robots.txt first, seeds from the sitemap, follows links, and skips what robots.txt disallows', async () => {
    // Prepare
    const other = await startSite(() => ({ '/': page('Other', 'Elsewhere') }));
    const site = await startSite((origin) => ({
      '/robots.txt': (_request, res) =>
        res
          .writeHead(200, { 'Content-Type': 'text/plain' })
          .end(`User-agent: *\nDisallow: /private/\n\nSitemap: ${origin}/sitemap.xml\n`),
      '/sitemap.xml': (_request, res) =>
        res
          .writeHead(200, { 'Content-Type': 'application/xml' })
          .end(sitemap(origin, ['/', '/from-sitemap'])),
      '/': page('Home', 'Welcome', [
        '/a',
        '/private/secret',
        '/b#section',
        `${other.origin}/`,
        '/files/manual.pdf',
        'mailto:team@example.com',
      ]),
      '/a': page('A', 'Page A', ['/b', '/a/child']),
      '/b': page('B', 'Page B'),
      '/a/child': page('Child', 'Child page', ['/a']),
      '/from-sitemap': page('Only in the sitemap', 'Not linked anywhere'),
      '/private/secret': page('Secret', 'Must not be fetched'),
    }));

    // Act
    const results = await crawl(`${site.origin}/`);

    // Assess
    expect(byUrl(results)).toEqual({
      [`${site.origin}/`]: 'ok',
      [`${site.origin}/from-sitemap`]: 'ok',
      [`${site.origin}/a`]: 'ok',
      [`${site.origin}/b`]: 'ok',
      [`${site.origin}/a/child`]: 'ok',
      [`${site.origin}/private/secret`]: 'disallowed: robots.txt does not allow this URL',
      [`${site.origin}/files/manual.pdf`]: 'not-html: not fetched: a pdf file',
    });
    expect(site.paths()[0]).toBe('/robots.txt');
    expect(site.paths()).not.toContain('/private/secret');
    expect(site.paths()).not.toContain('/files/manual.pdf');
    expect(site.paths().filter((path) => path === '/b')).toHaveLength(1);
    expect(other.paths()).toEqual([]);
    expect(site.receiver.received[0]?.headers['user-agent']).toBe('svc-crawler/1.0');

    const home = results.find((result) => result.url === `${site.origin}/`);
    expect(home).toMatchObject({
      status: 'ok',
      document: {
        title: 'Home',
        url: `${site.origin}/`,
        sections: [{ headingPath: ['Home'], paragraphs: ['Welcome'] }],
      },
      contentHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('obeys a group for svc-crawler and /sitemap.xml without a Sitemap line', async () => {
    const site = await startSite((origin) => ({
      '/robots.txt': (_request, res) =>
        res
          .writeHead(200)
          .end('User-agent: *\nDisallow:\n\nUser-agent: svc-crawler\nDisallow: /drafts\n'),
      '/sitemap.xml': (_request, res) =>
        res
          .writeHead(200, { 'Content-Type': 'text/xml' })
          .end(sitemap(origin, ['/drafts/x', '/published'])),
      '/': page('Home', 'Home'),
      '/published': page('Published', 'Public'),
      '/drafts/x': page('Draft', 'Not yet'),
    }));

    const results = await crawl(`${site.origin}/`);

    expect(byUrl(results)).toEqual({
      [`${site.origin}/`]: 'ok',
      [`${site.origin}/published`]: 'ok',
      [`${site.origin}/drafts/x`]: 'disallowed: robots.txt does not allow this URL',
    });
  });

  it('crawls everything when robots.txt does not exist, and nothing when it cannot be read (RFC 9309)', async () => {
    // Prepare
    const open = await startSite(() => ({ '/': page('Home', 'x', ['/a']), '/a': page('A', 'y') }));
    const broken = await startSite(() => ({ '/robots.txt': status(503), '/': page('Home', 'x') }));

    // Act
    const openResults = await crawl(`${open.origin}/`);
    const brokenResults = await crawl(`${broken.origin}/`);

    // Assess
    expect(openResults.map((result) => result.status)).toEqual(['ok', 'ok']);
    expect(brokenResults).toEqual([
      {
        status: 'skipped',
        url: `${broken.origin}/`,
        reason: 'disallowed',
        detail: 'robots.txt answered HTTP 503, so nothing may be crawled (RFC 9309)',
      },
    ]);
    expect(broken.paths()).toEqual(['/robots.txt']);
  });

  it('reads the first 500 KiB of an oversized robots.txt (RFC 9309 §2.5)', async () => {
    // Prepare
    const padding = '# padding line\n'.repeat(40_000); // 600 KB
    const site = await startSite(() => ({
      '/robots.txt': (_request, res) =>
        res
          .writeHead(200, { 'Content-Type': 'text/plain' })
          .end(`User-agent: *\nDisallow: /early/\n${padding}Disallow: /late/\n`),
      '/': page('Home', 'x', ['/early/page', '/late/page']),
      '/late/page': page('Late', 'Past the cap'),
    }));

    // Act
    const results = await crawl(`${site.origin}/`);

    // Assess
    expect(byUrl(results)).toEqual({
      [`${site.origin}/`]: 'ok',
      [`${site.origin}/early/page`]: 'disallowed: robots.txt does not allow this URL',
      [`${site.origin}/late/page`]: 'ok',
    });
  });

  it('refuses a start URL that redirects to another origin, naming it', async () => {
    const canonical = await startSite(() => ({ '/': page('Canonical', 'The real site') }));
    const site = await startSite(() => ({ '/': redirect(`${canonical.origin}/`) }));

    const results = await crawl(`${site.origin}/`);

    expect(results).toEqual([
      {
        status: 'skipped',
        url: `${site.origin}/`,
        reason: 'redirect-off-origin',
        detail: `redirects to ${canonical.origin}, outside the crawled site ${site.origin}; use that address as the source URL to crawl it`,
      },
    ]);
    expect(canonical.paths()).toEqual([]);
  });

  it('follows same-origin redirects and refuses other origins and long chains', async () => {
    // Prepare
    const other = await startSite(() => ({ '/landing': page('Landing', 'Other origin') }));
    const site = await startSite(() => ({
      '/': page('Home', 'Links', ['/old', '/away', '/loop/0', '/to-new', '/ping']),
      '/ping': redirect('/pong'),
      '/pong': redirect('/ping'),
      '/old': redirect('/older', 302),
      '/older': redirect('/new', 308),
      '/new': page('New', 'Moved here'),
      '/to-new': redirect('/new'),
      '/away': redirect(`${other.origin}/landing`),
      ...Object.fromEntries(
        Array.from({ length: 10 }, (_, hop) => [`/loop/${hop}`, redirect(`/loop/${hop + 1}`)]),
      ),
    }));

    // Act: one at a time, so which of the two redirects to /new comes first is known.
    const results = await crawl(`${site.origin}/`, { maxRedirects: 5, concurrency: 1 });

    // Assess
    expect(byUrl(results)).toEqual({
      [`${site.origin}/`]: 'ok',
      [`${site.origin}/new`]: 'ok',
      [`${site.origin}/away`]: `redirect-off-origin: redirects to ${other.origin}, outside the crawled site ${site.origin}; use that address as the source URL to crawl it`,
      [`${site.origin}/loop/0`]: 'too-many-redirects: more than 5 redirects',
      [`${site.origin}/to-new`]: `duplicate: redirects to ${site.origin}/new, which is crawled under its own address`,
      [`${site.origin}/ping`]: 'too-many-redirects: redirect loop',
    });
    expect(results.find((result) => result.url === `${site.origin}/new`)).toMatchObject({
      status: 'ok',
      redirectedFrom: `${site.origin}/old`,
      document: { title: 'New', url: `${site.origin}/new` },
    });
    expect(other.paths()).toEqual([]);
    expect(site.paths()).not.toContain('/loop/6');
  });

  it('tells a page that changed or disappeared between two crawls', async () => {
    // Prepare
    let nonce = 0;
    const site = await startSite(() => ({
      '/': page('Home', 'Index', ['/news', '/stable', '/temporary', '/retired']),
      '/news': page('News', 'Version one'),
      // Only the markup changes between requests: not a change of content.
      '/stable': (_request, res) => {
        nonce += 1;
        html(
          `<html><head><script>var nonce=${nonce}</script><title>Stable</title></head><body><p>Same text</p></body></html>`,
        )(_request, res);
      },
      '/temporary': page('Temporary', 'Here today'),
      '/retired': page('Retired', 'Here today too'),
    }));
    const first = await crawl(`${site.origin}/`);

    // Act
    site.set({
      '/news': page('News', 'Version two'),
      '/temporary': status(404),
      '/retired': status(410),
    });
    const second = await crawl(`${site.origin}/`);

    // Assess
    const hashOf = (results: CrawlResult[], path: string) => {
      const result = results.find((candidate) => candidate.url === `${site.origin}${path}`);
      return result?.status === 'ok' ? result.contentHash : result?.reason;
    };
    expect(hashOf(second, '/news')).not.toBe(hashOf(first, '/news'));
    expect(hashOf(second, '/stable')).toBe(hashOf(first, '/stable'));
    expect(hashOf(second, '/')).toBe(hashOf(first, '/'));
    expect(byUrl(second)).toMatchObject({
      [`${site.origin}/temporary`]: 'gone: HTTP 404',
      [`${site.origin}/retired`]: 'gone: HTTP 410',
    });
  });

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
    sites.push({
      origin: '',
      receiver,
      paths: () => [],
      maxInFlight: () => 0,
      set: () => undefined,
    });
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

  describe('D35: private addresses when SVC_ALLOW_PRIVATE_URLS is off', () => {
    const publicPolicy = (resolve?: Resolver) =>
      crawlerPolicy({ allowPrivateAddresses: false, ...(resolve ? { resolve } : {}) });

    it('refuses a loopback start URL before any request reaches the server', async () => {
      const site = await startSite(() => ({ '/': page('Home', 'x') }));

      const results = await crawl(`${site.origin}/`, { policy: publicPolicy() });

      expect(results).toEqual([
        {
          status: 'skipped',
          url: `${site.origin}/`,
          reason: 'address-refused',
          detail: 'address 127.0.0.1 is not public (loopback)',
        },
      ]);
      expect(site.receiver.connections()).toBe(0);
    });

    it('refuses a name that resolves to loopback, and known spellings of it', async () => {
      const site = await startSite(() => ({ '/': page('Home', 'x') }));
      const toLoopback: Resolver = async () => ['127.0.0.1'];

      const named = await crawl(`http://site.test:${site.receiver.port}/`, {
        policy: publicPolicy(toLoopback),
      });
      const spelled = await crawl(`http://0x7f.1:${site.receiver.port}/`, {
        policy: publicPolicy(),
      });

      expect(named).toMatchObject([
        {
          status: 'skipped',
          reason: 'address-refused',
          detail: 'host site.test resolves to 127.0.0.1, which is not public (loopback)',
        },
      ]);
      expect(spelled).toMatchObject([{ status: 'skipped', reason: 'address-refused' }]);
      expect(site.receiver.connections()).toBe(0);
    });

    it('checks the address again when connecting (DNS rebinding)', async () => {
      // Prepare: public when the URL is checked, loopback when the socket connects.
      const site = await startSite(() => ({ '/': page('Home', 'x') }));
      let lookups = 0;
      const rebinding: Resolver = async () => {
        lookups += 1;
        return lookups === 1 ? ['93.184.215.14'] : ['127.0.0.1'];
      };

      // Act
      const results = await crawl(`http://rebind.test:${site.receiver.port}/`, {
        policy: publicPolicy(rebinding),
      });

      // Assess
      expect(results).toEqual([
        {
          status: 'skipped',
          url: `http://rebind.test:${site.receiver.port}/`,
          reason: 'address-refused',
          detail: 'address 127.0.0.1 is not public (loopback)',
        },
      ]);
      expect(site.receiver.connections()).toBe(0);
    });

    it('refuses schemes other than http and https, and credentials', async () => {
      expect(await crawl('ftp://example.com/', { policy: publicPolicy() })).toMatchObject([
        {
          status: 'skipped',
          reason: 'address-refused',
          detail: 'scheme ftp is not allowed (allowed: https, http)',
        },
      ]);
      expect(await crawl('https://user:pw@example.com/', { policy: publicPolicy() })).toMatchObject(
        [
          {
            status: 'skipped',
            reason: 'address-refused',
            detail: 'URLs with credentials are not allowed',
          },
        ],
      );
    });
  });
});
