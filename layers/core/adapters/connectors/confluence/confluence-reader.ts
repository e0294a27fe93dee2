import { createHash } from 'node:crypto';
import { CONNECTOR_LIMITS, ProviderUnavailableError } from '../../../domain/connector';
import type { DataSource } from '../../../domain/data-source';
import type { Clock } from '../../../ports/clock.port';
import type { AccessGrant } from '../../../ports/connector.port';
import type { FileParser } from '../../../ports/file-parser.port';
import type { ReadContext, SourceItem } from '../../../ports/source-reader.port';
import { htmlToDocument } from '../../parsing/html-to-document';
import type { ConnectorReader } from '../connector-reader';
import { isReadableFile, readProviderFile } from '../file-item';
import type { ProviderFetch } from '../oauth-http';
import type { ProviderApi } from '../provider-api';
import type { AtlassianEndpoints } from './confluence-oauth';

/** Listing pages: ids only (inventory), and with bodies (changes). Confluence caps `limit` itself. */
const INVENTORY_PAGE = 200;
const BODY_PAGE = 25;
/** CQL's `now("-Nm")` is counted back this much further, for clocks that differ a little. */
const CLOCK_MARGIN_MINUTES = 5;

interface ConfluenceContent {
  readonly id?: unknown;
  readonly type?: unknown;
  readonly title?: unknown;
  readonly version?: { readonly when?: unknown };
  readonly body?: { readonly storage?: { readonly value?: unknown } };
  /** Attachments: the page or blog post they belong to, their type and size. */
  readonly container?: { readonly id?: unknown };
  readonly extensions?: { readonly mediaType?: unknown; readonly fileSize?: unknown };
  readonly metadata?: { readonly mediaType?: unknown };
  readonly _links?: { readonly webui?: unknown; readonly download?: unknown };
}

interface SearchPage {
  readonly results?: readonly ConfluenceContent[];
  readonly _links?: { readonly next?: unknown };
}

/** The cursor: the newest `version.when` indexed, for this config and site. */
interface ConfluenceCursor {
  readonly scope: string;
  readonly since: string;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"]/g, (char) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot' }[char]};`);

/** `space in ("A","B") and type in (page, blogpost, attachment)`: keys are quoted, quotes in them escaped. */
function spacesCql(spaceKeys: readonly string[]): string {
  const quoted = spaceKeys.map((key) => `"${key.replace(/["\\]/g, '\\$&')}"`).join(',');
  return `space in (${quoted}) and type in (page, blogpost, attachment)`;
}

/** What a listing or change page asks for: bodies and versions; an attachment's page, type and size. */
const CONTENT_EXPAND = 'body.storage,version,container';

const mediaTypeOf = (item: ConfluenceContent): string | null => {
  const type = item.extensions?.mediaType ?? item.metadata?.mediaType;
  return typeof type === 'string' ? type : null;
};

/** An attachment the file parsers cannot read (an image, a spreadsheet) is neither listed nor read. */
const isUnreadableAttachment = (item: ConfluenceContent) =>
  item.type === 'attachment' &&
  !(typeof item.title === 'string' && isReadableFile(item.title, mediaTypeOf(item)));

/**
 * Confluence Cloud (issue 12): the pages, blog posts and their
 * attachments in the spaces of `config.space_keys` (attachments of the upload rules'
 * types, downloaded and parsed like uploads), through the REST API at api.atlassian.com for the
 * grant's site. Each run lists what exists (ids only: deletions, unsharing),
 * then reads with bodies what CQL says was modified since the cursor, in
 * last-modified order, committing the cursor after each page; items listed
 * but never indexed (shared later) are read one by one. Storage-format
 * bodies are converted like web pages; each document links to the item.
 */
export class ConfluenceReader implements ConnectorReader {
  constructor(
    private readonly clock: Clock,
    private readonly endpoints: Pick<AtlassianEndpoints, 'apiBaseUrl'>,
    /** Attachments are parsed like uploads. */
    private readonly parser: FileParser,
    /** Attachment downloads under the file cap. */
    private readonly download: ProviderFetch,
  ) {}

  async *read(
    source: DataSource,
    grant: AccessGrant,
    api: ProviderApi,
    context: ReadContext,
  ): AsyncIterable<SourceItem> {
    const site = grant.site;
    if (!site) throw new ProviderUnavailableError('The grant names no Confluence site: reconnect');
    const spaceKeys = (source.config.space_keys as string[] | undefined) ?? [];
    const wiki = `${this.endpoints.apiBaseUrl.replace(/\/+$/, '')}/ex/confluence/${encodeURIComponent(site.id)}/wiki`;
    const scope = createHash('sha256')
      .update(JSON.stringify([site.id, [...spaceKeys].sort()]))
      .digest('hex')
      .slice(0, 16);
    const cursor = parseCursor(context.cursor, scope);
    const baseCql = spacesCql(spaceKeys);

    // 1. What exists now (ids only).
    const present: string[] = [];
    for await (const item of this.search(api, wiki, baseCql, INVENTORY_PAGE, '')) {
      if (typeof item.id !== 'string' || isUnreadableAttachment(item)) continue;
      present.push(keyOf(item.id));
      if (present.length > CONNECTOR_LIMITS.maxItems) {
        throw new ProviderUnavailableError(
          `The spaces hold more than ${CONNECTOR_LIMITS.maxItems} pages, blog posts and attachments`,
        );
      }
    }
    yield { status: 'inventory', keys: present };

    // 2. What changed since the cursor, oldest change first, committing as it goes.
    const changedCql = cursor
      ? `${baseCql} and lastmodified >= now("-${this.minutesSince(cursor.since)}m") order by lastmodified asc`
      : `${baseCql} order by lastmodified asc`;
    let since = cursor?.since ?? null;
    const read = new Set<string>();
    for await (const page of this.searchPages(api, wiki, changedCql, BODY_PAGE, CONTENT_EXPAND)) {
      for (const item of page) {
        const document = await this.itemOf(api, wiki, item, site.url);
        if (!document) continue;
        read.add(document.key);
        yield document;
        const when = typeof item.version?.when === 'string' ? item.version.when : null;
        if (when && (since === null || Date.parse(when) > Date.parse(since))) since = when;
      }
      if (since) yield { status: 'checkpoint', cursor: JSON.stringify({ scope, since }) };
    }

    // 3. Listed but never indexed (shared with the account later, or a run stopped early).
    for (const key of present) {
      if (read.has(key) || context.isIndexed(key)) continue;
      const answer = await api.getJson(
        `${wiki}/rest/api/content/${encodeURIComponent(key.slice('confluence:'.length))}?expand=${CONTENT_EXPAND}`,
      );
      if (answer.status === 404) continue;
      const document = await this.itemOf(api, wiki, answer.body as ConfluenceContent, site.url);
      if (document) yield document;
    }
  }

