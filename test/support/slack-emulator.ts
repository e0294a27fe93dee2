/**
 * A loopback stand-in for Slack (issue 12) with Slack's documented shapes:
 * `/oauth/v2/authorize` (consent given at once, or `error=access_denied`),
 * and Web API methods under `/api/` that answer HTTP 200 with `ok:true` or
 * `ok:false` and an `error` (`invalid_auth`, `token_revoked`,
 * `token_expired`, `not_in_channel`, `channel_not_found`, `missing_scope`
 * with `needed`/`provided`, `thread_not_found`, …): `oauth.v2.access`
 * (authorization code with PKCE when a challenge was sent; client
 * credentials by HTTP Basic or form; token rotation with 12-hour access
 * tokens and single-use refresh tokens, or non-expiring tokens when off),
 * `auth.test`, `auth.revoke`, `conversations.info`, `conversations.join`,
 * `conversations.history` (newest first, thread roots and broadcast
 * replies, `reply_count`/`latest_reply`, cursor pagination through
 * `response_metadata.next_cursor`), `conversations.replies` (root first,
 * then replies oldest first, paginated), `chat.getPermalink` and
 * `users.info`. Rate limits answer 429 with `Retry-After`; a bot reads only
 * channels it is a member of; every request is recorded.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../layers/core/ports/clock.port';

export interface SlackMessage {
  ts: string;
  user?: string;
  text: string;
  subtype?: string;
  edited?: { user: string; ts: string };
  files?: { id: string; name: string; title: string }[];
  bot_profile?: { name: string };
  /** Replies, oldest first (only on thread roots). */
  replies: SlackMessage[];
}

interface Channel {
  readonly id: string;
  name: string;
  readonly isPrivate: boolean;
  archived: boolean;
  readonly members: Set<string>;
  /** Thread roots and other top-level messages, oldest first. */
  messages: SlackMessage[];
}

interface Installation {
  readonly scopes: string[];
  revoked: boolean;
}

interface Token {
  readonly installation: Installation;
  /** Epoch ms; `null`: never expires (rotation off). */
  readonly expiresAt: number | null;
  revoked: boolean;
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly params: Record<string, string>;
  readonly authorization: string | undefined;
}

const ROTATING_TOKEN_SECONDS = 12 * 3600;

export class SlackEmulator {
  readonly clientId = '1234567890.9876543210';
  readonly clientSecret = randomBytes(16).toString('hex');
  readonly teamId = 'T0ACME0001';
  readonly botUserId = 'U0BOT00001';
  readonly workspaceUrl = 'https://acme.slack.com';
  /** Token rotation (Slack's app setting): 12-hour access tokens and refresh tokens. */
  rotation = true;
  /** Consent refused at `/oauth/v2/authorize`. */
  denyConsent = false;
  /** Messages per history or replies page (Slack may answer fewer than `limit`). */
  pageSize = 2;
  private readonly channels = new Map<string, Channel>();
  private readonly users = new Map<
    string,
    { name: string; real_name: string; display_name: string }
  >();
  private readonly codes = new Map<
    string,
    { challenge: string | null; redirectUri: string; scopes: string[] }
  >();
  private readonly accessTokens = new Map<string, Token>();
  private readonly refreshTokens = new Map<string, Token>();
  private readonly log: RecordedRequest[] = [];
  private rateLimited: { count: number; retryAfter: string; method: string | null } | null = null;
  private failWhen: ((method: string, params: Record<string, string>) => boolean) | null = null;
  private counter = 0;
  private server = createServer((req, res) => void this.handle(req, res));
  origin = '';

  constructor(private readonly clock: Clock) {}

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  addUser(id: string, realName: string, displayName = ''): void {
    this.users.set(id, {
      name: realName.toLowerCase().replace(/\s+/g, '.'),
      real_name: realName,
      display_name: displayName,
    });
  }

  /** A channel; `botMember` when the app was added (private) or already joined (public). */
  addChannel(
    id: string,
    name: string,
    options: { isPrivate?: boolean; botMember?: boolean } = {},
  ): void {
    this.channels.set(id, {
      id,
      name,
      isPrivate: options.isPrivate ?? false,
      archived: false,
      members: new Set(options.botMember ? [this.botUserId] : []),
      messages: [],
    });
  }

