import { gzipSync } from 'node:zlib';
import {
  parseSitemap,
  readSitemaps,
  SitemapError,
} from '../../../../layers/core/adapters/parsing/sitemap';

const urlset = (...locs: string[]) =>
  Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${locs.map((loc) => `  <url><loc>${loc}</loc><lastmod>2026-01-01</lastmod><priority>1.0</priority></url>`).join('\n')}
</urlset>`,
  );

const index = (...locs: string[]) =>
  Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${locs.map((loc) => `<sitemap><loc>${loc}</loc></sitemap>`).join('')}
</sitemapindex>`,
  );

describe('Function: parseSitemap', () => {
  it('reads the locations of a urlset, decoding XML entities', () => {
    // Act
    const sitemap = parseSitemap(
      urlset(
        'https://example.com/',
        ' https://example.com/search?q=a&amp;page=2 ',
        'https://example.com/1',
      ),
    );

    // Assess
    expect(sitemap).toEqual({
      kind: 'urlset',
      urls: [
        'https://example.com/',
        'https://example.com/search?q=a&page=2',
        'https://example.com/1',
      ],
    });
  });

  it('reads a single-entry urlset and a sitemap index', () => {
    expect(parseSitemap(urlset('https://example.com/only'))).toEqual({
      kind: 'urlset',
      urls: ['https://example.com/only'],
    });
    expect(
      parseSitemap(index('https://example.com/a.xml', 'https://example.com/b.xml.gz')),
    ).toEqual({
      kind: 'index',
      sitemaps: ['https://example.com/a.xml', 'https://example.com/b.xml.gz'],
    });
  });

  it('drops namespace prefixes, relative and non-http locations', () => {
    const xml = Buffer.from(
      '<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:url><sm:loc>https://example.com/p</sm:loc></sm:url><sm:url><sm:loc>/relative</sm:loc></sm:url><sm:url><sm:loc>ftp://example.com/f</sm:loc></sm:url></sm:urlset>',
    );
    expect(parseSitemap(xml)).toEqual({ kind: 'urlset', urls: ['https://example.com/p'] });
  });

  it('reads gzip by its magic bytes, whatever the name', () => {
    expect(parseSitemap(gzipSync(urlset('https://example.com/zipped')))).toEqual({
      kind: 'urlset',
      urls: ['https://example.com/zipped'],
    });
  });

  it('reads a plain-text sitemap, one URL per line', () => {
    const text = Buffer.from('\ufeffhttps://example.com/a\r\n\nhttps://example.com/b\nnot a url\n');
    expect(parseSitemap(text)).toEqual({
      kind: 'urlset',
      urls: ['https://example.com/a', 'https://example.com/b'],
    });
  });

  it('caps the entries read from one sitemap', () => {
    const many = urlset(...Array.from({ length: 10 }, (_, i) => `https://example.com/${i}`));
    expect(parseSitemap(many, { maxEntries: 3 })).toEqual({
      kind: 'urlset',
      urls: ['https://example.com/0', 'https://example.com/1', 'https://example.com/2'],
    });
  });

  it('refuses a sitemap larger than the cap, and a gzip bomb while inflating', () => {
    const large = urlset(...Array.from({ length: 200 }, (_, i) => `https://example.com/${i}`));
    expect(() => parseSitemap(large, { maxBytes: 1_000 })).toThrow(SitemapError);

    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(100 * 1024);
    expect(() => parseSitemap(bomb, { maxBytes: 1024 * 1024 })).toThrow(
      'sitemap is larger than 1048576 bytes',
    );
  });

  it('refuses what is not a sitemap', () => {
    expect(() => parseSitemap(Buffer.from('<rss><channel></channel></rss>'))).toThrow(
      'not a sitemap',
    );
    expect(() => parseSitemap(Buffer.from([0x1f, 0x8b, 0x00, 0x01]))).toThrow('not valid gzip');
  });
});

describe('Function: readSitemaps', () => {
  const served = (files: Record<string, Buffer>) => {
    const fetched: string[] = [];
    const fetch = async (url: string) => {
      fetched.push(url);
      return files[url];
    };
    return { fetch, fetched };
  };

  it('follows an index to its sitemaps and collects page URLs once each', async () => {
    // Prepare
    const { fetch } = served({
      'https://example.com/sitemap.xml': index(
        'https://example.com/pages.xml',
        'https://example.com/posts.xml.gz',
        'https://other.example.org/foreign.xml',
      ),
      'https://example.com/pages.xml': urlset('https://example.com/', 'https://example.com/about'),
      'https://example.com/posts.xml.gz': gzipSync(
        urlset(
          'https://example.com/about',
          'https://example.com/post/1',
          'https://other.example.org/x',
        ),
      ),
    });

    // Act
    const result = await readSitemaps({
      roots: ['https://example.com/sitemap.xml'],
      fetch,
      accept: (url) => url.startsWith('https://example.com/'),
    });

    // Assess
    expect(result).toEqual({
      urls: ['https://example.com/', 'https://example.com/about', 'https://example.com/post/1'],
      problems: [],
    });
  });

  it('stops after maxSitemaps files, even with nested or looping indexes', async () => {
    const { fetch, fetched } = served({
      'https://example.com/a.xml': index('https://example.com/b.xml', 'https://example.com/a.xml'),
      'https://example.com/b.xml': index('https://example.com/c.xml', 'https://example.com/a.xml'),
      'https://example.com/c.xml': urlset('https://example.com/deep'),
    });

    const result = await readSitemaps({
      roots: ['https://example.com/a.xml'],
      fetch,
      maxSitemaps: 2,
    });

    expect(fetched).toEqual(['https://example.com/a.xml', 'https://example.com/b.xml']);
    expect(result.urls).toEqual([]);
  });

  it('stops at maxUrls page URLs', async () => {
    const { fetch } = served({
      'https://example.com/s.xml': urlset(
        ...Array.from({ length: 10 }, (_, i) => `https://example.com/${i}`),
      ),
    });

    const result = await readSitemaps({ roots: ['https://example.com/s.xml'], fetch, maxUrls: 4 });

    expect(result.urls).toHaveLength(4);
  });

  it('skips sitemaps that cannot be fetched or read, and says why', async () => {
    const { fetch } = served({
      'https://example.com/broken.xml': Buffer.from('<html><body>Not found</body></html>'),
      'https://example.com/good.xml': urlset('https://example.com/ok'),
    });
    const failing = async (url: string) => {
      if (url.endsWith('/throws.xml')) throw new Error('boom');
      return fetch(url);
    };

    const result = await readSitemaps({
      roots: [
        'https://example.com/missing.xml',
        'https://example.com/broken.xml',
        'https://example.com/throws.xml',
        'https://example.com/good.xml',
      ],
      fetch: failing,
    });

    expect(result).toEqual({
      urls: ['https://example.com/ok'],
      problems: [
        { url: 'https://example.com/missing.xml', problem: 'could not be fetched' },
        {
          url: 'https://example.com/broken.xml',
          problem: 'not a sitemap (no <urlset> or <sitemapindex>)',
        },
        { url: 'https://example.com/throws.xml', problem: 'could not be read' },
      ],
    });
  });
});
