/**
 * Sitemaps (sitemaps.org protocol 0.9): `<urlset>` files, `<sitemapindex>`
 * files naming more sitemaps, their gzip'd forms, and plain-text sitemaps
 * (one URL per line, which the protocol allows too).
 *
 * XML is read with `fast-xml-parser`: pure JavaScript, no native parts, widely
 * used and actively maintained, and it never fetches external entities while
 * bounding internal entity expansion by default — what a parser of documents
 * from the internet needs. Namespace prefixes are dropped, so `<sm:urlset>`
 * reads like `<urlset>`.
 */
import { gunzipSync } from 'node:zlib';
import type { XMLParser } from 'fast-xml-parser';

export const SITEMAP_DEFAULTS = {
  /** Largest sitemap read, after decompression (the protocol's own cap is 50 MB; 10 MiB covers ~100,000 URLs). */
  maxBytes: 10 * 1024 * 1024,
  /** Entries read from one sitemap (the protocol allows 50,000). */
  maxEntries: 50_000,
  /** Sitemap files fetched in one crawl, index files included. */
  maxSitemaps: 20,
  /** Page URLs collected across all sitemaps. */
  maxUrls: 50_000,
} as const;

export type ParsedSitemap =
  | { readonly kind: 'urlset'; readonly urls: readonly string[] }
  | { readonly kind: 'index'; readonly sitemaps: readonly string[] };

/** A sitemap that is too large, not XML, or neither a `urlset` nor a `sitemapindex`. */
export class SitemapError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

export interface ParseSitemapOptions {
  /** @default SITEMAP_DEFAULTS.maxBytes */
  readonly maxBytes?: number;
  /** @default SITEMAP_DEFAULTS.maxEntries */
  readonly maxEntries?: number;
}

/**
 * Parses one sitemap: gzip is recognised by its magic bytes (servers label
 * `.xml.gz` files inconsistently), then XML or plain text. Only absolute
 * `http(s)` locations are returned, trimmed, in document order.
 *
 * @throws {SitemapError} when it is too large (checked while decompressing,
 * so a gzip bomb stops at `maxBytes`), unreadable, or not a sitemap.
 *
 * @example
 * parseSitemap(Buffer.from('<urlset><url><loc>https://example.com/a</loc></url></urlset>'));
 * // { kind: 'urlset', urls: ['https://example.com/a'] }
 */
export function parseSitemap(body: Uint8Array, options: ParseSitemapOptions = {}): ParsedSitemap {
  const maxBytes = options.maxBytes ?? SITEMAP_DEFAULTS.maxBytes;
  const maxEntries = options.maxEntries ?? SITEMAP_DEFAULTS.maxEntries;
  const text = decompressed(body, maxBytes)
    .toString('utf8')
    .replace(/^\ufeff/, '');
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('<')) {
    return { kind: 'urlset', urls: httpUrls(trimmed.split(/\r?\n/), maxEntries) };
  }

  let document: unknown;
  try {
    document = sitemapXmlParser().parse(text);
  } catch (error) {
    throw new SitemapError('sitemap is not well-formed XML', { cause: error });
  }
  const root = document as { urlset?: unknown; sitemapindex?: unknown } | null;
  if (root?.urlset !== undefined) {
    return { kind: 'urlset', urls: httpUrls(locations(root.urlset, 'url'), maxEntries) };
  }
  if (root?.sitemapindex !== undefined) {
    return {
      kind: 'index',
      sitemaps: httpUrls(locations(root.sitemapindex, 'sitemap'), maxEntries),
    };
  }
  throw new SitemapError('not a sitemap (no <urlset> or <sitemapindex>)');
}

export interface ReadSitemapsOptions {
  /** Sitemaps to start from (robots.txt `Sitemap:` lines, or `/sitemap.xml`). */
  readonly roots: readonly string[];
  /** Fetches one sitemap's bytes; `undefined` when it cannot be had (the sitemap is skipped). */
  readonly fetch: (url: string) => Promise<Uint8Array | undefined>;
  /** Which URLs (sitemaps and pages alike) to keep, e.g. same origin only. @default all */
  readonly accept?: (url: string) => boolean;
  /** @default SITEMAP_DEFAULTS.maxSitemaps */
  readonly maxSitemaps?: number;
  /** @default SITEMAP_DEFAULTS.maxUrls */
  readonly maxUrls?: number;
  /** @default SITEMAP_DEFAULTS.maxBytes */
  readonly maxBytes?: number;
}

