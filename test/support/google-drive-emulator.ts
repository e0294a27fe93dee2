/**
 * A loopback stand-in for Google (issue 12): the OAuth 2.0 web-server flow
 * (accounts.google.com `/o/oauth2/v2/auth`, oauth2.googleapis.com `/token`
 * and `/revoke`, form-encoded, PKCE checked, refresh tokens that do not
 * rotate, `invalid_grant` for revoked ones) and the Drive API v3 calls the
 * connector makes, with Drive's documented shapes: `files.list` (`q` with
 * `'id' in parents` and `trashed = false`, `corpora`/`driveId`, `fields`
 * honoured, `pageToken` pagination), `files.get?alt=media` (403
 * `fileNotDownloadable` for Google types), `files.export` (per-type formats,
 * 403 `exportSizeLimitExceeded`), `changes.getStartPageToken` and
 * `changes.list` (`nextPageToken` / `newStartPageToken`, one change per file
 * with its latest state). Errors are Google's JSON error bodies. Access
 * tokens live an hour on the given clock; rate limits (429, or 403
 * `userRateLimitExceeded`), failures and revocation can be switched on;
 * every request is recorded.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../layers/core/ports/clock.port';

export const DRIVE_TYPES = {
  folder: 'application/vnd.google-apps.folder',
  doc: 'application/vnd.google-apps.document',
  sheet: 'application/vnd.google-apps.spreadsheet',
  slides: 'application/vnd.google-apps.presentation',
  form: 'application/vnd.google-apps.form',
} as const;

/** What the stand-in exports each Google type as: the documented formats it serves. */
const EXPORTS: Record<string, readonly string[]> = {
  [DRIVE_TYPES.doc]: ['text/markdown', 'text/plain', 'application/pdf'],
  [DRIVE_TYPES.sheet]: ['text/csv', 'text/tab-separated-values', 'application/pdf'],
  [DRIVE_TYPES.slides]: ['text/plain', 'application/pdf'],
};

export interface DriveItem {
  readonly id: string;
  name: string;
  mimeType: string;
  parents: string[];
  /** The shared drive it lives in, if any. */
  driveId?: string;
  trashed: boolean;
  /**
   * The file's bytes; for Google types, the export of each format
   * (the stand-in's documents are written in their export formats).
   */
  content: Buffer | Record<string, string>;
}

interface Grant {
  readonly refreshToken: string;
  revoked: boolean;
}

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly body: string;
}

const ACCESS_SECONDS = 3599;
const SCOPE = 'https://www.googleapis.com/auth/drive.readonly';
/** Drive's export limit ("This file is too large to be exported."). */
const EXPORT_LIMIT_BYTES = 10 * 1024 * 1024;

export class GoogleDriveEmulator {
  readonly clientId = `${randomBytes(6).toString('hex')}.apps.googleusercontent.com`;
  readonly clientSecret = `GOCSPX-${randomBytes(12).toString('hex')}`;
  /** files.list and changes.list results per page at most (Drive caps `pageSize` itself). */
  pageSize = 2;
  /** Consent refused on the consent screen (`error=access_denied`). */
  denyConsent = false;
  /** Granular consent: the person unticked the Drive permission. */
  grantScope = SCOPE;
  private readonly items = new Map<string, DriveItem>();
  private readonly changes: { seq: number; fileId: string; time: string }[] = [];
  private seq = 1;
  private readonly codes = new Map<string, { challenge: string; redirectUri: string }>();
  private readonly grants = new Map<string, Grant>();
  private readonly accessTokens = new Map<string, { grant: Grant; expiresAt: number }>();
  private readonly log: RecordedRequest[] = [];
  private limited: { count: number; status: 429 | 403; retryAfter: string | null } | null = null;
  private failWhen: ((url: URL) => boolean) | null = null;
  private server = createServer((req, res) => void this.handle(req, res));
  origin = '';

  constructor(private readonly clock: Clock) {}

