import { createHash } from 'node:crypto';
import { CONNECTOR_LIMITS, ProviderUnavailableError } from '../../../domain/connector';
import type { DataSource } from '../../../domain/data-source';
import { detectFileType } from '../../../domain/file-types';
import type { AccessGrant } from '../../../ports/connector.port';
import type { FileParser } from '../../../ports/file-parser.port';
import type { ReadContext, SourceItem } from '../../../ports/source-reader.port';
import type { ConnectorReader } from '../connector-reader';
import { fileItemOf } from '../file-item';
import type { ProviderApi } from '../provider-api';
import type { GoogleEndpoints } from './google-oauth';

/** Drive's largest `pageSize` for files.list and changes.list. */
const PAGE_SIZE = 1000;
/** A full pass commits where it is after this many files, so a crash resumes there. */
const CHECKPOINT_EVERY = 10;
const FOLDER = 'application/vnd.google-apps.folder';

/**
 * What each Google Workspace type is exported as (Drive's documented
 * export formats), and the name the file parsers read it under. Other
 * Google types (Forms, Drawings, Sites, Maps, shortcuts, …) are not read.
 */
export const GOOGLE_EXPORTS: Readonly<
  Record<string, { readonly mimeType: string; readonly extension: string }>
> = {
  // Markdown keeps the document's headings, so they become sections.
  'application/vnd.google-apps.document': { mimeType: 'text/markdown', extension: 'md' },
  // Drive's CSV export holds the first sheet only.
  'application/vnd.google-apps.spreadsheet': { mimeType: 'text/csv', extension: 'csv' },
  'application/vnd.google-apps.presentation': { mimeType: 'text/plain', extension: 'txt' },
};

/** The fields of a file the reader asks Drive for (files.list and changes.list `fields`). */
const FILE_FIELDS = 'id,name,mimeType,webViewLink,size,trashed';

interface DriveFile {
  readonly id?: unknown;
  readonly name?: unknown;
  readonly mimeType?: unknown;
  readonly webViewLink?: unknown;
  readonly size?: unknown;
}

/** A file under the chosen folders or drives that the reader can turn into a document. */
interface Candidate {
  readonly id: string;
  readonly name: string;
  readonly mimeType: string;
  readonly url: string;
  /** Bytes, for uploaded files (Google's own types have none). */
  readonly size: number | null;
}

/**
 * The cursor: Drive's changes page token for this config, and during a
 * full pass the last file id read (files are read in id order).
 */
interface DriveCursor {
  readonly scope: string;
  readonly token: string;
  readonly after?: string;
}

/** `'id' in parents`: Drive's query strings quote with `'` and escape `'` and `\` with `\`. */
const quoted = (value: string) => `'${value.replace(/[\\']/g, '\\$&')}'`;

/**
 * Google Drive (issue 12): the files under the folders in
 * `config.folder_ids` (walked down through subfolders) and in the shared
 * drives of `config.shared_drive_ids`, through Drive API v3. Each run lists
 * what exists (metadata only: the inventory, so trashed, deleted, unshared
 * and moved-away files leave the index), then reads what the Changes API
 * says changed since the committed page token, plus what is listed but not
 * indexed. Google Docs, Sheets and Slides are exported to text formats,
 * other files are downloaded and go through the file parsers; each
 * document links to the file's `webViewLink`.
 */
export class GoogleDriveReader implements ConnectorReader {
  constructor(
    private readonly endpoints: Pick<GoogleEndpoints, 'apiBaseUrl'>,
    private readonly fileParser: FileParser,
  ) {}

  async *read(
    source: DataSource,
    _grant: AccessGrant,
    api: ProviderApi,
    context: ReadContext,
  ): AsyncIterable<SourceItem> {
    const drive = `${this.endpoints.apiBaseUrl.replace(/\/+$/, '')}/drive/v3`;
    const folderIds = (source.config.folder_ids as string[] | undefined) ?? [];
    const driveIds = (source.config.shared_drive_ids as string[] | undefined) ?? [];
    const scope = createHash('sha256')
      .update(JSON.stringify([[...folderIds].sort(), [...driveIds].sort()]))
      .digest('hex')
      .slice(0, 16);
    const cursor = parseCursor(context.cursor, scope);

    // 1. Where changes are counted from: taken before listing, so nothing changed during the run is missed.
    let token: string;
    let next: string;
    let changed: Set<string>;
    if (cursor) {
      ({ changed, next } = await this.changesSince(api, drive, cursor.token));
      token = cursor.token;
    } else {
      token = await this.startPageToken(api, drive);
      next = token;
      changed = new Set();
    }

    // 2. What exists now under the chosen folders and drives.
    const candidates = await this.list(api, drive, folderIds, driveIds);
    yield { status: 'inventory', keys: [...candidates.keys()].map(keyOf) };

    // 3. Read: everything on a full pass (from where a crashed one stopped), else what changed.
    const full = cursor === null || cursor.after !== undefined;
    const after = cursor?.after ?? '';
    const ids = [...candidates.keys()].sort();
    let sinceCheckpoint = 0;
    for (const id of ids) {
      const file = candidates.get(id) as Candidate;
      const due = full
        ? id > after || changed.has(id) || !context.isIndexed(keyOf(id))
        : changed.has(id);
      if (!due) continue;
      yield await this.itemOf(api, drive, file);
      sinceCheckpoint += 1;
      if (full && sinceCheckpoint >= CHECKPOINT_EVERY) {
        sinceCheckpoint = 0;
        yield { status: 'checkpoint', cursor: JSON.stringify({ scope, token, after: id }) };
      }
    }
    yield { status: 'checkpoint', cursor: JSON.stringify({ scope, token: next }) };

    // 4. Listed but never indexed (shared or moved in after its change was counted, or unreadable before).
    for (const id of ids) {
      const file = candidates.get(id) as Candidate;
      if (full || changed.has(id) || context.isIndexed(keyOf(id))) continue;
      if (file.size !== null && file.size > CONNECTOR_LIMITS.maxResponseBytes) continue;
      yield await this.itemOf(api, drive, file);
    }
  }

