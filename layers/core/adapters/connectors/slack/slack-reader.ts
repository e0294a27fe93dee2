import { createHash } from 'node:crypto';
import { CONNECTOR_LIMITS, ProviderUnavailableError } from '../../../domain/connector';
import type { DataSource } from '../../../domain/data-source';
import type { AccessGrant } from '../../../ports/connector.port';
import type { ReadContext, SourceItem } from '../../../ports/source-reader.port';
import type { ConnectorReader } from '../connector-reader';
import type { ProviderApi } from '../provider-api';
import type { SlackEndpoints } from './slack-oauth';
import {
  compareTs,
  isSlackTs,
  latestTs,
  mentionedUsers,
  permalinkPart,
  plainText,
  tsDate,
} from './slack-text';
import { SlackWebApi } from './slack-web-api';

/** Slack recommends no more than 200 items a page (`limit`); it may answer fewer. */
const PAGE_LIMIT = '200';
/** The most messages one thread document holds; later replies are left out and said so. */
const MAX_THREAD_MESSAGES = 1000;
/** A checkpoint after this many thread documents (and at the end of each channel). */
const CHECKPOINT_EVERY = 25;
const TITLE_CHARS = 80;

interface SlackMessage {
  readonly type?: unknown;
  readonly subtype?: unknown;
  readonly ts?: unknown;
  readonly thread_ts?: unknown;
  readonly user?: unknown;
  readonly username?: unknown;
  readonly bot_profile?: { readonly name?: unknown };
  readonly text?: unknown;
  readonly reply_count?: unknown;
  readonly latest_reply?: unknown;
  readonly edited?: { readonly ts?: unknown };
  readonly files?: readonly { readonly name?: unknown; readonly title?: unknown }[];
}

interface Page {
  readonly messages?: readonly SlackMessage[];
  readonly channel?: Record<string, unknown>;
  readonly user?: {
    readonly name?: unknown;
    readonly real_name?: unknown;
    readonly profile?: { readonly display_name?: unknown; readonly real_name?: unknown };
  };
  readonly permalink?: unknown;
  readonly response_metadata?: { readonly next_cursor?: unknown };
}

/** What people wrote; joins, leaves, topic changes and other notices are not read. */
const READ_SUBTYPES = new Set<unknown>([
  undefined,
  'bot_message',
  'file_share',
  'me_message',
  'thread_broadcast',
]);
/** A deleted first message whose replies remain (Slack keeps the thread). */
const TOMBSTONE = 'tombstone';

/** The cursor: the workspace, and per channel the latest activity indexed. */
interface SlackCursor {
  readonly team: string;
  readonly channels: Record<string, string>;
}

/** A thread to read in this run: its first message from the history, and its latest activity. */
interface ThreadToRead {
  readonly root: SlackMessage & { readonly ts: string };
  readonly activity: string;
}

interface ChannelPlan {
  readonly id: string;
  readonly name: string;
  readonly threads: ThreadToRead[];
  readonly newest: string;
}

/** A channel the grant cannot read (not found, private without the app, archived and not joined). */
class ChannelUnreadable extends Error {}

const keyOf = (channel: string, ts: string) => `slack:${channel}:${ts}`;

/**
 * Slack (issue 12): the channels in `config.channel_ids` as
 * documents, one per thread (a message and its replies; a message without
 * replies is a thread of one). Each run lists every channel's history
 * (the inventory: deleted threads leave the index), then reads the threads
 * whose latest activity (first message, latest reply, edit) is newer than
 * the channel's cursor, oldest first, with their replies, committing the
 * cursor as it goes. Public channels the app is not in are joined; private
 * ones must have the app added. Each document links to the thread at Slack.
 */
export class SlackReader implements ConnectorReader {
  constructor(private readonly endpoints: SlackEndpoints) {}