  async start(): Promise<this> {
    // Google keeps idle connections open for minutes; Node's 5 s default races the client's reuse.
    this.server.keepAliveTimeout = 120_000;
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Creates or replaces an item (an edit, a rename, a move); each is a change. */
  put(item: Omit<DriveItem, 'trashed'> & { trashed?: boolean }): void {
    this.items.set(item.id, { trashed: false, ...item });
    this.recordChange(item.id);
  }

  /** Changes an item in place (rename, trash, move, new content): one change. */
  update(id: string, change: Partial<Omit<DriveItem, 'id'>>): void {
    const item = this.items.get(id);
    if (!item) throw new Error(`no item ${id}`);
    Object.assign(item, change);
    this.recordChange(id);
  }

  /** Deleted for good (not trashed): a `removed` change. */
  remove(id: string): void {
    this.items.delete(id);
    this.recordChange(id);
  }

  /** The user removed the app's access: every token of every grant stops working. */
  revokeEverything(): void {
    for (const grant of this.grants.values()) grant.revoked = true;
  }

  /** The next `count` Drive requests answer 429 (or 403 `userRateLimitExceeded`). */
  rateLimitNext(count: number, status: 429 | 403 = 429, retryAfter: string | null = '1'): void {
    this.limited = { count, status, retryAfter };
  }

  /** Drive requests matching `predicate` answer 500 until `failOn(null)`. */
  failOn(predicate: ((url: URL) => boolean) | null): void {
    this.failWhen = predicate;
  }

  requests(): RecordedRequest[] {
    return [...this.log];
  }

  activeRefreshTokens(): string[] {
    return [...this.grants.values()].filter((g) => !g.revoked).map((g) => g.refreshToken);
  }

  issuedTokens(): string[] {
    return [...this.accessTokens.keys(), ...this.grants.keys()];
  }

  webViewLink(item: DriveItem): string {
    const path =
      item.mimeType === DRIVE_TYPES.doc
        ? `document/d/${item.id}/edit`
        : item.mimeType === DRIVE_TYPES.sheet
          ? `spreadsheets/d/${item.id}/edit`
          : item.mimeType === DRIVE_TYPES.slides
            ? `presentation/d/${item.id}/edit`
            : null;
    if (path) return `https://docs.google.com/${path}?usp=drivesdk`;
    if (item.mimeType === DRIVE_TYPES.folder) {
      return `https://drive.google.com/drive/folders/${item.id}`;
    }
    return `https://drive.google.com/file/d/${item.id}/view?usp=drivesdk`;
  }

  private recordChange(fileId: string): void {
    this.changes.push({ seq: this.seq, fileId, time: this.clock.now().toISOString() });
    this.seq += 1;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', this.origin);
    this.log.push({ method: req.method ?? 'GET', url: `${url.pathname}${url.search}`, body });
    try {
      if (url.pathname === '/o/oauth2/v2/auth') return this.authorize(url, res);
      if (url.pathname === '/token' && req.method === 'POST') return this.token(body, res);
      if (url.pathname === '/revoke' && req.method === 'POST') return this.revoke(body, url, res);
      if (url.pathname.startsWith('/drive/v3/')) {
        if (this.limited && this.limited.count > 0) {
          this.limited.count -= 1;
          const reason =
            this.limited.status === 429 ? 'rateLimitExceeded' : 'userRateLimitExceeded';
          return googleError(
            res,
            this.limited.status,
            'usageLimits',
            reason,
            this.limited.status === 429 ? 'Rate Limit Exceeded' : 'User Rate Limit Exceeded',
            this.limited.retryAfter ? { 'Retry-After': this.limited.retryAfter } : {},
          );
        }
        if (!this.authorized(req, res)) return;
        if (this.failWhen?.(url)) {
          return googleError(res, 500, 'global', 'backendError', 'Backend Error');
        }
        return this.drive(url, res);
      }
      json(res, 404, { error: { code: 404, message: 'Not Found' } });
    } catch (error) {
      googleError(res, 500, 'global', 'backendError', (error as Error).message);
    }
  }

  private authorize(url: URL, res: ServerResponse) {
    const redirectUri = url.searchParams.get('redirect_uri') ?? '';
    const back = new URL(redirectUri);
    if (
      url.searchParams.get('client_id') !== this.clientId ||
      url.searchParams.get('response_type') !== 'code' ||
      url.searchParams.get('code_challenge_method') !== 'S256' ||
      !url.searchParams.get('code_challenge')
    ) {
      return json(res, 400, { error: 'invalid_request' });
    }
    if (this.denyConsent) {
      back.searchParams.set('error', 'access_denied');
    } else {
      const code = `4/0${randomBytes(16).toString('hex')}`;
      this.codes.set(code, {
        challenge: url.searchParams.get('code_challenge') ?? '',
        redirectUri,
      });
      back.searchParams.set('code', code);
      back.searchParams.set('scope', this.grantScope);
    }
    back.searchParams.set('state', url.searchParams.get('state') ?? '');
    res.writeHead(302, { Location: back.toString() }).end();
  }

  private token(body: string, res: ServerResponse) {
    const request = new URLSearchParams(body);
    if (
      request.get('client_id') !== this.clientId ||
      request.get('client_secret') !== this.clientSecret
    ) {
      return json(res, 401, {
        error: 'invalid_client',
        error_description: 'The OAuth client was not found.',
      });
    }
    if (request.get('grant_type') === 'authorization_code') {
      const code = this.codes.get(request.get('code') ?? '');
      this.codes.delete(request.get('code') ?? '');
      const challenge = createHash('sha256')
        .update(request.get('code_verifier') ?? '')
        .digest('base64url');
      if (
        !code ||
        code.redirectUri !== request.get('redirect_uri') ||
        code.challenge !== challenge
      ) {
        return json(res, 400, { error: 'invalid_grant', error_description: 'Bad Request' });
      }
      const grant = { refreshToken: `1//0${randomBytes(24).toString('hex')}`, revoked: false };
      this.grants.set(grant.refreshToken, grant);
      return json(res, 200, { ...this.issue(grant), refresh_token: grant.refreshToken });
    }
    if (request.get('grant_type') === 'refresh_token') {
      const grant = this.grants.get(request.get('refresh_token') ?? '');
      if (!grant || grant.revoked) {
        return json(res, 400, {
          error: 'invalid_grant',
          error_description: 'Token has been expired or revoked.',
        });
      }
      // Google keeps the refresh token: the answer carries a new access token only.
      return json(res, 200, this.issue(grant));
    }
    json(res, 400, { error: 'unsupported_grant_type', error_description: 'Invalid grant_type' });
  }

  private revoke(body: string, url: URL, res: ServerResponse) {
    const token = new URLSearchParams(body).get('token') ?? url.searchParams.get('token') ?? '';
    const grant = this.grants.get(token) ?? this.accessTokens.get(token)?.grant;
    if (!grant || grant.revoked) {
      return json(res, 400, {
        error: 'invalid_token',
        error_description: 'Token expired or revoked',
      });
    }
    grant.revoked = true;
    json(res, 200, {});
  }

  private issue(grant: Grant) {
    const accessToken = `ya29.${randomBytes(24).toString('hex')}`;
    this.accessTokens.set(accessToken, {
      grant,
      expiresAt: this.clock.now().getTime() + ACCESS_SECONDS * 1000,
    });
    return {
      access_token: accessToken,
      expires_in: ACCESS_SECONDS,
      scope: this.grantScope,
      token_type: 'Bearer',
    };
  }

  private authorized(req: IncomingMessage, res: ServerResponse): boolean {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const access = this.accessTokens.get(token);
    if (!access || access.grant.revoked || access.expiresAt <= this.clock.now().getTime()) {
      googleError(res, 401, 'global', 'authError', 'Invalid Credentials', {
        'WWW-Authenticate': 'Bearer realm="https://accounts.google.com/", error="invalid_token"',
      });
      return false;
    }
    return true;
  }

  private drive(url: URL, res: ServerResponse) {
    const path = url.pathname.slice('/drive/v3'.length);
    if (path === '/changes/startPageToken') {
      return json(res, 200, { kind: 'drive#startPageToken', startPageToken: String(this.seq) });
    }
    if (path === '/changes') return this.listChanges(url, res);
    if (path === '/files') return this.listFiles(url, res);
    const exportMatch = /^\/files\/([^/]+)\/export$/.exec(path);
    if (exportMatch) return this.exportFile(decodeURIComponent(exportMatch[1] ?? ''), url, res);
    const fileMatch = /^\/files\/([^/]+)$/.exec(path);
    if (fileMatch) return this.getFile(decodeURIComponent(fileMatch[1] ?? ''), url, res);
    googleError(res, 404, 'global', 'notFound', 'Not Found');
  }

  /** Drive's `q`, as much of it as the connector uses: `'X' in parents`, `trashed = false`, joined by `and`. */
  private matches(item: DriveItem, q: string): boolean {
    for (const term of q.split(/\s+and\s+/i)) {
      const parent = /^'((?:[^'\\]|\\.)*)' in parents$/.exec(term.trim());
      if (parent) {
        if (!item.parents.includes((parent[1] ?? '').replace(/\\(.)/g, '$1'))) return false;
        continue;
      }
      if (/^trashed\s*=\s*false$/.test(term.trim())) {
        if (item.trashed) return false;
        continue;
      }
      throw new Error(`unsupported q term: ${term}`);
    }
    return true;
  }

  private listFiles(url: URL, res: ServerResponse) {
    const q = url.searchParams.get('q') ?? '';
    const corpora = url.searchParams.get('corpora') ?? 'user';
    const driveId = url.searchParams.get('driveId');
    const allDrives = url.searchParams.get('includeItemsFromAllDrives') === 'true';
    if (corpora === 'drive' && (!driveId || !allDrives)) {
      return googleError(
        res,
        400,
        'global',
        'invalid',
        'The includeItemsFromAllDrives parameter must be set to true when driveId is set.',
      );
    }
    if (corpora === 'drive' && !this.isDrive(driveId ?? '')) {
      return googleError(res, 404, 'global', 'notFound', `Shared drive not found: ${driveId}`);
    }
    let results: DriveItem[];
    try {
      results = [...this.items.values()]
        .filter((item) => (corpora === 'drive' ? item.driveId === driveId : true))
        // Without includeItemsFromAllDrives, shared drives' items are left out.
        .filter((item) => allDrives || item.driveId === undefined)
        .filter((item) => this.matches(item, q))
        .sort((a, b) => a.id.localeCompare(b.id));
    } catch (error) {
      return googleError(res, 400, 'global', 'invalid', (error as Error).message);
    }
    const limit = Math.min(Number(url.searchParams.get('pageSize') ?? 100), this.pageSize);
    const offset = Number(
      Buffer.from(url.searchParams.get('pageToken') ?? '', 'base64url').toString() || 0,
    );
    const page = results.slice(offset, offset + limit);
    const fields = fieldsOf(url.searchParams.get('fields'), 'files');
    json(res, 200, {
      kind: 'drive#fileList',
      incompleteSearch: false,
      ...(offset + limit < results.length
        ? { nextPageToken: Buffer.from(String(offset + limit)).toString('base64url') }
        : {}),
      files: page.map((item) => pick(this.resourceOf(item), fields)),
    });
  }

  private listChanges(url: URL, res: ServerResponse) {
    const token = Number(url.searchParams.get('pageToken'));
    if (!Number.isInteger(token) || token < 1 || token > this.seq) {
      return googleError(res, 400, 'global', 'invalid', 'Invalid Value', {}, 'pageToken');
    }
    const limit = Math.min(Number(url.searchParams.get('pageSize') ?? 100), this.pageSize);
    const range = this.changes.filter((change) => change.seq >= token);
    const page = range.slice(0, limit);
    const last = page.at(-1);
    const more = range.length > page.length;
    const fields = fieldsOf(url.searchParams.get('fields'), 'changes');
    json(res, 200, {
      kind: 'drive#changeList',
      ...(more && last ? { nextPageToken: String(last.seq + 1) } : {}),
      ...(more ? {} : { newStartPageToken: String(this.seq) }),
      changes: page.map((change) => {
        const item = this.items.get(change.fileId);
        return pick(
          {
            kind: 'drive#change',
            changeType: 'file',
            time: change.time,
            removed: item === undefined,
            fileId: change.fileId,
            ...(item ? { file: this.resourceOf(item) } : {}),
            ...(item?.driveId ? { driveId: item.driveId } : {}),
          },
          fields,
        );
      }),
    });
  }

  private getFile(id: string, url: URL, res: ServerResponse) {
    const item = this.items.get(id);
    if (!item || (item.driveId && url.searchParams.get('supportsAllDrives') !== 'true')) {
      return googleError(res, 404, 'global', 'notFound', `File not found: ${id}.`, {}, 'fileId');
    }
    if (url.searchParams.get('alt') !== 'media') {
      return json(res, 200, pick(this.resourceOf(item), fieldsOf(url.searchParams.get('fields'))));
    }
    if (!Buffer.isBuffer(item.content)) {
      return googleError(
        res,
        403,
        'global',
        'fileNotDownloadable',
        'Only files with binary content can be downloaded. Use Export with Docs Editors files.',
      );
    }
    res
      .writeHead(200, { 'Content-Type': item.mimeType, 'Content-Length': item.content.length })
      .end(item.content);
  }

  private exportFile(id: string, url: URL, res: ServerResponse) {
    const item = this.items.get(id);
    if (!item || (item.driveId && url.searchParams.get('supportsAllDrives') !== 'true')) {
      return googleError(res, 404, 'global', 'notFound', `File not found: ${id}.`, {}, 'fileId');
    }
    const format = url.searchParams.get('mimeType') ?? '';
    const exported = Buffer.isBuffer(item.content) ? undefined : item.content[format];
    if (!EXPORTS[item.mimeType]?.includes(format) || exported === undefined) {
      return googleError(
        res,
        400,
        'global',
        'badRequest',
        'The requested conversion is not supported.',
        {},
        'convertTo',
      );
    }
    const bytes = Buffer.from(exported, 'utf8');
    if (bytes.length > EXPORT_LIMIT_BYTES) {
      return googleError(
        res,
        403,
        'global',
        'exportSizeLimitExceeded',
        'This file is too large to be exported.',
      );
    }
    res.writeHead(200, { 'Content-Type': format, 'Content-Length': bytes.length }).end(bytes);
  }

  private isDrive(id: string): boolean {
    return [...this.items.values()].some((item) => item.driveId === id);
  }

  private resourceOf(item: DriveItem): Record<string, unknown> {
    return {
      kind: 'drive#file',
      id: item.id,
      name: item.name,
      mimeType: item.mimeType,
      parents: item.parents,
      trashed: item.trashed,
      webViewLink: this.webViewLink(item),
      ...(Buffer.isBuffer(item.content) ? { size: String(item.content.length) } : {}),
      ...(item.driveId ? { driveId: item.driveId } : {}),
    };
  }
}