  private async startPageToken(api: ProviderApi, drive: string): Promise<string> {
    const answer = await api.getJson(`${drive}/changes/startPageToken?supportsAllDrives=true`);
    const value = answer.status === 200 ? (answer.body as { startPageToken?: unknown }) : null;
    if (typeof value?.startPageToken !== 'string') {
      throw new ProviderUnavailableError('Drive answered no changes start page token');
    }
    return value.startPageToken;
  }

  /** The ids of every file changed since `token`, and the token to start from next time. */
  private async changesSince(
    api: ProviderApi,
    drive: string,
    token: string,
  ): Promise<{ changed: Set<string>; next: string }> {
    const changed = new Set<string>();
    let pageToken = token;
    for (;;) {
      const url = new URL(`${drive}/changes`);
      url.search = new URLSearchParams({
        pageToken,
        pageSize: String(PAGE_SIZE),
        includeItemsFromAllDrives: 'true',
        supportsAllDrives: 'true',
        includeRemoved: 'true',
        fields: 'nextPageToken,newStartPageToken,changes(fileId,removed,changeType)',
      }).toString();
      const answer = await api.getJson(url.toString());
      if (answer.status === 404) throw new ProviderUnavailableError('Drive changes answered 404');
      const page = answer.body as {
        nextPageToken?: unknown;
        newStartPageToken?: unknown;
        changes?: { fileId?: unknown; changeType?: unknown }[];
      };
      for (const change of Array.isArray(page.changes) ? page.changes : []) {
        if (typeof change.fileId === 'string' && change.changeType !== 'drive') {
          changed.add(change.fileId);
        }
      }
      if (typeof page.newStartPageToken === 'string') {
        return { changed, next: page.newStartPageToken };
      }
      if (typeof page.nextPageToken !== 'string') {
        throw new ProviderUnavailableError('Drive changes answered neither a next nor a new token');
      }
      pageToken = page.nextPageToken;
    }
  }

  /** Every readable file under the folders (walked down) and in the shared drives, by id. */
  private async list(
    api: ProviderApi,
    drive: string,
    folderIds: readonly string[],
    driveIds: readonly string[],
  ): Promise<Map<string, Candidate>> {
    const found = new Map<string, Candidate>();
    const add = (file: DriveFile) => {
      const candidate = candidateOf(file);
      if (!candidate) return;
      found.set(candidate.id, candidate);
      if (found.size > CONNECTOR_LIMITS.maxItems) {
        throw new ProviderUnavailableError(
          `The folders and drives hold more than ${CONNECTOR_LIMITS.maxItems} files`,
        );
      }
    };
    for (const driveId of driveIds) {
      for await (const file of this.files(api, drive, 'trashed = false', driveId)) add(file);
    }
    const queue = [...folderIds];
    const visited = new Set<string>();
    while (queue.length > 0) {
      const folder = queue.shift() as string;
      if (visited.has(folder)) continue;
      visited.add(folder);
      const q = `${quoted(folder)} in parents and trashed = false`;
      for await (const file of this.files(api, drive, q, null)) {
        if (file.mimeType === FOLDER && typeof file.id === 'string') queue.push(file.id);
        else add(file);
      }
    }
    return found;
  }

