/**
 * robots.txt rules for the crawler (RFC 9309), evaluated with `robots-parser`:
 * a small, dependency-free implementation of the RFC (groups by product
 * token, longest-match precedence between Allow and Disallow, `*` and `$`
 * patterns, percent-encoding normalisation), plus the `Crawl-delay` and
 * `Sitemap` extensions.
 */
import robotsParser from 'robots-parser';

/** The product token our crawler matches in `User-agent:` lines (RFC 9309 §2.2.1). */
export const CRAWLER_USER_AGENT_TOKEN = 'svc-crawler';

/**
 * The most of a robots.txt that is read: RFC 9309 §2.5 asks crawlers to
 * parse at least 500 KiB, and lets them ignore what follows.
 */
export const ROBOTS_MAX_BYTES = 500 * 1024;

/** What robots.txt says about one origin, for our user agent. */
export interface RobotsRules {
  /**
   * Whether the rules let us fetch `url`. False for URLs of another origin
   * (these rules do not cover them) and for anything that is not a URL.
   */
  isAllowed(url: string): boolean;
  /** `Crawl-delay` in seconds for our group (else `*`'s), if any and valid. */
  readonly crawlDelaySeconds: number | undefined;
  /** `Sitemap:` URLs, as written (absolute per the protocol; may name other hosts). */
  readonly sitemaps: readonly string[];
}

/** The robots.txt URL for the origin of `url` (robots.txt only ever lives at the root). */
export function robotsTxtUrl(url: URL): string {
  return new URL('/robots.txt', url.origin).href;
}

/**
 * Parses a robots.txt fetched from `robotsUrl`. Matching uses our product
 * token (`userAgent`, version and comments stripped); a group naming it wins
 * over `*`, as RFC 9309 §2.2.1 requires.
 *
 * @example
 * const rules = parseRobotsTxt('https://example.com/robots.txt', 'User-agent: *\nDisallow: /private/');
 * rules.isAllowed('https://example.com/private/x'); // false
 */
export function parseRobotsTxt(
  robotsUrl: string,
  body: string,
  userAgent: string = CRAWLER_USER_AGENT_TOKEN,
): RobotsRules {
  const robots = robotsParser(robotsUrl, body);
  const token = productToken(userAgent);
  const delay = robots.getCrawlDelay(token);
  return {
    isAllowed: (url) => {
      if (!URL.canParse(url)) return false;
      // robots-parser answers `undefined` for URLs of another origin: not ours to allow.
      return robots.isAllowed(url, token) === true;
    },
    crawlDelaySeconds:
      typeof delay === 'number' && Number.isFinite(delay) && delay >= 0 ? delay : undefined,
    sitemaps: robots.getSitemaps(),
  };
}

/**
 * No robots.txt (any 4xx, RFC 9309 §2.3.1.3): everything on the origin may be
 * crawled.
 */
export function allowAllRobots(origin: URL): RobotsRules {
  return {
    isAllowed: (url) => URL.canParse(url) && new URL(url).origin === origin.origin,
    crawlDelaySeconds: undefined,
    sitemaps: [],
  };
}

/**
 * robots.txt could not be read (5xx, network failure, RFC 9309 §2.3.1.4):
 * the crawler must assume it disallows everything.
 */
export function disallowAllRobots(): RobotsRules {
  return { isAllowed: () => false, crawlDelaySeconds: undefined, sitemaps: [] };
}

/** `svc-crawler/1.0 (+https://…)` → `svc-crawler`: robots.txt groups name product tokens only. */
function productToken(userAgent: string): string {
  return userAgent.trim().split(/[\s/]/, 1)[0] ?? userAgent;
}