  isMember(channel: string): boolean {
    return this.channel(channel).members.has(this.botUserId);
  }

  /** Posts a top-level message at the clock's time (or `at`); returns its ts. */
  post(
    channel: string,
    message: Partial<Omit<SlackMessage, 'ts' | 'replies'>> & { text: string },
    at?: Date,
  ): string {
    const ts = this.nextTs(at);
    this.channel(channel).messages.push({ ...message, ts, replies: [] });
    return ts;
  }

  /** A reply in the thread of `threadTs`; returns its ts. */
  reply(
    channel: string,
    threadTs: string,
    message: { user: string; text: string },
    at?: Date,
  ): string {
    const root = this.root(channel, threadTs);
    const ts = this.nextTs(at);
    root.replies.push({ ...message, ts, replies: [] });
    return ts;
  }

  edit(channel: string, ts: string, text: string): void {
    const message =
      this.channel(channel).messages.find((m) => m.ts === ts) ??
      this.channel(channel)
        .messages.flatMap((m) => m.replies)
        .find((m) => m.ts === ts);
    if (!message) throw new Error(`no message ${ts}`);
    message.text = text;
    message.edited = { user: message.user ?? '', ts: this.nextTs() };
  }

  /**
   * Deletes a message as Slack does: a thread's first message with replies
   * becomes a tombstone ("This message was deleted."); any other disappears.
   */
  deleteMessage(channel: string, ts: string): void {
    const c = this.channel(channel);
    const root = c.messages.find((m) => m.ts === ts);
    if (root) {
      if (root.replies.length > 0) {
        Object.assign(root, {
          subtype: 'tombstone',
          text: 'This message was deleted.',
          user: 'USLACKBOT',
        });
        delete root.files;
      } else {
        c.messages = c.messages.filter((m) => m !== root);
      }
      return;
    }
    for (const parent of c.messages) parent.replies = parent.replies.filter((m) => m.ts !== ts);
  }

  /** A whole thread gone (its first message and every reply deleted). */
  deleteThread(channel: string, ts: string): void {
    const c = this.channel(channel);
    c.messages = c.messages.filter((m) => m.ts !== ts);
  }

  /** The app removed from a channel (`/remove`, or a private channel's member list). */
  removeBot(channel: string): void {
    this.channel(channel).members.delete(this.botUserId);
  }

  /** The app uninstalled from the workspace: every token stops working. */
  uninstall(): void {
    for (const token of [...this.accessTokens.values(), ...this.refreshTokens.values()]) {
      token.installation.revoked = true;
    }
  }

  /** The next `count` Web API calls (of `method`, or any) answer 429 with this `Retry-After`. */
  rateLimitNext(count: number, retryAfter = '1', method: string | null = null): void {
    this.rateLimited = { count, retryAfter, method };
  }

  /** Web API calls matching `predicate` answer `internal_error` until `failOn(null)`. */
  failOn(predicate: ((method: string, params: Record<string, string>) => boolean) | null): void {
    this.failWhen = predicate;
  }

  requests(): RecordedRequest[] {
    return [...this.log];
  }

  /** Tokens that still work (access and refresh). */
  liveTokens(): string[] {
    const now = this.clock.now().getTime();
    return [...this.accessTokens.entries()]
      .filter(([, t]) => !t.revoked && !t.installation.revoked && (t.expiresAt ?? now + 1) > now)
      .map(([token]) => token);
  }

  /** Every token ever issued (to look for them in logs and responses). */
  issuedTokens(): string[] {
    return [...this.accessTokens.keys(), ...this.refreshTokens.keys()];
  }

  private channel(id: string): Channel {
    const channel = this.channels.get(id);
    if (!channel) throw new Error(`no channel ${id}`);
    return channel;
  }

  private root(channel: string, ts: string): SlackMessage {
    const root = this.channel(channel).messages.find((m) => m.ts === ts);
    if (!root) throw new Error(`no message ${ts} in ${channel}`);
    return root;
  }

