import { CONNECTOR_LIMITS, ProviderUnavailableError } from '../../../domain/connector';
import type { DataSource } from '../../../domain/data-source';
import type { AccessGrant } from '../../../ports/connector.port';
import type { FileParser } from '../../../ports/file-parser.port';
import type { ReadContext, SourceItem } from '../../../ports/source-reader.port';
import type { ConnectorReader } from '../connector-reader';
import { isReadableFile, type ProviderFile, readProviderFile } from '../file-item';
import type { ProviderFetch } from '../oauth-http';
import type { ProviderApi } from '../provider-api';
import { graphError, isGraphLink, siteLookupUrl } from './graph-urls';
import type { MicrosoftEndpoints } from './microsoft-oauth';

/** A driveItem as `delta` returns it (only what the connector reads). */
interface DriveItem {
  readonly id?: unknown;
  readonly name?: unknown;
  readonly webUrl?: unknown;
  readonly size?: unknown;
  readonly file?: { readonly mimeType?: unknown };
  readonly deleted?: unknown;
  readonly root?: unknown;
}

/** One page of a delta feed: its items and where to go on (`nextLink`) or resume later (`deltaLink`). */
interface DeltaPage {
  readonly items: readonly DriveItem[];
  readonly nextLink: string | null;
  readonly deltaLink: string | null;
}

/** The cursor: for the source's site, each drive's last committed `nextLink` or `deltaLink`. */
interface SharePointCursor {
  readonly site: string;
  readonly links: Readonly<Record<string, string>>;
}

/** The inventory's listing asks for what tells files apart only. */
const INVENTORY_SELECT = 'id,name,webUrl,size,file,deleted,root';
/** A drive's feed that keeps answering 410 is not followed further than this in one run. */
const MAX_RESYNCS = 2;

const trimSlash = (url: string) => url.replace(/\/+$/, '');
const keyOf = (driveId: string, itemId: string) => `sharepoint:${driveId}:${itemId}`;

/**
 * SharePoint and OneDrive for Business through Microsoft Graph (issue 12):
 * the document libraries (drives) of the source's site — those
 * in `config.drive_ids`, or all of them — read with `driveItem: delta`.
 * Each run lists every drive (one metadata-only enumeration: the inventory,
 * so whatever was deleted, unshared or moved out leaves the index), then
 * follows each drive's committed `deltaLink` (or `nextLink`, mid-way) to
 * read what changed, downloading files through `/content` (a redirect to a
 * pre-authenticated address) and parsing them like uploads; items with the
 * `deleted` facet leave the index at once. The cursor is committed after
 * every page. Files listed but never indexed are read one by one.
 */
export class SharePointReader implements ConnectorReader {
  constructor(
    private readonly endpoints: Pick<MicrosoftEndpoints, 'graphBaseUrl'>,
    private readonly parser: FileParser,
    /** Downloads under the file cap; listings use the API's own fetch. */
    private readonly download: ProviderFetch,
  ) {}

  async *read(
    source: DataSource,
    _grant: AccessGrant,
    api: ProviderApi,
    context: ReadContext,
  ): AsyncIterable<SourceItem> {
    const graph = trimSlash(this.endpoints.graphBaseUrl);
    const siteId = await this.siteId(api, graph, String(source.config.site_url ?? ''));
    const drives = await this.driveIds(api, graph, siteId, source.config.drive_ids);
    const cursor = parseCursor(context.cursor, siteId);
    // Drives no longer chosen are forgotten; newly chosen ones start with a full enumeration.
    const links: Record<string, string> = {};
    for (const drive of drives) {
      const link = cursor?.links[drive];
      if (link && isGraphLink(graph, link)) links[drive] = link;
    }

    // 1. What exists now, in every drive (metadata only).
    const present = new Map<string, ProviderFile>();
    for (const drive of drives) {
      const listing = `${driveRoot(graph, drive)}/delta?$select=${INVENTORY_SELECT}`;
      for await (const page of this.deltaPages(api, graph, drive, listing)) {
        for (const item of page.items) {
          const file = this.fileOf(graph, drive, item);
          if (file) present.set(file.key, file);
        }
        if (present.size > CONNECTOR_LIMITS.maxItems) {
          throw new ProviderUnavailableError(
            `The drives hold more than ${CONNECTOR_LIMITS.maxItems} readable files`,
          );
        }
      }
    }
    yield { status: 'inventory', keys: [...present.keys()] };

    // 2. What changed in each drive since its link, committing after every page.
    const read = new Set<string>();
    for (const drive of drives) {
      const start = links[drive] ?? `${driveRoot(graph, drive)}/delta`;
      for await (const page of this.deltaPages(api, graph, drive, start)) {
        for (const item of page.items) {
          if (typeof item.id !== 'string') continue;
          const key = keyOf(drive, item.id);
          const file = item.deleted === undefined ? this.fileOf(graph, drive, item) : null;
          if (!file) {
            // Deleted, or no longer a file the service reads (renamed to another type).
            if (context.isIndexed(key) || read.has(key)) {
              yield { status: 'skipped', key, reason: 'gone', detail: 'deleted' };
            }
            continue;
          }
          read.add(key);
          yield await readProviderFile(api, this.download, this.parser, file);
        }
        const next = page.nextLink ?? page.deltaLink;
        if (next) {
          links[drive] = next;
          yield {
            status: 'checkpoint',
            cursor: JSON.stringify({ site: siteId, links } satisfies SharePointCursor),
          };
        }
      }
    }

    // 3. Listed but never indexed (shared later, or refused by a run that stopped early).
    for (const [key, file] of present) {
      if (read.has(key) || context.isIndexed(key)) continue;
      yield await readProviderFile(api, this.download, this.parser, file);
    }
  }