  /** One search's results, page after page, following `_links.next`. */
  private async *search(
    api: ProviderApi,
    wiki: string,
    cql: string,
    limit: number,
    expand: string,
  ) {
    for await (const page of this.searchPages(api, wiki, cql, limit, expand)) yield* page;
  }

  private async *searchPages(
    api: ProviderApi,
    wiki: string,
    cql: string,
    limit: number,
    expand: string,
  ): AsyncIterable<readonly ConfluenceContent[]> {
    const first = new URL(`${wiki}/rest/api/content/search`);
    first.searchParams.set('cql', cql);
    first.searchParams.set('limit', String(limit));
    if (expand) first.searchParams.set('expand', expand);
    let url: string | null = first.toString();
    while (url) {
      const answer = await api.getJson(url);
      if (answer.status === 404)
        throw new ProviderUnavailableError('Confluence search answered 404');
      const page = answer.body as SearchPage;
      yield Array.isArray(page.results) ? page.results : [];
      const next = page._links?.next;
      // `next` is relative to the site's /wiki; through the API gateway it is relative to `wiki`.
      url = typeof next === 'string' && next.startsWith('/rest/api/') ? `${wiki}${next}` : null;
    }
  }

  /** A page or blog post converted, or an attachment downloaded and parsed. */
  private async itemOf(
    api: ProviderApi,
    wiki: string,
    item: ConfluenceContent,
    siteUrl: string,
  ): Promise<Extract<SourceItem, { status: 'ok' | 'skipped' }> | null> {
    if (item.type !== 'attachment') return this.documentOf(item, siteUrl);
    if (typeof item.id !== 'string' || isUnreadableAttachment(item)) return null;
    const webui = typeof item._links?.webui === 'string' ? item._links.webui : null;
    const containerId = typeof item.container?.id === 'string' ? item.container.id : null;
    const download = typeof item._links?.download === 'string' ? item._links.download : null;
    // The documented download for OAuth apps: a redirect to the file's pre-authenticated address.
    const downloadUrl = containerId
      ? `${wiki}/rest/api/content/${encodeURIComponent(containerId)}/child/attachment/${encodeURIComponent(item.id)}/download`
      : download?.startsWith('/')
        ? `${wiki}${download}`
        : null;
    if (!downloadUrl) return null;
    const size = Number(item.extensions?.fileSize);
    return readProviderFile(api, this.download, this.parser, {
      key: keyOf(item.id),
      name: String(item.title),
      url: `${siteUrl}/wiki${webui?.startsWith('/') ? webui : `/pages/viewpageattachments.action?pageId=${containerId ?? ''}`}`,
      contentType: mediaTypeOf(item),
      size: Number.isFinite(size) && size >= 0 ? size : null,
      downloadUrl,
    });
  }

  private documentOf(
    item: ConfluenceContent,
    siteUrl: string,
  ): Extract<SourceItem, { status: 'ok' | 'skipped' }> | null {
    if (typeof item.id !== 'string') return null;
    const key = keyOf(item.id);
    const title = typeof item.title === 'string' && item.title !== '' ? item.title : 'Untitled';
    const storage = typeof item.body?.storage?.value === 'string' ? item.body.storage.value : '';
    const webui =
      typeof item._links?.webui === 'string'
        ? item._links.webui
        : `/pages/viewpage.action?pageId=${item.id}`;
    const url = `${siteUrl}/wiki${webui.startsWith('/') ? webui : `/${webui}`}`;
    const html = `<html><head><title>${escapeHtml(title)}</title></head><body><main>${storage}</main></body></html>`;
    try {
      return {
        status: 'ok',
        key,
        document: htmlToDocument(html, url, { fallbackTitle: title }),
        contentHash: createHash('sha256').update(`${title}\n${url}\n${storage}`).digest('hex'),
      };
    } catch (error) {
      return { status: 'skipped', key, reason: 'unreadable', detail: (error as Error).message };
    }
  }

  private minutesSince(since: string): number {
    const elapsed = this.clock.now().getTime() - Date.parse(since);
    return Math.max(1, Math.ceil(elapsed / 60_000) + CLOCK_MARGIN_MINUTES);
  }
}

const keyOf = (id: string) => `confluence:${id}`;

function parseCursor(value: string | null, scope: string): ConfluenceCursor | null {
  if (value === null) return null;
  try {
    const parsed = JSON.parse(value) as Partial<ConfluenceCursor>;
    // Other spaces or another site: everything is read again.
    if (parsed.scope !== scope || typeof parsed.since !== 'string') return null;
    if (Number.isNaN(Date.parse(parsed.since))) return null;
    return { scope, since: parsed.since };
  } catch {
    return null;
  }
}