  async *read(
    source: DataSource,
    grant: AccessGrant,
    api: ProviderApi,
    context: ReadContext,
  ): AsyncIterable<SourceItem> {
    const site = grant.site;
    if (!site) throw new ProviderUnavailableError('The grant names no Slack workspace: reconnect');
    const web = new SlackWebApi(api, grant, this.endpoints);
    const run = new SlackRun(web, site.url);
    const channelIds = [...new Set((source.config.channel_ids as string[] | undefined) ?? [])];
    const previous = parseCursor(context.cursor, site.id);
    const watermarks: Record<string, string> = {};

    // 1. What exists now, channel by channel, and which threads changed.
    const present: string[] = [];
    const plans: ChannelPlan[] = [];
    for (const channel of channelIds) {
      let plan: ChannelPlan;
      const keys: string[] = [];
      try {
        const name = await run.open(channel);
        const watermark = previous?.channels[channel];
        const threads: ThreadToRead[] = [];
        let newest = '0';
        for await (const root of run.history(channel)) {
          const key = keyOf(channel, root.ts);
          keys.push(key);
          if (present.length + keys.length > CONNECTOR_LIMITS.maxItems) {
            throw new ProviderUnavailableError(
              `The channels hold more than ${CONNECTOR_LIMITS.maxItems} threads`,
            );
          }
          const activity = latestTs(root.ts, tsOr(root.latest_reply), tsOr(root.edited?.ts));
          if (compareTs(activity, newest) > 0) newest = activity;
          if (
            watermark === undefined ||
            compareTs(activity, watermark) > 0 ||
            root.subtype === TOMBSTONE ||
            !context.isIndexed(key)
          ) {
            threads.push({ root, activity });
          }
        }
        plan = { id: channel, name, threads, newest };
        if (watermark !== undefined) watermarks[channel] = watermark;
      } catch (error) {
        if (!(error instanceof ChannelUnreadable)) throw error;
        // Unshared: its threads are not in the inventory, so they leave the index.
        yield {
          status: 'skipped',
          key: `slack:channel:${channel}`,
          reason: 'unreachable',
          detail: error.message,
        };
        continue;
      }
      present.push(...keys);
      plans.push(plan);
    }
    yield { status: 'inventory', keys: present };

    // 2. The changed threads, oldest activity first, committing after each batch.
    const checkpoint = (): SourceItem => ({
      status: 'checkpoint',
      cursor: JSON.stringify({ team: site.id, channels: watermarks } satisfies SlackCursor),
    });
    for (const plan of plans) {
      plan.threads.sort((a, b) => compareTs(a.activity, b.activity));
      let sinceCheckpoint = 0;
      let complete = true;
      for (const thread of plan.threads) {
        let item: SourceItem;
        try {
          item = await run.threadDocument(plan, thread.root);
        } catch (error) {
          if (!(error instanceof ChannelUnreadable)) throw error;
          // Removed from the channel mid-run: this run keeps what it has; the next one sees it.
          complete = false;
          break;
        }
        yield item;
        const mark = watermarks[plan.id];
        if (mark === undefined || compareTs(thread.activity, mark) > 0) {
          // Only once every thread before it in activity order is indexed.
          watermarks[plan.id] = thread.activity;
        }
        sinceCheckpoint += 1;
        if (sinceCheckpoint >= CHECKPOINT_EVERY) {
          sinceCheckpoint = 0;
          yield checkpoint();
        }
      }
      if (complete && plan.newest !== '0') {
        watermarks[plan.id] = latestTs(watermarks[plan.id], plan.newest);
      }
      yield checkpoint();
    }
  }
}

/** One run's reading of a workspace: channel access, history, threads, names and permalinks (cached for the run). */
class SlackRun {
  private readonly names = new Map<string, string>();
  private readonly permalinkBases = new Map<string, string>();

  constructor(
    private readonly web: SlackWebApi,
    private readonly workspaceUrl: string,
  ) {}

  /** The channel's name, joining a public channel the app is not in. */
  async open(channel: string): Promise<string> {
    const info = await this.web.call('conversations.info', { channel });
    if (!info.ok) {
      throw new ChannelUnreadable(
        info.error === 'channel_not_found'
          ? `Slack channel ${channel} was not found, or is private and the app was not added to it (/invite the app there)`
          : `Slack channel ${channel} cannot be read (${info.error})`,
      );
    }
    const details = ((info.body as Page).channel ?? {}) as Record<string, unknown>;
    const name = typeof details.name === 'string' ? details.name : channel;
    if (details.is_im === true || details.is_mpim === true) {
      throw new ChannelUnreadable(`${channel} is a direct message, which is not read`);
    }
    if (details.is_member !== true) {
      if (details.is_private === true) {
        throw new ChannelUnreadable(
          `The app was not added to the private channel #${name} (${channel}): /invite it there`,
        );
      }
      const joined = await this.web.call('conversations.join', { channel }, { post: true });
      if (!joined.ok) {
        throw new ChannelUnreadable(
          `The app could not join #${name} (${channel}): ${joined.error}`,
        );
      }
    }
    return name;
  }