  private nextTs(at?: Date): string {
    this.counter += 1;
    const seconds = Math.floor((at ?? this.clock.now()).getTime() / 1000);
    return `${seconds}.${String(this.counter).padStart(6, '0')}`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', this.origin);
    const params: Record<string, string> = Object.fromEntries(url.searchParams);
    const type = req.headers['content-type'] ?? '';
    if (raw !== '' && type.startsWith('application/json')) Object.assign(params, JSON.parse(raw));
    else if (raw !== '') Object.assign(params, Object.fromEntries(new URLSearchParams(raw)));
    this.log.push({
      method: req.method ?? 'GET',
      path: url.pathname,
      params,
      authorization: req.headers.authorization,
    });
    try {
      if (url.pathname === '/oauth/v2/authorize') return this.authorize(url, res);
      if (!url.pathname.startsWith('/api/')) return void res.writeHead(404).end();
      const method = url.pathname.slice('/api/'.length);
      if (method === 'oauth.v2.access') return this.access(req, params, res);
      const limit = this.rateLimited;
      if (limit && limit.count > 0 && (limit.method === null || limit.method === method)) {
        limit.count -= 1;
        res.writeHead(429, { 'Retry-After': limit.retryAfter, 'Content-Type': 'application/json' });
        return void res.end(JSON.stringify({ ok: false, error: 'ratelimited' }));
      }
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? params.token;
      const token = bearer ? this.accessTokens.get(bearer) : undefined;
      if (!bearer) return ok(res, { ok: false, error: 'not_authed' });
      if (!token) return ok(res, { ok: false, error: 'invalid_auth' });
      if (token.revoked || token.installation.revoked)
        return ok(res, { ok: false, error: 'token_revoked' });
      if (token.expiresAt !== null && token.expiresAt <= this.clock.now().getTime()) {
        return ok(res, { ok: false, error: 'token_expired' });
      }
      if (this.failWhen?.(method, params)) return ok(res, { ok: false, error: 'internal_error' });
      const body = this.api(method, params, token);
      if (body === null) return void res.writeHead(404).end();
      ok(res, body);
    } catch (error) {
      ok(res, { ok: false, error: 'internal_error', detail: (error as Error).message });
    }
  }

  private authorize(url: URL, res: ServerResponse) {
    const redirectUri = url.searchParams.get('redirect_uri') ?? '';
    if (url.searchParams.get('client_id') !== this.clientId || !URL.canParse(redirectUri)) {
      return void res.writeHead(400).end('invalid_client_id');
    }
    const back = new URL(redirectUri);
    if (this.denyConsent) {
      back.searchParams.set('error', 'access_denied');
    } else {
      const code = `${Date.now()}.${randomBytes(16).toString('hex')}`;
      const method = url.searchParams.get('code_challenge_method');
      this.codes.set(code, {
        challenge: method === 'S256' ? (url.searchParams.get('code_challenge') ?? '') : null,
        redirectUri,
        scopes: (url.searchParams.get('scope') ?? '').split(',').filter(Boolean),
      });
      back.searchParams.set('code', code);
    }
    back.searchParams.set('state', url.searchParams.get('state') ?? '');
    res.writeHead(302, { Location: back.toString() }).end();
  }

  private access(req: IncomingMessage, params: Record<string, string>, res: ServerResponse) {
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const [id, secret] = basic
      ? Buffer.from(basic, 'base64')
          .toString('utf8')
          .split(':')
          .map((part) => decodeURIComponent(part))
      : [params.client_id, params.client_secret];
    if (id !== this.clientId) return ok(res, { ok: false, error: 'invalid_client_id' });
    if (secret !== this.clientSecret) return ok(res, { ok: false, error: 'bad_client_secret' });
    if ((params.grant_type ?? 'authorization_code') === 'authorization_code') {
      const code = this.codes.get(params.code ?? '');
      this.codes.delete(params.code ?? '');
      if (!code) return ok(res, { ok: false, error: 'invalid_code' });
      if (params.redirect_uri !== undefined && params.redirect_uri !== code.redirectUri) {
        return ok(res, { ok: false, error: 'bad_redirect_uri' });
      }
      if (code.challenge !== null) {
        const challenge = createHash('sha256')
          .update(params.code_verifier ?? '')
          .digest('base64url');
        if (challenge !== code.challenge)
          return ok(res, { ok: false, error: 'invalid_code_verifier' });
      }
      return ok(res, this.issue({ scopes: code.scopes, revoked: false }));
    }
    if (params.grant_type === 'refresh_token') {
      const previous = this.refreshTokens.get(params.refresh_token ?? '');
      if (!previous || previous.revoked || previous.installation.revoked) {
        return ok(res, { ok: false, error: 'invalid_refresh_token' });
      }
      // Single use: the refresh token is revoked once exchanged.
      previous.revoked = true;
      return ok(res, this.issue(previous.installation));
    }
    ok(res, { ok: false, error: 'invalid_grant_type' });
  }

