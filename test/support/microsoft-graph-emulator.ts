/**
 * A loopback stand-in for Microsoft (issue 12, P183–P185): the identity
 * platform's v2.0 endpoints for one authority (`/organizations/oauth2/v2.0/
 * authorize` and `/token`, in `MicrosoftIdentityPlatform`) and the Microsoft Graph
 * calls the SharePoint connector makes, with Graph's documented shapes:
 * `GET /v1.0/sites/{hostname}:/{path}`, `/sites/{id}/drives`,
 * `/drives/{id}/root/delta` (a full enumeration without a token; with one,
 * what changed since — `deleted` facets without `name`, as OneDrive for
 * Business sends them — paged by `@odata.nextLink`, ending with an
 * `@odata.deltaLink`; `410 Gone` with `resyncChangesApplyDifferences` and a
 * `Location` for expired tokens; `$select`, `$top`), and
 * `/drives/{id}/items/{id}/content` (`302` to a pre-authenticated download
 * address that refuses a bearer token). Access tokens live an hour on the
 * given clock; 429/503 with `Retry-After`, failures and revocation can be
 * switched on; every request is recorded.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../layers/core/ports/clock.port';
import { MicrosoftIdentityPlatform } from './microsoft-identity-platform';

interface DriveNode {
  readonly id: string;
  name: string;
  parentId: string | null;
  readonly folder: boolean;
  bytes: Buffer;
  mimeType: string | null;
  /** The size Graph reports, when a test wants a file larger than it stores. */
  declaredSize?: number;
  version: number;
  modifiedAt: string;
  /** The drive's change counter when this item last changed (delta tokens count in it). */
  changed: number;
  deleted: boolean;
}

interface Drive {
  readonly id: string;
  readonly name: string;
  readonly items: Map<string, DriveNode>;
  readonly rootId: string;
  seq: number;
  /** Delta tokens older than this answer 410 (the service lost their history). */
  oldestToken: number;
}

interface DeltaToken {
  /** Changes after this counter (`null`: the full enumeration). */
  readonly since: number | null;
  /** The counter when this round began (later changes wait for the next round); `null` until it begins. */
  readonly upto: number | null;
  readonly offset: number;
  readonly select: string | null;
  readonly top: number | null;
}

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly body: string;
  readonly authorization: string | null;
}

const TENANT = 'organizations';
const SITE_PATH = '/sites/kb';
const HOSTNAME = 'acme.sharepoint.com';

export class MicrosoftGraphEmulator {
  readonly clientId = randomUUID();
  readonly clientSecret = `secret~${randomBytes(12).toString('base64url')}`;
  readonly siteUrl = `https://${HOSTNAME}${SITE_PATH}`;
  readonly siteId = `${HOSTNAME},${randomUUID()},${randomUUID()}`;
  /** Items per delta page (Graph chooses its own page size; `$top` asks for fewer). */
  pageSize = 3;
  private readonly drives = new Map<string, Drive>();
  private readonly downloads = new Map<
    string,
    { drive: string; item: string; expiresAt: number }
  >();
  private readonly log: RecordedRequest[] = [];
  private throttled: { count: number; status: 429 | 503; retryAfter: string } | null = null;
  private failWhen: ((url: URL) => boolean) | null = null;
  private readonly server = createServer((req, res) => void this.handle(req, res));
  origin = '';

  private readonly identity: MicrosoftIdentityPlatform;

  constructor(private readonly clock: Clock) {
    this.identity = new MicrosoftIdentityPlatform(clock, {
      id: this.clientId,
      secret: this.clientSecret,
    });
  }

  /** Consent refused at `/authorize` (`error=access_denied`). */
  get denyConsent(): boolean {
    return this.identity.denyConsent;
  }