  /** Every thread's first message in the channel (newest first, as Slack pages them). */
  async *history(channel: string): AsyncIterable<SlackMessage & { readonly ts: string }> {
    let cursor = '';
    do {
      const answer = await this.web.call('conversations.history', {
        channel,
        limit: PAGE_LIMIT,
        ...(cursor ? { cursor } : {}),
      });
      if (!answer.ok) throw unreadable(channel, 'conversations.history', answer.error);
      const page = answer.body as Page;
      for (const message of page.messages ?? []) {
        if (!isSlackTs(message.ts)) continue;
        // A reply also sent to the channel belongs to its thread.
        if (isSlackTs(message.thread_ts) && message.thread_ts !== message.ts) continue;
        if (!READ_SUBTYPES.has(message.subtype) && message.subtype !== TOMBSTONE) continue;
        yield message as SlackMessage & { readonly ts: string };
      }
      cursor = nextCursor(page);
    } while (cursor);
  }

  /** A thread as one document: its messages in order, named authors, its permalink. */
  async threadDocument(
    plan: ChannelPlan,
    root: SlackMessage & { readonly ts: string },
  ): Promise<SourceItem> {
    const key = keyOf(plan.id, root.ts);
    const threaded = typeof root.reply_count === 'number' && root.reply_count > 0;
    const thread =
      threaded || root.subtype === TOMBSTONE
        ? await this.replies(plan.id, root.ts)
        : { messages: [root], truncated: false };
    if (thread === null) {
      return { status: 'skipped', key, reason: 'gone', detail: 'the thread was deleted' };
    }
    const messages = thread.messages.filter(
      (message) =>
        READ_SUBTYPES.has(message.subtype) &&
        isSlackTs(message.ts) &&
        (typeof message.text === 'string' || (message.files?.length ?? 0) > 0),
    );
    if (messages.length === 0) {
      return { status: 'skipped', key, reason: 'empty', detail: 'no message with text' };
    }
    await this.resolveNames(messages);
    const lines = messages.map((message) => this.line(message));
    if (thread.truncated)
      lines.push(`(Replies after the first ${MAX_THREAD_MESSAGES} are not read.)`);
    const first = this.text(messages[0] as SlackMessage)
      .replace(/\s+/g, ' ')
      .trim();
    const title = `#${plan.name}: ${snippet(first) || 'Thread'}`;
    const url = await this.permalink(plan.id, root.ts, threaded);
    return {
      status: 'ok',
      key,
      document: { title, url, sections: [{ headingPath: [`#${plan.name}`], paragraphs: lines }] },
      contentHash: createHash('sha256')
        .update(JSON.stringify([title, url, lines]))
        .digest('hex'),
    };
  }

  /** `conversations.replies`: the first message and its replies, oldest first; `null` when deleted. */
  private async replies(
    channel: string,
    ts: string,
  ): Promise<{ messages: SlackMessage[]; truncated: boolean } | null> {
    const messages: SlackMessage[] = [];
    let cursor = '';
    do {
      const answer = await this.web.call('conversations.replies', {
        channel,
        ts,
        limit: PAGE_LIMIT,
        ...(cursor ? { cursor } : {}),
      });
      if (!answer.ok) {
        if (answer.error === 'thread_not_found' || answer.error === 'message_not_found')
          return null;
        throw unreadable(channel, 'conversations.replies', answer.error);
      }
      const page = answer.body as Page;
      for (const message of page.messages ?? []) {
        if (messages.length >= MAX_THREAD_MESSAGES) return { messages, truncated: true };
        messages.push(message);
      }
      cursor = nextCursor(page);
    } while (cursor);
    return { messages, truncated: false };
  }

