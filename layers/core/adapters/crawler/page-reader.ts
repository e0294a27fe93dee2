import type { ParsedDocument } from '../../ports/document.port';
import type { OutboundPolicy } from '../net/outbound-policy';
import { parseOutboundUrl } from '../net/url-guard';
import { DocumentTooComplexError } from '../parsing/errors';
import { textToDocument } from '../parsing/file-parsers';
import type { RobotsRules } from '../parsing/robots';
import { charsetOf, decodeHtml, decodeText, mediaTypeOf } from '../parsing/text-decoding';
import {
  type CrawlRequester,
  isSuccess,
  REDIRECT_STATUSES,
  redirectTarget,
} from './crawl-requester';
import { type CrawlResult, type CrawlSkipReason, contentHashOf, skipped } from './crawl-results';
import { type CrawlSettings, inProcessPageParser, type PageParser } from './crawl-settings';

/** What one page task ends with: its result, and the links it found if it was parsed. */
export type PageOutcome = { readonly result: CrawlResult; readonly links: readonly string[] };

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

export interface PageReaderScope {
  /** The crawled site: scheme, host and port. */
  readonly origin: string;
  readonly robots: RobotsRules;
  /** Every URL queued or reached by a redirect; a redirect adds its target. */
  readonly seen: Set<string>;
  readonly policy: OutboundPolicy;
  readonly parsePage?: PageParser;
}

/**
 * Reads one page of the crawled site: requests it, follows its redirects
 * by hand (each hop checked for origin, robots.txt and the outbound-address
 * guard again), and turns
 * an HTML or plain-text body into a document and the links to follow.
 */
export class PageReader {
  readonly #requester: CrawlRequester;
  readonly #settings: CrawlSettings;
  readonly #scope: PageReaderScope;

  constructor(requester: CrawlRequester, settings: CrawlSettings, scope: PageReaderScope) {
    this.#requester = requester;
    this.#settings = settings;
    this.#scope = scope;
  }

  /** Fetches and parses one page, following redirects; every failure becomes a result. */
  async read(url: string): Promise<PageOutcome> {
    try {
      return await this.#fetchAndParse(url);
    } catch (error) {
      // A pathological document, or a parser bug, must not end the crawl.
      const detail =
        error instanceof DocumentTooComplexError
          ? error.message
          : `could not be parsed (${error instanceof Error ? error.name : 'error'})`;
      return { result: skipped(url, 'unparseable', detail), links: [] };
    }
  }

  async #fetchAndParse(url: string): Promise<PageOutcome> {
    const { origin, robots, seen, policy } = this.#scope;
    const none = (reason: CrawlSkipReason, detail: string): PageOutcome => ({
      result: skipped(url, reason, detail),
      links: [],
    });
    let current = new URL(url);
    const chain = new Set([url]);
    for (let hops = 0; ; hops += 1) {
      const response = await this.#requester.request(
        current,
        this.#settings.maxPageBytes,
        wantsPageBody,
      );
      if (response.kind === 'failed') {
        return none(
          response.reason === 'aborted' ? 'connection-failed' : response.reason,
          response.detail,
        );
      }
      if (response.kind === 'compression-bomb') return none('compression-bomb', response.detail);
      const { status, contentType } = response;
      if (response.kind === 'too-large') {
        return none('too-large', `larger than ${this.#settings.maxPageBytes} bytes`);
      }
      if (REDIRECT_STATUSES.has(status)) {
        const next = redirectTarget(current, response.location);
        if (!next) return none('http-error', `HTTP ${status} without a usable Location`);
        if (next.origin !== origin) {
          return none(
            'redirect-off-origin',
            `redirects to ${next.origin}, outside the crawled site ${origin}; use that address as the source URL to crawl it`,
          );
        }
        if (hops >= this.#settings.maxRedirects) {
          return none('too-many-redirects', `more than ${this.#settings.maxRedirects} redirects`);
        }
        if (chain.has(next.href)) return none('too-many-redirects', 'redirect loop');
        chain.add(next.href);
        // The SSRF check again for the hop: the scheme here; the address when the guarded lookup connects.
        const allowed = parseOutboundUrl(next.href, policy);
        if (!allowed.ok) return none('address-refused', allowed.reason);
        if (!robots.isAllowed(next.href)) {
          return none('disallowed', `redirects to ${next.href}, which robots.txt does not allow`);
        }
        if (seen.has(next.href)) {
          return none(
            'duplicate',
            `redirects to ${next.href}, which is crawled under its own address`,
          );
        }
        seen.add(next.href);
        current = next;
        continue;
      }
      if (status === 404 || status === 410) return none('gone', `HTTP ${status}`);
      if (!isSuccess(status)) return none('http-error', `HTTP ${status}`);
      return await this.#parse(url, current, contentType, response.body, none);
    }
  }

  async #parse(
    requested: string,
    final: URL,
    contentType: string | undefined,
    body: Buffer,
    none: (reason: CrawlSkipReason, detail: string) => PageOutcome,
  ): Promise<PageOutcome> {
    const mediaType = mediaTypeOf(contentType) ?? (looksLikeHtml(body) ? 'text/html' : undefined);
    let document: ParsedDocument;
    let links: string[] = [];
    if (mediaType !== undefined && HTML_TYPES.has(mediaType)) {
      const parsePage = this.#scope.parsePage ?? inProcessPageParser;
      const page = await parsePage(decodeHtml(body, contentType), final.href);
      ({ document, links } = page);
      if (page.linkIndex.mostlyLinks) {
        const { linkShare, links: count, sentences } = page.linkIndex;
        return {
          result: skipped(
            requested,
            'link-index',
            `mostly links (${Math.round(linkShare * 100)}% of its text is in ${count} links, ${sentences} sentence(s) of prose): its links are followed, the page is not indexed`,
          ),
          links,
        };
      }
    } else if (mediaType === 'text/plain') {
      const text = decodeText(body, charsetOf(contentType));
      document = textToDocument(text, lastSegmentOf(final), final.href);
    } else {
      return none('not-html', `content type ${safeMediaType(mediaType)} is not crawled`);
    }
    return {
      result: {
        status: 'ok',
        url: final.href,
        ...(final.href !== requested ? { redirectedFrom: requested } : {}),
        document,
        contentHash: contentHashOf(document),
      },
      links,
    };
  }
}

/** `/notes/todo.txt` → `todo.txt` (decoded), else the host: the title of a plain-text page. */
function lastSegmentOf(url: URL): string {
  const segment = url.pathname.split('/').filter(Boolean).at(-1);
  if (segment === undefined) return url.host;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Bodies worth reading: 2xx pages that may be HTML or text (unlabelled ones are sniffed). */
function wantsPageBody(status: number, contentType: string | undefined): boolean {
  if (!isSuccess(status)) return false;
  const mediaType = mediaTypeOf(contentType);
  return mediaType === undefined || HTML_TYPES.has(mediaType) || mediaType === 'text/plain';
}

/** An unlabelled body that starts like HTML (after a BOM and whitespace). */
function looksLikeHtml(body: Buffer): boolean {
  const head = body
    .subarray(0, 512)
    .toString('latin1')
    .replace(/^\u00ef\u00bb\u00bf/, '')
    .trimStart();
  return /^<(?:!doctype html|html[\s>]|head[\s>]|body[\s>])/i.test(head);
}

function safeMediaType(mediaType: string | undefined): string {
  if (mediaType === undefined) return '(none)';
  return /^[\w.+-]{1,64}\/[\w.+-]{1,64}$/.test(mediaType) ? mediaType : '(unrecognised)';
}
