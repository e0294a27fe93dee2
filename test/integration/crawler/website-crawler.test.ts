import type { CrawlResult } from '../../../layers/core/adapters/crawler/website-crawler';
import { byUrl, crawl, html, loopbackSites, page, redirect, sitemap, status } from './crawl-site';

/** The crawl's order and scope: robots.txt, sitemaps, links, redirects, and pages that change. */
describe('Function: crawlWebsite', () => {
  const { startSite } = loopbackSites();

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
});