  private line(message: SlackMessage): string {
    const ts = message.ts as string;
    const files = (message.files ?? [])
      .map((file) => (typeof file.title === 'string' ? file.title : file.name))
      .filter((name): name is string => typeof name === 'string' && name !== '')
      .map((name) => `[file: ${name}]`);
    const text = [this.text(message), ...files].filter((part) => part !== '').join(' ');
    return `${this.author(message)} (${tsDate(ts)}): ${text}`;
  }

  private text(message: SlackMessage): string {
    return typeof message.text === 'string'
      ? plainText(message.text, (id) => this.names.get(id) ?? id)
      : '';
  }

  private author(message: SlackMessage): string {
    if (typeof message.user === 'string') return this.names.get(message.user) ?? message.user;
    if (typeof message.bot_profile?.name === 'string') return message.bot_profile.name;
    return typeof message.username === 'string' ? message.username : 'Slack';
  }

  /** People's names (`users.info`), once each per run; an unknown one keeps its id. */
  private async resolveNames(messages: readonly SlackMessage[]): Promise<void> {
    const ids = new Set<string>();
    for (const message of messages) {
      if (typeof message.user === 'string') ids.add(message.user);
      if (typeof message.text === 'string')
        for (const id of mentionedUsers(message.text)) ids.add(id);
    }
    for (const id of ids) {
      if (this.names.has(id)) continue;
      const answer = await this.web.call('users.info', { user: id });
      const user = answer.ok ? (answer.body as Page).user : undefined;
      const name = [
        user?.profile?.display_name,
        user?.profile?.real_name,
        user?.real_name,
        user?.name,
      ].find((value): value is string => typeof value === 'string' && value !== '');
      this.names.set(id, name ?? id);
    }
  }

  /**
   * The thread's permalink. `chat.getPermalink` once per channel gives
   * the workspace's permalink address (Enterprise Grid ones differ); the
   * others are formed as Slack forms them: `/archives/<channel>/p<ts>`, with
   * `thread_ts` and `cid` for a thread so that it opens in the thread view.
   */
  private async permalink(channel: string, ts: string, threaded: boolean): Promise<string> {
    let base = this.permalinkBases.get(channel);
    if (base === undefined) {
      base = this.workspaceUrl;
      const answer = await this.web.call('chat.getPermalink', { channel, message_ts: ts });
      const link = answer.ok ? (answer.body as Page).permalink : undefined;
      if (typeof link === 'string' && URL.canParse(link)) {
        const url = new URL(link);
        const at = url.pathname.indexOf('/archives/');
        if (at >= 0 && (url.protocol === 'https:' || url.protocol === 'http:')) {
          base = `${url.origin}${url.pathname.slice(0, at)}`;
        }
      }
      this.permalinkBases.set(channel, base);
    }
    const path = `${base}/archives/${channel}/${permalinkPart(ts)}`;
    return threaded ? `${path}?thread_ts=${ts}&cid=${channel}` : path;
  }
}

const tsOr = (value: unknown): string | undefined => (isSlackTs(value) ? value : undefined);

function nextCursor(page: Page): string {
  const next = page.response_metadata?.next_cursor;
  return typeof next === 'string' ? next : '';
}

function unreadable(channel: string, method: string, error: string): Error {
  return [
    'channel_not_found',
    'not_in_channel',
    'is_archived',
    'method_not_supported_for_channel_type',
  ].includes(error)
    ? new ChannelUnreadable(`Slack channel ${channel} cannot be read (${method}: ${error})`)
    : new ProviderUnavailableError(`Slack's ${method} answered ${error}`);
}

function snippet(text: string): string {
  if (text.length <= TITLE_CHARS) return text;
  const cut = text.slice(0, TITLE_CHARS);
  const space = cut.lastIndexOf(' ');
  return `${(space > TITLE_CHARS / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

function parseCursor(value: string | null, team: string): SlackCursor | null {
  if (value === null) return null;
  try {
    const parsed = JSON.parse(value) as Partial<SlackCursor>;
    // Another workspace (a reconnect elsewhere): everything is read again.
    if (parsed.team !== team || typeof parsed.channels !== 'object' || parsed.channels === null) {
      return null;
    }
    const channels: Record<string, string> = {};
    for (const [channel, ts] of Object.entries(parsed.channels))
      if (isSlackTs(ts)) channels[channel] = ts;
    return { team, channels };
  } catch {
    return null;
  }
}