/** The fields `fields` asks for under `collection` (`files(id,name)`), or Drive's default set. */
function fieldsOf(fields: string | null, collection?: string): readonly string[] | null {
  if (!fields) return collection === 'changes' ? null : ['kind', 'id', 'name', 'mimeType'];
  if (!collection) return fields.split(',').map((field) => field.trim());
  const inner = new RegExp(`${collection}\\(([^)]*(?:\\([^)]*\\))?[^)]*)\\)`).exec(fields)?.[1];
  if (inner === undefined) return null;
  return inner.split(/,(?![^(]*\))/).map((field) => field.trim().replace(/\(.*$/, ''));
}

function pick(resource: Record<string, unknown>, fields: readonly string[] | null) {
  if (fields === null) return resource;
  return Object.fromEntries(Object.entries(resource).filter(([key]) => fields.includes(key)));
}

function json(res: ServerResponse, status: number, body: unknown, headers = {}): void {
  res
    .writeHead(status, { 'Content-Type': 'application/json; charset=UTF-8', ...headers })
    .end(JSON.stringify(body));
}

/** Google's JSON error body (Drive "Resolve errors"). */
function googleError(
  res: ServerResponse,
  status: number,
  domain: string,
  reason: string,
  message: string,
  headers: Record<string, string> = {},
  location?: string,
): void {
  json(
    res,
    status,
    {
      error: {
        code: status,
        message,
        errors: [
          {
            domain,
            reason,
            message,
            ...(location ? { location, locationType: 'parameter' } : {}),
          },
        ],
      },
    },
    headers,
  );
}
