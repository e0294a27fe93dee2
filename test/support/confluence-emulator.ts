/**
 * A loopback stand-in for Atlassian (issue 12): the OAuth 2.0 (3LO)
 * endpoints of auth.atlassian.com and the Confluence Cloud REST API as
 * api.atlassian.com serves it for a site, with Atlassian's documented shapes —
 * `/authorize` (consent given at once, or refused), `/oauth/token` (JSON
 * bodies; authorization code with PKCE checked; rotating refresh tokens;
 * `invalid_grant` for revoked ones), RFC 7009 `/oauth/revoke`,
 * `/oauth/token/accessible-resources`, and `/ex/confluence/{cloudId}/wiki/
 * rest/api/content/search` (CQL by space, type and `lastmodified >=
 * now("-Nm")`, `order by lastmodified`, cursor pagination through
 * `_links.next`) and `/content/{id}`; attachments (`type = attachment`,
 * their `container`, `extensions.mediaType`/`fileSize`) and
 * `/content/{pageId}/child/attachment/{id}/download`, a `302` to a
 * pre-authenticated media address that refuses a bearer token (P186).
 * Access tokens live an hour on the
 * given clock; rate limits (429 + Retry-After), failures and revocation at
 * the provider can be switched on; every request is recorded.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../layers/core/ports/clock.port';

export interface ConfluenceItem {
  readonly id: string;
  readonly type: 'page' | 'blogpost' | 'attachment';
  readonly spaceKey: string;
  title: string;
  /** Storage-format XHTML. */
  body: string;
  /** ISO 8601 `version.when`. */
  when: string;
  version: number;
  /** Attachments: the page or blog post they belong to, their media type and bytes. */
  containerId?: string;
  mediaType?: string;
  bytes?: Buffer;
}

interface Grant {
  readonly refreshToken: string;
  revoked: boolean;
}

interface AccessToken {
  readonly grant: Grant;
  readonly expiresAt: number;
}

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly body: string;
}

const ACCESS_SECONDS = 3600;

export class ConfluenceEmulator {
  readonly clientId = 'confluence-test-client';
  readonly clientSecret = `secret-${randomBytes(8).toString('hex')}`;
  readonly cloudId = '11111111-2222-3333-4444-555555555555';
  readonly siteUrl: string;
  /** Search results per page (Confluence caps `limit` itself). */
  pageSize = 2;
  /** Consent refused at `/authorize` (`error=access_denied`). */
  denyConsent = false;
  private readonly items = new Map<string, ConfluenceItem>();
  private readonly codes = new Map<string, { challenge: string; redirectUri: string }>();
  private readonly grants = new Map<string, Grant>();
  private readonly accessTokens = new Map<string, AccessToken>();
  private readonly log: RecordedRequest[] = [];
  private readonly mediaTickets = new Map<string, string>();
  private rateLimited: { count: number; retryAfter: string } | null = null;
  private failWhen: ((url: URL) => boolean) | null = null;
  private server = createServer((req, res) => void this.handle(req, res));
  origin = '';