  set denyConsent(deny: boolean) {
    this.identity.denyConsent = deny;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** The identity platform's authority (SVC_MICROSOFT_AUTH_URL). */
  get authUrl(): string {
    return `${this.origin}/${TENANT}`;
  }

  /** Microsoft Graph v1.0 (SVC_MICROSOFT_GRAPH_URL). */
  get graphUrl(): string {
    return `${this.origin}/v1.0`;
  }

  /** A document library of the site; returns its drive id (`b!…`, as SharePoint's look). */
  addDrive(name: string): string {
    const id = `b!${randomBytes(24).toString('base64url')}`;
    const rootId = this.itemId();
    const drive: Drive = { id, name, items: new Map(), rootId, seq: 0, oldestToken: 0 };
    drive.items.set(rootId, this.node(drive, rootId, 'root', null, true));
    this.drives.set(id, drive);
    return id;
  }

  /** Creates or replaces the file at `path` (folders created as needed); returns its item id. */
  putFile(
    driveId: string,
    path: string,
    bytes: Buffer | string,
    mimeType: string | null = null,
    declaredSize?: number,
  ) {
    const drive = this.drive(driveId);
    const parts = path.split('/');
    const name = parts.pop() ?? path;
    let parentId = drive.rootId;
    for (const folder of parts) {
      const existing = this.childNamed(drive, parentId, folder);
      if (existing) {
        parentId = existing.id;
        continue;
      }
      const created = this.node(drive, this.itemId(), folder, parentId, true);
      drive.items.set(created.id, created);
      parentId = created.id;
    }
    const content = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
    const existing = this.childNamed(drive, parentId, name);
    if (existing) {
      existing.bytes = content;
      existing.mimeType = mimeType;
      this.touch(drive, existing);
      return existing.id;
    }
    const file = this.node(drive, this.itemId(), name, parentId, false);
    file.bytes = content;
    file.mimeType = mimeType;
    if (declaredSize !== undefined) file.declaredSize = declaredSize;
    drive.items.set(file.id, file);
    return file.id;
  }

  rename(driveId: string, itemId: string, name: string): void {
    const drive = this.drive(driveId);
    const item = this.item(drive, itemId);
    item.name = name;
    this.touch(drive, item);
  }

  /** Deletes an item (a folder with everything in it: each descendant is reported deleted too). */
  remove(driveId: string, itemId: string): void {
    const drive = this.drive(driveId);
    const item = this.item(drive, itemId);
    for (const child of [...drive.items.values()].filter((c) => c.parentId === item.id)) {
      if (!child.deleted) this.remove(driveId, child.id);
    }
    item.deleted = true;
    this.touch(drive, item);
  }

  itemIdAt(driveId: string, path: string): string {
    const drive = this.drive(driveId);
    let current = drive.rootId;
    for (const part of path.split('/')) {
      const next = this.childNamed(drive, current, part);
      if (!next) throw new Error(`no ${path}`);
      current = next.id;
    }
    return current;
  }

  /** The address Graph gives the item (`webUrl`): the site, the library, the path. */
  webUrlOf(driveId: string, itemId: string): string {
    const drive = this.drive(driveId);
    const segments: string[] = [];
    let node = drive.items.get(itemId);
    while (node && node.parentId !== null) {
      segments.unshift(encodeURIComponent(node.name));
      node = drive.items.get(node.parentId);
    }
    return [this.siteUrl, encodeURIComponent(drive.name), ...segments].join('/');
  }

  /** Every delta token issued so far stops working (410 resync). */
  expireDeltaTokens(): void {
    for (const drive of this.drives.values()) drive.oldestToken = drive.seq + 1;
  }

  /** The user (or an administrator) removed the app's access: tokens and refresh tokens stop working. */
  revokeEverything(): void {
    this.identity.revokeEverything();
  }

  /** The next `count` Graph requests answer `status` with this `Retry-After`. */
  throttleNext(count: number, retryAfter = '1', status: 429 | 503 = 429): void {
    this.throttled = { count, status, retryAfter };
  }

  /** Graph requests matching `predicate` answer 500 until `failOn(null)`. */
  failOn(predicate: ((url: URL) => boolean) | null): void {
    this.failWhen = predicate;
  }

  requests(): RecordedRequest[] {
    return [...this.log];
  }

  /** Every access and refresh token ever issued (to look for them in logs and responses). */
  issuedTokens(): string[] {
    return this.identity.issuedTokens();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', this.origin);
    this.log.push({
      method: req.method ?? 'GET',
      url: `${url.pathname}${url.search}`,
      body,
      authorization: req.headers.authorization ?? null,
    });
    try {
      if (url.pathname === `/${TENANT}/oauth2/v2.0/authorize`)
        return this.identity.authorize(url, res);
      if (url.pathname === `/${TENANT}/oauth2/v2.0/token` && req.method === 'POST') {
        return this.identity.token(body, res);
      }
      if (url.pathname.startsWith('/download/')) return this.download(req, url, res);
      if (url.pathname.startsWith('/v1.0/')) return this.graph(req, url, res);
      graphError(res, 404, 'itemNotFound', 'Not found');
    } catch (error) {
      graphError(res, 500, 'generalException', (error as Error).message);
    }
  }

  private graph(req: IncomingMessage, url: URL, res: ServerResponse) {
    if (this.throttled && this.throttled.count > 0) {
      this.throttled.count -= 1;
      res.writeHead(this.throttled.status, {
        'Retry-After': this.throttled.retryAfter,
        'Content-Type': 'application/json',
      });
      return void res.end(
        JSON.stringify({
          error: {
            code: this.throttled.status === 429 ? 'TooManyRequests' : 'serviceNotAvailable',
            message: 'Please retry after',
          },
        }),
      );
    }
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    if (!this.identity.isValidAccessToken(token)) {
      return graphError(
        res,
        401,
        'InvalidAuthenticationToken',
        'Access token has expired or is not yet valid.',
      );
    }
    if (this.failWhen?.(url)) return graphError(res, 500, 'generalException', 'General failure');
    const path = decodeURIComponent(url.pathname.slice('/v1.0'.length));
    if (path === `/sites/${HOSTNAME}:${SITE_PATH}`) return json(res, 200, this.site());
    if (path.startsWith('/sites/') && path.endsWith('/drives')) {
      if (path !== `/sites/${this.siteId}/drives`)
        return graphError(res, 404, 'itemNotFound', 'Item not found');
      return json(res, 200, {
        '@odata.context': `${this.graphUrl}/$metadata#drives`,
        value: [...this.drives.values()].map((drive) => this.driveJson(drive)),
      });
    }
    if (path.startsWith('/sites/'))
      return graphError(res, 404, 'itemNotFound', 'Requested site could not be found');
    const delta = /^\/drives\/([^/]+)\/root\/delta$/.exec(path);
    if (delta) return this.delta(delta[1] ?? '', url, res);
    const content = /^\/drives\/([^/]+)\/items\/([^/]+)\/content$/.exec(path);
    if (content) {
      const drive = this.drives.get(content[1] ?? '');
      const item = drive?.items.get(content[2] ?? '');
      if (!drive || !item || item.deleted || item.folder) {
        return graphError(res, 404, 'itemNotFound', 'The resource could not be found.');
      }
      const ticket = randomBytes(24).toString('base64url');
      this.downloads.set(ticket, {
        drive: drive.id,
        item: item.id,
        expiresAt: this.clock.now().getTime() + 3_600_000,
      });
      res.writeHead(302, {
        Location: `${this.origin}/download/${drive.id}/${item.id}?tempauth=${ticket}`,
      });
      return void res.end();
    }
    graphError(res, 404, 'itemNotFound', 'Item not found');
  }

  /** The pre-authenticated address: the ticket is the authorization; a bearer token is refused. */
  private download(req: IncomingMessage, url: URL, res: ServerResponse) {
    if (req.headers.authorization) {
      return graphError(
        res,
        401,
        'unauthenticated',
        'Pre-authenticated URLs take no Authorization header',
      );
    }
    const ticket = this.downloads.get(url.searchParams.get('tempauth') ?? '');
    if (!ticket || ticket.expiresAt <= this.clock.now().getTime()) {
      return graphError(res, 401, 'unauthenticated', 'Invalid tempauth');
    }
    const item = this.drives.get(ticket.drive)?.items.get(ticket.item);
    if (!item || item.deleted) return graphError(res, 404, 'itemNotFound', 'Not found');
    res.writeHead(200, {
      'Content-Type': item.mimeType ?? 'application/octet-stream',
      'Content-Length': String(item.bytes.length),
    });
    res.end(item.bytes);
  }

  private delta(driveId: string, url: URL, res: ServerResponse) {
    const drive = this.drives.get(driveId);
    if (!drive) return graphError(res, 404, 'itemNotFound', 'The resource could not be found.');
    const raw = url.searchParams.get('token');
    let token: DeltaToken;
    if (raw === null) {
      token = {
        since: null,
        upto: drive.seq,
        offset: 0,
        select: url.searchParams.get('$select'),
        top: url.searchParams.has('$top') ? Number(url.searchParams.get('$top')) : null,
      };
    } else if (raw === 'latest') {
      return json(res, 200, {
        value: [],
        '@odata.deltaLink': this.link(drive, this.fresh(drive.seq)),
      });
    } else {
      try {
        token = JSON.parse(Buffer.from(raw, 'base64url').toString()) as DeltaToken;
      } catch {
        return graphError(res, 400, 'invalidRequest', 'Invalid token');
      }
      if (token.since !== null && token.since < drive.oldestToken) {
        res.writeHead(410, {
          'Content-Type': 'application/json',
          Location: `${this.graphUrl}/drives/${drive.id}/root/delta`,
        });
        return void res.end(
          JSON.stringify({
            error: {
              code: 'resyncRequired',
              message:
                "Resync required. Replace any local items with the server's version (including deletes) if you're sure that the service was up to date with your local changes when you last sync'd.",
              innerError: { code: 'resyncChangesApplyDifferences' },
            },
          }),
        );
      }
    }
    // A round begins at its first page: changes made while it is paged through wait for the next one.
    const upto = token.upto ?? drive.seq;
    token = { ...token, upto };
    const since = token.since;
    const all = [...drive.items.values()]
      .filter((item) =>
        since === null
          ? !item.deleted && item.changed <= upto
          : item.changed > since && item.changed <= upto,
      )
      .sort((a, b) =>
        since === null ? this.depth(drive, a) - this.depth(drive, b) : a.changed - b.changed,
      );
    const size = Math.min(this.pageSize, token.top ?? this.pageSize);
    const page = all.slice(token.offset, token.offset + size);
    const more = token.offset + size < all.length;
    json(res, 200, {
      '@odata.context': `${this.graphUrl}/$metadata#Collection(driveItem)`,
      value: page.map((item) => this.select(this.itemJson(drive, item), token.select)),
      ...(more
        ? { '@odata.nextLink': this.link(drive, { ...token, offset: token.offset + size }) }
        : { '@odata.deltaLink': this.link(drive, this.fresh(upto)) }),
    });
  }

  private fresh(upto: number): DeltaToken {
    return { since: upto, upto: null, offset: 0, select: null, top: null };
  }

  private link(drive: Drive, token: DeltaToken): string {
    return `${this.graphUrl}/drives/${drive.id}/root/delta?token=${Buffer.from(JSON.stringify(token)).toString('base64url')}`;
  }

  private site() {
    return {
      '@odata.context': `${this.graphUrl}/$metadata#sites/$entity`,
      createdDateTime: '2024-01-02T03:04:05Z',
      description: 'Knowledge base',
      id: this.siteId,
      lastModifiedDateTime: this.clock.now().toISOString(),
      name: 'kb',
      webUrl: this.siteUrl,
      displayName: 'Knowledge base',
      siteCollection: { hostname: HOSTNAME },
    };
  }

  private driveJson(drive: Drive) {
    return {
      id: drive.id,
      name: drive.name,
      driveType: 'documentLibrary',
      description: '',
      webUrl: `${this.siteUrl}/${encodeURIComponent(drive.name)}`,
      createdDateTime: '2024-01-02T03:04:05Z',
      lastModifiedDateTime: this.clock.now().toISOString(),
    };
  }

  private itemJson(drive: Drive, item: DriveNode): Record<string, unknown> {
    const parentReference = {
      driveType: 'documentLibrary',
      driveId: drive.id,
      ...(item.parentId ? { id: item.parentId } : {}),
    };
    if (item.deleted) {
      // OneDrive for Business omits `name` and `cTag` of deleted items.
      return { id: item.id, parentReference, deleted: { state: 'deleted' } };
    }
    const common = {
      id: item.id,
      name: item.name,
      eTag: `"{${item.id}},${item.version}"`,
      createdDateTime: '2024-01-02T03:04:05Z',
      lastModifiedDateTime: item.modifiedAt,
      webUrl:
        item.parentId === null
          ? `${this.siteUrl}/${encodeURIComponent(drive.name)}`
          : this.webUrlOf(drive.id, item.id),
      parentReference,
      fileSystemInfo: {
        createdDateTime: '2024-01-02T03:04:05Z',
        lastModifiedDateTime: item.modifiedAt,
      },
    };
    if (item.parentId === null)
      return {
        ...common,
        name: 'root',
        root: {},
        folder: { childCount: this.children(drive, item.id) },
      };
    if (item.folder)
      return { ...common, size: 0, folder: { childCount: this.children(drive, item.id) } };
    return {
      ...common,
      cTag: `"c:{${item.id}},${item.version}"`,
      size: item.declaredSize ?? item.bytes.length,
      file: {
        mimeType: item.mimeType ?? 'application/octet-stream',
        hashes: { quickXorHash: createHash('sha1').update(item.bytes).digest('base64') },
      },
    };
  }

  private select(item: Record<string, unknown>, select: string | null): Record<string, unknown> {
    if (!select) return item;
    const wanted = new Set(['id', ...select.split(',')]);
    return Object.fromEntries(Object.entries(item).filter(([key]) => wanted.has(key)));
  }

  private node(
    drive: Drive,
    id: string,
    name: string,
    parentId: string | null,
    folder: boolean,
  ): DriveNode {
    drive.seq += 1;
    return {
      id,
      name,
      parentId,
      folder,
      bytes: Buffer.alloc(0),
      mimeType: null,
      version: 1,
      modifiedAt: this.clock.now().toISOString(),
      changed: drive.seq,
      deleted: false,
    };
  }

  private touch(drive: Drive, item: DriveNode): void {
    drive.seq += 1;
    item.version += 1;
    item.changed = drive.seq;
    item.modifiedAt = this.clock.now().toISOString();
  }

  private childNamed(drive: Drive, parentId: string, name: string): DriveNode | undefined {
    return [...drive.items.values()].find(
      (c) => c.parentId === parentId && c.name === name && !c.deleted,
    );
  }

  private children(drive: Drive, id: string): number {
    return [...drive.items.values()].filter((c) => c.parentId === id && !c.deleted).length;
  }

  private depth(drive: Drive, item: DriveNode): number {
    let depth = 0;
    let node: DriveNode | undefined = item;
    while (node?.parentId) {
      depth += 1;
      node = drive.items.get(node.parentId);
    }
    return depth * 1_000_000 + item.changed;
  }

  private drive(id: string): Drive {
    const drive = this.drives.get(id);
    if (!drive) throw new Error(`no drive ${id}`);
    return drive;
  }

  private item(drive: Drive, id: string): DriveNode {
    const item = drive.items.get(id);
    if (!item) throw new Error(`no item ${id}`);
    return item;
  }

  private itemId(): string {
    return `01${randomBytes(16).toString('hex').toUpperCase()}`;
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

function graphError(res: ServerResponse, status: number, code: string, message: string): void {
  json(res, status, {
    error: {
      code,
      message,
      innerError: { date: new Date().toISOString(), 'request-id': randomUUID() },
    },
  });
}
