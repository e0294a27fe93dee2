import {
  allowAllRobots,
  CRAWLER_USER_AGENT_TOKEN,
  disallowAllRobots,
  parseRobotsTxt,
  robotsTxtUrl,
} from '../../../../layers/core/adapters/parsing/robots';

const ROBOTS_URL = 'https://example.com/robots.txt';

describe('Function: parseRobotsTxt', () => {
  it('applies the * group when none names our crawler', () => {
    // Prepare
    const body = 'User-agent: *\nDisallow: /private/\nAllow: /private/public-page\n';

    // Act
    const rules = parseRobotsTxt(ROBOTS_URL, body);

    // Assess
    expect(rules.isAllowed('https://example.com/')).toBe(true);
    expect(rules.isAllowed('https://example.com/private/secret')).toBe(false);
    // Longest match wins (RFC 9309 §2.2.2).
    expect(rules.isAllowed('https://example.com/private/public-page')).toBe(true);
  });

  it('prefers the group naming svc-crawler, matched by product token and case-insensitively', () => {
    const body = [
      'User-agent: *',
      'Disallow: /',
      '',
      'User-agent: SVC-Crawler',
      'Disallow: /drafts/',
      'Crawl-delay: 2.5',
    ].join('\n');

    const rules = parseRobotsTxt(ROBOTS_URL, body, 'svc-crawler/1.0 (+https://svc.example)');

    expect(rules.isAllowed('https://example.com/docs')).toBe(true);
    expect(rules.isAllowed('https://example.com/drafts/x')).toBe(false);
    expect(rules.crawlDelaySeconds).toBe(2.5);
  });

  it('understands * and $ patterns', () => {
    const rules = parseRobotsTxt(
      ROBOTS_URL,
      'User-agent: *\nDisallow: /*.pdf$\nDisallow: /*?session=\n',
    );

    expect(rules.isAllowed('https://example.com/files/report.pdf')).toBe(false);
    expect(rules.isAllowed('https://example.com/files/report.pdf?download=1')).toBe(true);
    expect(rules.isAllowed('https://example.com/page?session=abc')).toBe(false);
    expect(rules.isAllowed('https://example.com/page?lang=en')).toBe(true);
  });

  it('lists the Sitemap lines', () => {
    const rules = parseRobotsTxt(
      ROBOTS_URL,
      'Sitemap: https://example.com/sitemap_index.xml\nUser-agent: *\nDisallow:\nSitemap: https://cdn.example.net/sm.xml\n',
    );

    expect(rules.sitemaps).toEqual([
      'https://example.com/sitemap_index.xml',
      'https://cdn.example.net/sm.xml',
    ]);
    expect(rules.crawlDelaySeconds).toBeUndefined();
  });

  it('ignores an invalid crawl delay', () => {
    const rules = parseRobotsTxt(ROBOTS_URL, 'User-agent: *\nCrawl-delay: soon\n');
    expect(rules.crawlDelaySeconds).toBeUndefined();
  });

  it('allows nothing on another origin, and nothing that is not a URL', () => {
    const rules = parseRobotsTxt(ROBOTS_URL, 'User-agent: *\nDisallow:\n');

    expect(rules.isAllowed('https://example.com/a')).toBe(true);
    expect(rules.isAllowed('https://other.example.com/a')).toBe(false);
    expect(rules.isAllowed('http://example.com/a')).toBe(false);
    expect(rules.isAllowed('not a url')).toBe(false);
  });

  it('uses svc-crawler as the product token by default', () => {
    const rules = parseRobotsTxt(
      ROBOTS_URL,
      `User-agent: ${CRAWLER_USER_AGENT_TOKEN}\nDisallow: /\n`,
    );
    expect(rules.isAllowed('https://example.com/')).toBe(false);
  });
});

describe('Function: allowAllRobots / disallowAllRobots', () => {
  it('allows the whole origin and nothing else when there is no robots.txt', () => {
    const rules = allowAllRobots(new URL('https://example.com/start'));
    expect(rules.isAllowed('https://example.com/anything')).toBe(true);
    expect(rules.isAllowed('https://example.org/')).toBe(false);
  });

  it('allows nothing when robots.txt is unreachable', () => {
    expect(disallowAllRobots().isAllowed('https://example.com/')).toBe(false);
  });
});

describe('Function: robotsTxtUrl', () => {
  it('is /robots.txt at the origin', () => {
    expect(robotsTxtUrl(new URL('http://example.com:8080/a/b?c#d'))).toBe(
      'http://example.com:8080/robots.txt',
    );
  });
});