  /** files.list, page after page; a folder or drive that is gone or unshared lists nothing. */
  private async *files(
    api: ProviderApi,
    drive: string,
    q: string,
    driveId: string | null,
  ): AsyncIterable<DriveFile> {
    let pageToken: string | null = null;
    do {
      const url = new URL(`${drive}/files`);
      url.search = new URLSearchParams({
        q,
        pageSize: String(PAGE_SIZE),
        fields: `nextPageToken,files(${FILE_FIELDS})`,
        supportsAllDrives: 'true',
        includeItemsFromAllDrives: 'true',
        ...(driveId ? { corpora: 'drive', driveId } : { corpora: 'allDrives' }),
        ...(pageToken ? { pageToken } : {}),
      }).toString();
      const answer = await api.getJson(url.toString());
      if (answer.status === 404) return;
      const page = answer.body as { files?: DriveFile[]; nextPageToken?: unknown };
      yield* Array.isArray(page.files) ? page.files : [];
      pageToken = typeof page.nextPageToken === 'string' ? page.nextPageToken : null;
    } while (pageToken);
  }

  /** One file as a document: exported (Google types) or downloaded, then parsed. */
  private async itemOf(
    api: ProviderApi,
    drive: string,
    file: Candidate,
  ): Promise<Extract<SourceItem, { status: 'ok' | 'skipped' }>> {
    const key = keyOf(file.id);
    if (file.size !== null && file.size > CONNECTOR_LIMITS.maxResponseBytes) {
      return {
        status: 'skipped',
        key,
        reason: 'too_large',
        detail: `"${file.name}" has ${file.size} bytes, more than the ${CONNECTOR_LIMITS.maxResponseBytes} read from a provider`,
      };
    }
    const exported = GOOGLE_EXPORTS[file.mimeType];
    const fileUrl = `${drive}/files/${encodeURIComponent(file.id)}`;
    const answer = exported
      ? await api.getBytes(
          `${fileUrl}/export?mimeType=${encodeURIComponent(exported.mimeType)}&supportsAllDrives=true`,
        )
      : await api.getBytes(`${fileUrl}?alt=media&supportsAllDrives=true`);
    if (answer.status === 404) return { status: 'skipped', key, reason: 'gone', detail: 'deleted' };
    if (answer.status === 403) {
      return { status: 'skipped', key, reason: 'unreadable', detail: `Drive: ${answer.reason}` };
    }
    return fileItemOf(this.fileParser, {
      key,
      title: file.name,
      url: file.url,
      name: exported ? `${file.name}.${exported.extension}` : file.name,
      contentType: exported?.mimeType ?? file.mimeType,
      bytes:
        exported?.mimeType === 'text/markdown' ? withoutInlineImages(answer.bytes) : answer.bytes,
    });
  }
}

const keyOf = (id: string) => `gdrive:${id}`;

/**
 * Drive's Markdown export carries a document's images inline as
 * base64 `data:` URIs (reference definitions at its end); they are not
 * text, and would fill the index with noise, so they are dropped.
 */
export function withoutInlineImages(markdown: Buffer): Buffer {
  const dataUri = String.raw`<?data:image\/[\w.+-]+;base64,[A-Za-z0-9+/=]*>?`;
  return Buffer.from(
    markdown
      .toString('utf8')
      // `[image1]: <data:…>` definitions go whole, any other data URI is emptied…
      .replace(new RegExp(String.raw`^ {0,3}\[[^\]\n]+\]:[ \t]*${dataUri}[ \t]*$`, 'gm'), '')
      .replace(new RegExp(dataUri, 'g'), '')
      // …and the `![][image1]` references that pointed at them.
      .replace(/!\[[^\]\n]*\]\[image\d+\]/g, ''),
    'utf8',
  );
}

/** A listed file the reader can read: a Google type it exports, or a file of a D25 type. */
function candidateOf(file: DriveFile): Candidate | null {
  if (typeof file.id !== 'string' || typeof file.mimeType !== 'string') return null;
  const name = typeof file.name === 'string' && file.name !== '' ? file.name : 'Untitled';
  const readable =
    GOOGLE_EXPORTS[file.mimeType] !== undefined ||
    (!file.mimeType.startsWith('application/vnd.google-apps.') &&
      detectFileType(name, file.mimeType) !== undefined);
  if (!readable) return null;
  const size = typeof file.size === 'string' && /^\d+$/.test(file.size) ? Number(file.size) : null;
  return {
    id: file.id,
    name,
    mimeType: file.mimeType,
    url:
      typeof file.webViewLink === 'string' && /^https?:\/\//.test(file.webViewLink)
        ? file.webViewLink
        : `https://drive.google.com/file/d/${encodeURIComponent(file.id)}/view`,
    size,
  };
}

function parseCursor(value: string | null, scope: string): DriveCursor | null {
  if (value === null) return null;
  try {
    const parsed = JSON.parse(value) as Partial<DriveCursor>;
    // Other folders or drives: everything is read again.
    if (parsed.scope !== scope || typeof parsed.token !== 'string' || parsed.token === '') {
      return null;
    }
    return {
      scope,
      token: parsed.token,
      ...(typeof parsed.after === 'string' ? { after: parsed.after } : {}),
    };
  } catch {
    return null;
  }
}