export interface SitemapUrls {
  /** Page URLs, first seen first, without duplicates. */
  readonly urls: readonly string[];
  /** Sitemaps that could not be used, with why, for diagnostics. */
  readonly problems: readonly { readonly url: string; readonly problem: string }[];
}

/**
 * Reads sitemaps breadth first from `roots`, following index files (nested
 * indexes too, although the protocol does not allow them) until
 * `maxSitemaps` files have been fetched or `maxUrls` page URLs collected.
 * Never throws: a sitemap that fails is noted in `problems` and skipped.
 */
export async function readSitemaps(options: ReadSitemapsOptions): Promise<SitemapUrls> {
  const accept = options.accept ?? (() => true);
  const maxSitemaps = options.maxSitemaps ?? SITEMAP_DEFAULTS.maxSitemaps;
  const maxUrls = options.maxUrls ?? SITEMAP_DEFAULTS.maxUrls;
  const queue = options.roots.filter(accept);
  const queued = new Set(queue);
  const urls = new Set<string>();
  const problems: { url: string; problem: string }[] = [];

  let fetched = 0;
  while (queue.length > 0 && fetched < maxSitemaps && urls.size < maxUrls) {
    const url = queue.shift();
    if (url === undefined) break;
    fetched += 1;
    let sitemap: ParsedSitemap;
    try {
      const body = await options.fetch(url);
      if (body === undefined) {
        problems.push({ url, problem: 'could not be fetched' });
        continue;
      }
      sitemap = parseSitemap(body, { maxBytes: options.maxBytes ?? SITEMAP_DEFAULTS.maxBytes });
    } catch (error) {
      problems.push({
        url,
        problem: error instanceof SitemapError ? error.message : 'could not be read',
      });
      continue;
    }
    if (sitemap.kind === 'index') {
      for (const child of sitemap.sitemaps) {
        if (queued.has(child) || !accept(child)) continue;
        queued.add(child);
        queue.push(child);
      }
      continue;
    }
    for (const page of sitemap.urls) {
      if (urls.size >= maxUrls) break;
      if (accept(page)) urls.add(page);
    }
  }
  return { urls: [...urls], problems };
}

let xmlParser: XMLParser | undefined;

/**
 * The XML parser, built at the first sitemap read: a worker that syncs no
 * website never loads it (it is shipped beside the worker's `index.js`).
 */
function sitemapXmlParser(): XMLParser {
  xmlParser ??= new (require('fast-xml-parser') as typeof import('fast-xml-parser')).XMLParser(
    SITEMAP_XML_OPTIONS,
  );
  return xmlParser;
}

const SITEMAP_XML_OPTIONS: ConstructorParameters<typeof XMLParser>[0] = {
  ignoreAttributes: true,
  removeNSPrefix: true,
  // Keep `<loc>` text as text: no number or boolean coercion.
  parseTagValue: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // The predefined XML entities (`&amp;` in URLs) only; HTML entities are not XML.
  htmlEntities: false,
  isArray: (name) => name === 'url' || name === 'sitemap',
};

const GZIP_MAGIC = [0x1f, 0x8b] as const;

function decompressed(body: Uint8Array, maxBytes: number): Buffer {
  const isGzip = body[0] === GZIP_MAGIC[0] && body[1] === GZIP_MAGIC[1];
  if (!isGzip) {
    if (body.length > maxBytes) throw new SitemapError(`sitemap is larger than ${maxBytes} bytes`);
    return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  }
  try {
    // maxOutputLength stops inflating at the cap instead of after it.
    return gunzipSync(body, { maxOutputLength: maxBytes });
  } catch (error) {
    const tooLarge = (error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE';
    throw new SitemapError(
      tooLarge ? `sitemap is larger than ${maxBytes} bytes` : 'sitemap is not valid gzip',
      { cause: error },
    );
  }
}

/** The `<loc>` texts of the `entry` elements (`url` or `sitemap`) under `parent`. */
function locations(parent: unknown, entry: 'url' | 'sitemap'): string[] {
  const entries = (parent as Record<string, unknown> | null)?.[entry];
  if (!Array.isArray(entries)) return [];
  return entries.flatMap((item: unknown) => {
    const loc = (item as { loc?: unknown } | null)?.loc;
    return typeof loc === 'string' ? [loc] : [];
  });
}

function httpUrls(candidates: readonly string[], maxEntries: number): string[] {
  const urls: string[] = [];
  for (const candidate of candidates) {
    if (urls.length >= maxEntries) break;
    const value = candidate.trim();
    if (!URL.canParse(value)) continue;
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') urls.push(url.href);
  }
  return urls;
}