  /** A delta feed page by page, following `@odata.nextLink`; a 410 restarts from its `Location`. */
  private async *deltaPages(
    api: ProviderApi,
    graph: string,
    drive: string,
    first: string,
  ): AsyncIterable<DeltaPage> {
    let url: string | null = first;
    let resyncs = 0;
    while (url) {
      const response = await api.send(url);
      if (response.status === 410 && resyncs < MAX_RESYNCS) {
        // resyncChangesApplyDifferences: the token is too old; enumerate again from where Graph says.
        await response.arrayBuffer();
        resyncs += 1;
        const location = response.headers.get('location');
        url = isGraphLink(graph, location) ? location : `${driveRoot(graph, drive)}/delta`;
        continue;
      }
      const body = await jsonOf(response);
      if (response.status === 404) {
        throw new ProviderUnavailableError(
          `The drive ${drive} was not found (${graphError(body) ?? 404}): it was deleted or is no longer shared with the account that connected`,
        );
      }
      if (response.status !== 200) {
        throw new ProviderUnavailableError(
          `Microsoft Graph answered ${response.status} (${graphError(body) ?? 'no error code'}) for the drive ${drive}`,
        );
      }
      const page = body as {
        value?: unknown;
        '@odata.nextLink'?: unknown;
        '@odata.deltaLink'?: unknown;
      };
      const nextLink = isGraphLink(graph, page['@odata.nextLink']) ? page['@odata.nextLink'] : null;
      const deltaLink = isGraphLink(graph, page['@odata.deltaLink'])
        ? page['@odata.deltaLink']
        : null;
      yield { items: Array.isArray(page.value) ? page.value : [], nextLink, deltaLink };
      url = nextLink;
    }
  }

  /** A driveItem the service reads: a file (not deleted, not the root) of one of the upload rules' types. */
  private fileOf(graph: string, drive: string, item: DriveItem): ProviderFile | null {
    if (typeof item.id !== 'string' || typeof item.name !== 'string') return null;
    if (item.deleted !== undefined || item.root !== undefined || item.file === undefined) {
      return null;
    }
    const mimeType = typeof item.file?.mimeType === 'string' ? item.file.mimeType : null;
    if (!isReadableFile(item.name, mimeType)) return null;
    return {
      key: keyOf(drive, item.id),
      name: item.name,
      url: typeof item.webUrl === 'string' ? item.webUrl : '',
      contentType: mimeType,
      size: typeof item.size === 'number' ? item.size : null,
      downloadUrl: `${graph}/drives/${encodeURIComponent(drive)}/items/${encodeURIComponent(item.id)}/content`,
    };
  }

  /** The source's site, as Graph finds it for the account that connected. */
  private async siteId(api: ProviderApi, graph: string, siteUrl: string): Promise<string> {
    const lookup = siteLookupUrl(graph, siteUrl);
    if (!lookup) throw new ProviderUnavailableError('The data source has no valid site_url');
    const answer = await api.getJson(lookup);
    const id = answer.status === 200 ? (answer.body as { id?: unknown }).id : undefined;
    if (typeof id !== 'string') {
      throw new ProviderUnavailableError(
        `The site ${siteUrl} was not found for the account that connected (Microsoft Graph answered ${answer.status})`,
      );
    }
    return id;
  }

  /** The drives to read: `drive_ids` (each must be a document library of the site), else all of the site's. */
  private async driveIds(
    api: ProviderApi,
    graph: string,
    siteId: string,
    chosen: unknown,
  ): Promise<string[]> {
    const ofSite: string[] = [];
    let url: string | null =
      `${graph}/sites/${encodeURIComponent(siteId)}/drives?$select=id,name,webUrl`;
    while (url) {
      const answer = await api.getJson(url);
      if (answer.status === 404) {
        throw new ProviderUnavailableError(
          'The site has no document libraries the account can open',
        );
      }
      const page = answer.body as { value?: { id?: unknown }[]; '@odata.nextLink'?: unknown };
      for (const drive of Array.isArray(page.value) ? page.value : []) {
        if (typeof drive?.id === 'string') ofSite.push(drive.id);
      }
      url = isGraphLink(graph, page['@odata.nextLink']) ? page['@odata.nextLink'] : null;
    }
    if (!Array.isArray(chosen) || chosen.length === 0) return ofSite;
    const missing = chosen.filter((id) => !ofSite.includes(String(id)));
    if (missing.length > 0) {
      throw new ProviderUnavailableError(
        `The site has no document library ${missing.join(', ')} that the account that connected can open: check drive_ids`,
      );
    }
    return chosen.map(String);
  }
}

const driveRoot = (graph: string, drive: string) =>
  `${graph}/drives/${encodeURIComponent(drive)}/root`;

async function jsonOf(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

function parseCursor(value: string | null, siteId: string): SharePointCursor | null {
  if (value === null) return null;
  try {
    const parsed = JSON.parse(value) as Partial<SharePointCursor>;
    // Another site: everything is read again.
    if (parsed.site !== siteId || typeof parsed.links !== 'object' || parsed.links === null) {
      return null;
    }
    const links: Record<string, string> = {};
    for (const [drive, link] of Object.entries(parsed.links)) {
      if (typeof link === 'string') links[drive] = link;
    }
    return { site: siteId, links };
  } catch {
    return null;
  }
}
