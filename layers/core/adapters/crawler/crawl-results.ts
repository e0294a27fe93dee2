import { createHash } from 'node:crypto';
import type { ParsedDocument } from '../../ports/document.port';

/** Why a URL produced no document. */
export const CRAWL_SKIP_REASONS = [
  /** 404 or 410: the page no longer exists (the sync deletes its document). */
  'gone',
  /** robots.txt does not let us fetch it, or could not be read (RFC 9309: then nothing may be fetched). */
  'disallowed',
  /** Larger than `maxPageBytes`. */
  'too-large',
  /** Not HTML or plain text (by `Content-Type`, or by its extension, then not fetched). */
  'not-html',
  /** A redirect to another origin (scheme, host and port). */
  'redirect-off-origin',
  /** More than `maxRedirects` hops. */
  'too-many-redirects',
  /** The address is not public, or the scheme not allowed. */
  'address-refused',
  /** Any other HTTP status, or a redirect without a usable `Location`. */
  'http-error',
  'timeout',
  'connection-failed',
  /** Redirects to a page that is crawled under its own address. */
  'duplicate',
  /** The body could not be turned into a document. */
  'unparseable',
  /** A compressed body that decodes past `maxDecompressionRatio`. */
  'compression-bomb',
  /**
   * The page is mostly links (a home page, a site map, a category
   * list): its links are followed, the page itself is not indexed as an answer.
   */
  'link-index',
] as const;
export type CrawlSkipReason = (typeof CRAWL_SKIP_REASONS)[number];

/** Why a crawl stopped before it had seen the whole site. */
export type CrawlStopReason = 'byte-budget' | 'time-budget';

export type CrawlResult =
  | {
      readonly status: 'ok';
      /** The page's address after same-origin redirects; equals `document.url`. */
      readonly url: string;
      /** The address that was requested, when it redirected. */
      readonly redirectedFrom?: string;
      readonly document: ParsedDocument;
      /** SHA-256 (hex) of the parsed title and text: changes only when the text does, not the markup. */
      readonly contentHash: string;
    }
  | {
      readonly status: 'skipped';
      /** The address that was requested. */
      readonly url: string;
      readonly reason: CrawlSkipReason;
      /** For people: what happened, without response content. */
      readonly detail: string;
    }
  | {
      /**
       * The crawl reached its byte or time budget and ended early: always the
       * last result. What it did not reach may still exist.
       */
      readonly status: 'stopped';
      /** The start URL. */
      readonly url: string;
      readonly reason: CrawlStopReason;
      readonly detail: string;
    };

export function skipped(url: string, reason: CrawlSkipReason, detail: string): CrawlResult {
  return { status: 'skipped', url, reason, detail };
}

export function isLinkIndex(result: CrawlResult): boolean {
  return result.status === 'skipped' && result.reason === 'link-index';
}

/** The hash covers what is indexed, so markup-only changes (a new CSRF token, a rotated ad) do not re-index. */
export function contentHashOf(document: ParsedDocument): string {
  const indexed = JSON.stringify({ title: document.title, sections: document.sections });
  return createHash('sha256').update(indexed).digest('hex');
}
