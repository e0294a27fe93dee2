import {
  allowAllRobots,
  parseRobotsTxt,
  ROBOTS_MAX_BYTES,
  type RobotsRules,
  robotsTxtUrl,
} from '../parsing/robots';
import { charsetOf, decodeText } from '../parsing/text-decoding';
import type { CrawlRequester } from './crawl-requester';
import { type CrawlResult, skipped } from './crawl-results';
import type { CrawlSettings } from './crawl-settings';

/**
 * The site's robots.txt rules, or the start URL's result when nothing may be crawled
 * (`refusal`: robots.txt unreachable, or its address refused).
 */
export type RobotsOutcome =
  | { readonly robots: RobotsRules; readonly refusal?: undefined }
  | { readonly refusal: CrawlResult };

/**
 * Loads robots.txt (RFC 9309 §2.3.1): 2xx rules apply; 4xx means no rules;
 * anything else means nothing may be fetched. A `Crawl-delay` (capped at
 * `maxCrawlDelayMs`) is handed to the requester, which then spaces every
 * request by it.
 */
export async function readRobots(
  start: URL,
  requester: CrawlRequester,
  settings: CrawlSettings,
): Promise<RobotsOutcome> {
  const robotsUrl = robotsTxtUrl(start);
  const response = await requester.get(robotsUrl, ROBOTS_MAX_BYTES, true);
  if (response.kind === 'failed') {
    return {
      refusal:
        response.reason === 'address-refused'
          ? skipped(start.href, 'address-refused', response.detail)
          : skipped(
              start.href,
              'disallowed',
              `robots.txt could not be fetched (${response.detail}), so nothing may be crawled`,
            ),
    };
  }
  if (response.kind === 'compression-bomb') {
    return {
      refusal: skipped(
        start.href,
        'disallowed',
        `robots.txt could not be read (${response.detail}), so nothing may be crawled`,
      ),
    };
  }
  // RFC 9309 §2.5: a parser must read at least 500 KiB; what follows may be ignored.
  const body = response.kind === 'too-large' ? response.partialBody : response.body;
  const { status } = response;
  if (status >= 200 && status < 300) {
    const robots = parseRobotsTxt(
      robotsUrl,
      decodeText(body, charsetOf(response.contentType)),
      settings.userAgent,
    );
    const delay = robots.crawlDelaySeconds;
    if (delay !== undefined && delay > 0) {
      requester.keepDelay(Math.min(delay * 1000, settings.maxCrawlDelayMs));
    }
    return { robots };
  }
  // 429 is "come back later", not "no rules": treated like a server error.
  if (status >= 400 && status < 500 && status !== 429) return { robots: allowAllRobots(start) };
  return {
    refusal: skipped(
      start.href,
      'disallowed',
      `robots.txt answered HTTP ${status}, so nothing may be crawled (RFC 9309)`,
    ),
  };
}