  constructor(
    private readonly clock: Clock,
    siteUrl = 'https://acme.atlassian.net',
  ) {
    this.siteUrl = siteUrl;
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

  put(item: Omit<ConfluenceItem, 'version'> & { version?: number }): void {
    const previous = this.items.get(item.id);
    this.items.set(item.id, { ...item, version: item.version ?? (previous?.version ?? 0) + 1 });
  }

  remove(id: string): void {
    this.items.delete(id);
    // A page's attachments go with it.
    for (const item of [...this.items.values()]) {
      if (item.containerId === id) this.items.delete(item.id);
    }
  }

  /** Attaches a file to a page (a new version when `id` exists). */
  attach(
    pageId: string,
    attachment: {
      id: string;
      title: string;
      mediaType: string;
      bytes: Buffer | string;
      when: string;
    },
  ): void {
    const page = this.items.get(pageId);
    if (!page) throw new Error(`no page ${pageId}`);
    this.put({
      id: attachment.id,
      type: 'attachment',
      spaceKey: page.spaceKey,
      title: attachment.title,
      body: '',
      when: attachment.when,
      containerId: pageId,
      mediaType: attachment.mediaType,
      bytes: Buffer.from(attachment.bytes),
    });
  }

  /** The user removed the app at the provider: every token of every grant stops working. */
  revokeEverything(): void {
    for (const grant of this.grants.values()) grant.revoked = true;
  }

  /** The next `count` API requests answer 429 with this `Retry-After`. */
  rateLimitNext(count: number, retryAfter = '1'): void {
    this.rateLimited = { count, retryAfter };
  }

  /** API requests matching `predicate` answer 500 until `failWhen(null)`. */
  failOn(predicate: ((url: URL) => boolean) | null): void {
    this.failWhen = predicate;
  }

  requests(): RecordedRequest[] {
    return [...this.log];
  }

  /** Refresh tokens that still work. */
  activeRefreshTokens(): string[] {
    return [...this.grants.values()].filter((g) => !g.revoked).map((g) => g.refreshToken);
  }

  /** Every access and refresh token ever issued (to look for them in logs and responses). */
  issuedTokens(): string[] {
    return [...this.accessTokens.keys(), ...this.grants.keys()];
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', this.origin);
    this.log.push({ method: req.method ?? 'GET', url: `${url.pathname}${url.search}`, body });
    try {
      if (url.pathname === '/authorize') return this.authorize(url, res);
      if (url.pathname === '/oauth/token' && req.method === 'POST') return this.token(body, res);
      if (url.pathname === '/oauth/revoke' && req.method === 'POST') return this.revoke(body, res);
      if (url.pathname.startsWith('/media/file/')) return this.media(req, url, res);
      if (url.pathname === '/oauth/token/accessible-resources') {
        if (!this.authorized(req, res)) return;
        return json(res, 200, [
          {
            id: this.cloudId,
            url: this.siteUrl,
            name: 'acme',
            scopes: ['read:confluence-content.all', 'search:confluence'],
            avatarUrl:
              'https://site-admin-avatar-cdn.prod.public.atl-paas.net/avatars/240/flag.png',
          },
        ]);
      }
      const wiki = `/ex/confluence/${this.cloudId}/wiki/rest/api/content`;
      if (url.pathname.startsWith(wiki)) {
        if (this.rateLimited && this.rateLimited.count > 0) {
          this.rateLimited.count -= 1;
          res.writeHead(429, { 'Retry-After': this.rateLimited.retryAfter });
          return void res.end();
        }
        if (!this.authorized(req, res)) return;
        if (this.failWhen?.(url)) return json(res, 500, { message: 'Internal server error' });
        if (url.pathname === `${wiki}/search`) return this.search(url, res);
        const download = new RegExp(`^${wiki}/([^/]+)/child/attachment/([^/]+)/download$`).exec(
          url.pathname,
        );
        if (download) return this.download(download[1] ?? '', download[2] ?? '', res);
        const id = decodeURIComponent(url.pathname.slice(wiki.length + 1));
        const item = this.items.get(id);
        if (!item)
          return json(res, 404, { statusCode: 404, message: `No content found with id: ${id}` });
        return json(res, 200, this.contentOf(item, url.searchParams.get('expand') ?? ''));
      }
      json(res, 404, { message: 'not found' });
    } catch (error) {
      json(res, 500, { message: (error as Error).message });
    }
  }

  private authorize(url: URL, res: ServerResponse) {
    const redirectUri = url.searchParams.get('redirect_uri') ?? '';
    const state = url.searchParams.get('state') ?? '';
    const back = new URL(redirectUri);
    if (
      url.searchParams.get('client_id') !== this.clientId ||
      url.searchParams.get('code_challenge_method') !== 'S256'
    ) {
      return json(res, 400, { error: 'invalid_request' });
    }
    if (this.denyConsent) {
      back.searchParams.set('error', 'access_denied');
    } else {
      const code = randomBytes(16).toString('hex');
      this.codes.set(code, {
        challenge: url.searchParams.get('code_challenge') ?? '',
        redirectUri,
      });
      back.searchParams.set('code', code);
    }
    back.searchParams.set('state', state);
    res.writeHead(302, { Location: back.toString() }).end();
  }

  private token(body: string, res: ServerResponse) {
    const request = JSON.parse(body) as Record<string, string>;
    if (request.client_id !== this.clientId || request.client_secret !== this.clientSecret) {
      return json(res, 401, { error: 'access_denied', error_description: 'Unauthorized' });
    }
    if (request.grant_type === 'authorization_code') {
      const code = this.codes.get(request.code ?? '');
      this.codes.delete(request.code ?? '');
      const challenge = createHash('sha256')
        .update(request.code_verifier ?? '')
        .digest('base64url');
      if (!code || code.redirectUri !== request.redirect_uri || code.challenge !== challenge) {
        return json(res, 403, {
          error: 'invalid_grant',
          error_description: 'Invalid authorization code',
        });
      }
      return json(res, 200, this.issue(this.newGrant()));
    }
    if (request.grant_type === 'refresh_token') {
      const grant = this.grants.get(request.refresh_token ?? '');
      if (!grant || grant.revoked) {
        return json(res, 403, {
          error: 'invalid_grant',
          error_description: 'Unknown or invalid refresh token.',
        });
      }
      // Rotating refresh tokens: the old one stops working.
      grant.revoked = true;
      return json(res, 200, this.issue(this.newGrant()));
    }
    json(res, 400, { error: 'unsupported_grant_type' });
  }

  private revoke(body: string, res: ServerResponse) {
    const form = new URLSearchParams(body);
    if (
      form.get('client_id') !== this.clientId ||
      form.get('client_secret') !== this.clientSecret
    ) {
      return json(res, 401, { error: 'invalid_client' });
    }
    const token = form.get('token') ?? '';
    const grant = this.grants.get(token) ?? this.accessTokens.get(token)?.grant;
    if (grant) grant.revoked = true;
    // RFC 7009: 200 whether or not the token was valid.
    res.writeHead(200).end();
  }

  private newGrant(): Grant {
    const grant = { refreshToken: `rt-${randomBytes(24).toString('hex')}`, revoked: false };
    this.grants.set(grant.refreshToken, grant);
    return grant;
  }

  private issue(grant: Grant) {
    const accessToken = `at-${randomBytes(24).toString('hex')}`;
    this.accessTokens.set(accessToken, {
      grant,
      expiresAt: this.clock.now().getTime() + ACCESS_SECONDS * 1000,
    });
    return {
      access_token: accessToken,
      refresh_token: grant.refreshToken,
      expires_in: ACCESS_SECONDS,
      scope:
        'read:confluence-content.all read:confluence-space.summary search:confluence offline_access',
      token_type: 'Bearer',
    };
  }

  private authorized(req: IncomingMessage, res: ServerResponse): boolean {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const access = this.accessTokens.get(token);
    if (!access || access.grant.revoked || access.expiresAt <= this.clock.now().getTime()) {
      json(res, 401, { code: 401, message: 'Unauthorized' });
      return false;
    }
    return true;
  }

  private search(url: URL, res: ServerResponse): void {
    const cql = url.searchParams.get('cql') ?? '';
    const spaces = [
      ...(/space in \(([^)]*)\)/.exec(cql)?.[1] ?? '').matchAll(/"((?:[^"\\]|\\.)*)"/g),
    ].map((match) => match[1]);
    const minutes = /lastmodified >= now\("-(\d+)m"\)/.exec(cql)?.[1];
    const since =
      minutes === undefined ? null : this.clock.now().getTime() - Number(minutes) * 60_000;
    const types = (/type in \(([^)]*)\)/.exec(cql)?.[1] ?? 'page, blogpost')
      .split(',')
      .map((type) => type.trim());
    let results = [...this.items.values()].filter(
      (item) =>
        spaces.includes(item.spaceKey) &&
        types.includes(item.type) &&
        (since === null || Date.parse(item.when) >= since),
    );
    if (/order by lastmodified asc/.test(cql)) {
      results = results.sort((a, b) => Date.parse(a.when) - Date.parse(b.when));
    }
    const limit = Math.min(Number(url.searchParams.get('limit') ?? 25), this.pageSize);
    const offset = Number(
      Buffer.from(url.searchParams.get('cursor') ?? '', 'base64url').toString() || 0,
    );
    const expand = url.searchParams.get('expand') ?? '';
    const page = results.slice(offset, offset + limit);
    const next = new URLSearchParams({ cql, limit: String(limit) });
    if (expand) next.set('expand', expand);
    next.set('cursor', Buffer.from(String(offset + limit)).toString('base64url'));
    json(res, 200, {
      results: page.map((item) => this.contentOf(item, expand)),
      start: offset,
      limit,
      size: page.length,
      _links: {
        base: `${this.siteUrl}/wiki`,
        context: '/wiki',
        ...(offset + limit < results.length ? { next: `/rest/api/content/search?${next}` } : {}),
        self: `${this.siteUrl}/wiki/rest/api/content/search`,
      },
    });
  }

  /** The documented download: a redirect to the media service, whose token is in the address. */
  private download(pageId: string, attachmentId: string, res: ServerResponse) {
    const item = this.items.get(attachmentId);
    if (item?.type !== 'attachment' || item.containerId !== pageId) {
      return json(res, 404, { statusCode: 404, message: `No attachment ${attachmentId}` });
    }
    const ticket = randomBytes(16).toString('hex');
    this.mediaTickets.set(ticket, attachmentId);
    res
      .writeHead(302, {
        Location: `${this.origin}/media/file/${randomBytes(8).toString('hex')}/binary?token=${ticket}&client=${this.clientId}&dl=true`,
      })
      .end();
  }

  private media(req: IncomingMessage, url: URL, res: ServerResponse) {
    const attachmentId = this.mediaTickets.get(url.searchParams.get('token') ?? '');
    if (req.headers.authorization || !attachmentId) {
      return json(res, 401, { error: 'unauthorized' });
    }
    const item = this.items.get(attachmentId);
    if (!item?.bytes) return json(res, 404, { error: 'not found' });
    res.writeHead(200, { 'Content-Type': item.mediaType ?? 'application/octet-stream' });
    res.end(item.bytes);
  }

  private contentOf(item: ConfluenceItem, expand: string) {
    if (item.type === 'attachment') {
      const preview = encodeURIComponent(`/${item.containerId}/${item.id}/${item.title}`);
      return {
        id: item.id,
        type: 'attachment',
        status: 'current',
        title: item.title,
        metadata: { mediaType: item.mediaType, comment: '' },
        extensions: { mediaType: item.mediaType, fileSize: item.bytes?.length ?? 0, comment: '' },
        ...(expand.includes('container')
          ? { container: { id: item.containerId, type: 'page', status: 'current' } }
          : {}),
        ...(expand.includes('version')
          ? { version: { number: item.version, when: item.when } }
          : {}),
        _links: {
          webui: `/pages/viewpageattachments.action?pageId=${item.containerId}&preview=${preview}`,
          download: `/download/attachments/${item.containerId}/${encodeURIComponent(item.title)}?version=${item.version}&api=v2`,
          self: `${this.siteUrl}/wiki/rest/api/content/${item.id}`,
        },
      };
    }
    return {
      id: item.id,
      type: item.type,
      status: 'current',
      title: item.title,
      space: { key: item.spaceKey },
      ...(expand.includes('version') ? { version: { number: item.version, when: item.when } } : {}),
      ...(expand.includes('body.storage')
        ? { body: { storage: { value: item.body, representation: 'storage' } } }
        : {}),
      _links: {
        webui: `/spaces/${item.spaceKey}/${item.type === 'page' ? 'pages' : 'blog'}/${item.id}`,
        self: `${this.siteUrl}/wiki/rest/api/content/${item.id}`,
      },
    };
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}