  private issue(installation: Installation) {
    const rotating = this.rotation;
    const accessToken = `${rotating ? 'xoxe.' : ''}xoxb-${randomBytes(20).toString('hex')}`;
    const expiresAt = rotating ? this.clock.now().getTime() + ROTATING_TOKEN_SECONDS * 1000 : null;
    this.accessTokens.set(accessToken, { installation, expiresAt, revoked: false });
    const refreshToken = rotating ? `xoxe-1-${randomBytes(24).toString('hex')}` : null;
    if (refreshToken) {
      this.refreshTokens.set(refreshToken, { installation, expiresAt: null, revoked: false });
    }
    return {
      ok: true,
      app_id: 'A0SVCAPP01',
      authed_user: { id: 'U0HUMAN001' },
      scope: installation.scopes.join(','),
      token_type: 'bot',
      access_token: accessToken,
      bot_user_id: this.botUserId,
      team: { id: this.teamId, name: 'Acme' },
      enterprise: null,
      is_enterprise_install: false,
      ...(refreshToken ? { refresh_token: refreshToken, expires_in: ROTATING_TOKEN_SECONDS } : {}),
    };
  }

  private api(method: string, params: Record<string, string>, token: Token): object | null {
    const scoped = (needed: string) =>
      token.installation.scopes.includes(needed)
        ? null
        : {
            ok: false,
            error: 'missing_scope',
            needed,
            provided: token.installation.scopes.join(','),
          };
    const readable = (
      channelId: string,
      kind: 'read' | 'history',
    ): { readonly channel: Channel; readonly error?: never } | { readonly error: object } => {
      const channel = this.channels.get(channelId);
      if (!channel) return { error: { ok: false, error: 'channel_not_found' } };
      const missing = scoped(
        `${channel.isPrivate ? 'groups' : 'channels'}:${kind === 'read' ? 'read' : 'history'}`,
      );
      if (missing) return { error: missing };
      // A private channel the app was not added to does not exist for it.
      if (channel.isPrivate && !channel.members.has(this.botUserId)) {
        return { error: { ok: false, error: 'channel_not_found' } };
      }
      if (kind === 'history' && !channel.members.has(this.botUserId)) {
        return { error: { ok: false, error: 'not_in_channel' } };
      }
      return { channel };
    };
    switch (method) {
      case 'auth.test':
        return {
          ok: true,
          url: `${this.workspaceUrl}/`,
          team: 'Acme',
          user: 'svc-bot',
          team_id: this.teamId,
          user_id: this.botUserId,
          bot_id: 'B0SVCBOT01',
          is_enterprise_install: false,
        };
      case 'auth.revoke':
        token.revoked = true;
        token.installation.revoked = true;
        return { ok: true, revoked: true };
      case 'conversations.info': {
        const found = readable(params.channel ?? '', 'read');
        if (found.error) return found.error;
        return { ok: true, channel: this.channelObject(found.channel) };
      }
      case 'conversations.join': {
        const channel = this.channels.get(params.channel ?? '');
        const missing = scoped('channels:join');
        if (missing) return missing;
        if (!channel || (channel.isPrivate && !channel.members.has(this.botUserId))) {
          return { ok: false, error: 'channel_not_found' };
        }
        if (channel.isPrivate) return { ok: false, error: 'method_not_supported_for_channel_type' };
        if (channel.archived) return { ok: false, error: 'is_archived' };
        if (channel.members.has(this.botUserId)) {
          return {
            ok: true,
            channel: this.channelObject(channel),
            warning: 'already_in_channel',
            response_metadata: { warnings: ['already_in_channel'] },
          };
        }
        channel.members.add(this.botUserId);
        channel.messages.push({
          ts: this.nextTs(),
          user: this.botUserId,
          subtype: 'channel_join',
          text: `<@${this.botUserId}> has joined the channel`,
          replies: [],
        });
        return { ok: true, channel: this.channelObject(channel) };
      }
      case 'conversations.history': {
        const found = readable(params.channel ?? '', 'history');
        if (found.error) return found.error;
        const roots = [...found.channel.messages].reverse();
        return this.page(
          roots.map((m) => this.historyMessage(m)),
          params,
          { pin_count: 0, channel_actions_ts: null, channel_actions_count: 0 },
        );
      }
      case 'conversations.replies': {
        const found = readable(params.channel ?? '', 'history');
        if (found.error) return found.error;
        const root = found.channel.messages.find((m) => m.ts === params.ts);
        if (!root) return { ok: false, error: 'thread_not_found' };
        const thread = [
          this.historyMessage(root),
          ...root.replies.map((reply) => ({
            type: 'message',
            ...strip(reply),
            thread_ts: root.ts,
            parent_user_id: root.user,
          })),
        ];
        return this.page(thread, params, {});
      }
      case 'chat.getPermalink': {
        const found = readable(params.channel ?? '', 'read');
        if (found.error) return found.error;
        const root = found.channel.messages.find((m) => m.ts === params.message_ts);
        if (!root) return { ok: false, error: 'message_not_found' };
        return {
          ok: true,
          channel: found.channel.id,
          permalink: `${this.workspaceUrl}/archives/${found.channel.id}/p${root.ts.replace('.', '')}`,
        };
      }
      case 'users.info': {
        const missing = scoped('users:read');
        if (missing) return missing;
        const user = this.users.get(params.user ?? '');
        if (!user) return { ok: false, error: 'user_not_found' };
        return {
          ok: true,
          user: {
            id: params.user,
            team_id: this.teamId,
            name: user.name,
            deleted: false,
            real_name: user.real_name,
            profile: { real_name: user.real_name, display_name: user.display_name },
            is_bot: false,
          },
        };
      }
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }

  /** One page of `items` by Slack's opaque cursor (here an offset, base64). */
  private page(items: object[], params: Record<string, string>, extra: object) {
    const offset = Number(Buffer.from(params.cursor ?? '', 'base64').toString() || 0);
    const limit = Math.min(Number(params.limit ?? 100) || 100, this.pageSize);
    const slice = items.slice(offset, offset + limit);
    const more = offset + limit < items.length;
    return {
      ok: true,
      messages: slice,
      has_more: more,
      ...extra,
      response_metadata: {
        next_cursor: more ? Buffer.from(`${offset + limit}`).toString('base64') : '',
      },
    };
  }

  private historyMessage(message: SlackMessage) {
    const replies = message.replies;
    return {
      type: 'message',
      ...strip(message),
      ...(replies.length > 0
        ? {
            thread_ts: message.ts,
            reply_count: replies.length,
            reply_users_count: new Set(replies.map((r) => r.user)).size,
            latest_reply: replies[replies.length - 1]?.ts,
            reply_users: [...new Set(replies.map((r) => r.user))],
            is_locked: false,
            subscribed: false,
          }
        : {}),
    };
  }

  private channelObject(channel: Channel) {
    return {
      id: channel.id,
      name: channel.name,
      is_channel: !channel.isPrivate,
      is_group: channel.isPrivate,
      is_im: false,
      is_mpim: false,
      is_private: channel.isPrivate,
      is_archived: channel.archived,
      is_general: false,
      is_member: channel.members.has(this.botUserId),
      created: 1449252889,
      creator: 'U0HUMAN001',
      name_normalized: channel.name,
      topic: { value: '', creator: '', last_set: 0 },
      purpose: { value: '', creator: '', last_set: 0 },
    };
  }
}

function strip(message: SlackMessage) {
  const { replies: _replies, ...rest } = message;
  return rest;
}

function ok(res: ServerResponse, body: object): void {
  res
    .writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' })
    .end(JSON.stringify(body));
}
