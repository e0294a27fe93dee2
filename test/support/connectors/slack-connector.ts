import { SlackEmulator } from '../slack-emulator';
import type { TestClock } from '../test-clock';
import type { ConnectorAdapter } from './connector-adapter';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

export const SLACK_CHANNELS = {
  engineering: 'C0ENG00001',
  /** Private, the app added. */
  security: 'G0SEC00001',
  /** Private, the app not added: reported, never read. */
  hr: 'G0HR000001',
} as const;
const { engineering: ENG, security: SECURITY, hr: HR } = SLACK_CHANNELS;

/**
 * Slack behind a loopback Slack (`SlackEmulator`): a public channel with a
 * question thread and a standalone message, a private channel the app was
 * added to, and one it was not.
 */
export function slackConnector() {
  let clock: TestClock;
  let slack: SlackEmulator;
  let rotateThread = '';
  let coffee = '';
  const ago = (ms: number) => new Date(clock.now().getTime() - ms);
  /** The Web API calls of `method` since `mark`. */
  const calls = (mark: number, method: string) =>
    slack
      .requests()
      .slice(mark)
      .filter((r) => r.path === `/api/${method}`);

  const connector: ConnectorAdapter = {
    name: 'Slack',
    type: 'slack',
    eventType: 'SLACK',
    offlineConfig: { channel_ids: [ENG] },
    notConfigured: /Slack app is not configured/,

    async start(suiteClock) {
      clock = suiteClock;
      slack = await new SlackEmulator(clock).start();
      return {
        SVC_SLACK_CLIENT_ID: slack.clientId,
        SVC_SLACK_CLIENT_SECRET: slack.clientSecret,
        SVC_SLACK_URL: slack.origin,
      };
    },
    async seed() {
      slack.addUser('U0ADA00001', 'Ada Lovelace', 'ada');
      slack.addUser('U0GRACE001', 'Grace Hopper');
      slack.addChannel(ENG, 'engineering');
      slack.addChannel(SECURITY, 'security', { isPrivate: true, botMember: true });
      slack.addChannel(HR, 'hr-private', { isPrivate: true });
      rotateThread = slack.post(
        ENG,
        { user: 'U0ADA00001', text: 'How do we rotate the API signing keys?' },
        ago(3 * DAY_MS),
      );
      slack.reply(
        ENG,
        rotateThread,
        {
          user: 'U0GRACE001',
          text: 'Run keyctl rotate --stage, then wait for the canary &amp; see <https://wiki.acme.test/keys|the runbook>',
        },
        ago(3 * DAY_MS - HOUR_MS),
      );
      slack.reply(
        ENG,
        rotateThread,
        { user: 'U0ADA00001', text: 'Thanks <@U0GRACE001>!' },
        ago(3 * DAY_MS - 2 * HOUR_MS),
      );
      coffee = slack.post(
        ENG,
        { user: 'U0GRACE001', text: 'The office coffee machine is descaled on Mondays.' },
        ago(2 * DAY_MS),
      );
      slack.post(
        SECURITY,
        { user: 'U0ADA00001', text: 'The incident drill is on Thursday at ten in room Ballard.' },
        ago(DAY_MS),
      );
      slack.post(HR, { user: 'U0ADA00001', text: 'Salaries: never read.' }, ago(DAY_MS));
    },
    close: () => slack.close(),
    config: () => ({ channel_ids: [ENG, SECURITY, HR] }),
    requestCount: () => slack.requests().length,
    issuedTokens: () => slack.issuedTokens(),

    signIn: {
      authorizeEndpoint: () => `${slack.origin}/oauth/v2/authorize`,
      authorizeParams: (serviceUrl) => ({
        client_id: slack.clientId,
        redirect_uri: `${serviceUrl}/api/oauth/callback`,
        code_challenge_method: 'S256',
        scope: 'channels:read,channels:history,channels:join,groups:read,groups:history,users:read',
      }),
      lastCodeExchange: () => {
        const exchange = calls(0, 'oauth.v2.access').at(-1);
        return {
          ...exchange?.params,
          authorization: exchange?.authorization,
          secretInBody: exchange ? 'client_secret' in exchange.params : null,
        };
      },
      // The client authenticates with HTTP Basic, never with a secret in the body.
      expectedCodeExchange: () => ({
        grant_type: 'authorization_code',
        code_verifier: expect.stringMatching(/^[\w-]{43}$/),
        authorization: expect.stringMatching(/^Basic /),
        secretInBody: false,
      }),
      refuseConsent: (refuse) => {
        slack.denyConsent = refuse;
      },
    },

    firstSync: {
      documents: 3,
      error: /G0HR000001 was not found, or is private and the app was not added/,
      questions: [
        {
          question: 'How do we rotate the API signing keys?',
          expectAnswer: (answer) => {
            // The whole thread is one document: the question, the replies with their authors' names.
            const thread = answer.sources[0].chunk_text as string;
            expect(thread).toMatch(/^ada \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\): How do we rotate/m);
            expect(thread).toContain('Grace Hopper (');
            expect(thread).toContain(
              'keyctl rotate --stage, then wait for the canary & see the runbook (https://wiki.acme.test/keys)',
            );
            expect(thread).toContain('Thanks @Grace Hopper!');
            const digits = rotateThread.replace('.', '');
            expect(answer.sources[0]).toMatchObject({
              document_title: '#engineering: How do we rotate the API signing keys?',
              document_url: `${slack.workspaceUrl}/archives/${ENG}/p${digits}?thread_ts=${rotateThread}&cid=${ENG}`,
            });
          },
        },
        {
          question: 'When is the incident drill?',
          expectAnswer: (answer) => {
            expect(answer.sources[0].document_url).toMatch(
              new RegExp(`^${slack.workspaceUrl}/archives/${SECURITY}/p\\d+$`),
            );
            expect(JSON.stringify(answer)).not.toContain('Salaries');
          },
        },
      ],
      // The public channel is joined before it is read.
      expectReads: (mark) => {
        expect(calls(mark, 'conversations.join').map((r) => r.params.channel)).toEqual([ENG]);
        expect(slack.isMember(ENG)).toBe(true);
      },
    },

    change: {
      apply: () => {
        slack.reply(ENG, rotateThread, {
          user: 'U0GRACE001',
          text: 'Update: the staging step is now keyctl rotate --prepare',
        });
      },
      documents: 1,
      expectReads: (mark) => {
        const replies = calls(mark, 'conversations.replies');
        // Its replies, page after page (response_metadata.next_cursor); no other thread.
        expect(replies.length).toBeGreaterThan(1);
        expect([...new Set(replies.map((r) => r.params.ts))]).toEqual([rotateThread]);
      },
      questions: [
        {
          question: 'What is the staging step for rotating keys now?',
          expectAnswer: (answer) => {
            expect(answer.sources[0].document_url).toContain(`thread_ts=${rotateThread}`);
            expect(JSON.stringify(answer)).toContain('--prepare');
          },
        },
      ],
    },

    deletion: {
      apply: () => slack.deleteThread(ENG, coffee),
      documents: 1,
      question: 'When is the office coffee machine descaled?',
      goneTitle: '#engineering: The office coffee machine is descaled on Mondays.',
    },

    accessToken: {
      lifetimeMs: 12 * HOUR_MS,
      refreshAndFirstRead: (mark) => {
        const during = slack.requests().slice(mark);
        return {
          refresh: during.findIndex(
            (r) => r.path === '/api/oauth.v2.access' && r.params.grant_type === 'refresh_token',
          ),
          firstRead: during.findIndex((r) => r.path === '/api/conversations.info'),
        };
      },
    },

    rateLimitNext: (count) => slack.rateLimitNext(count, '1', 'conversations.history'),

    crash: {
      async seed() {
        const ops = 'C0OPS00001';
        const dev = 'C0DEV00001';
        slack.addChannel(ops, 'ops', { botMember: true });
        slack.addChannel(dev, 'dev', { botMember: true });
        const threads = [
          ...[0, 1, 2, 3].map((n) => ({ channel: ops, n, q: 'Ops', a: 'Generator', age: 9 - n })),
          ...[0, 1].map((n) => ({ channel: dev, n, q: 'Dev', a: 'Build', age: 3 - n })),
        ];
        for (const { channel, n, q, a, age } of threads) {
          const ts = slack.post(
            channel,
            { user: 'U0ADA00001', text: `${q} question ${n}` },
            ago(age * DAY_MS),
          );
          const answer = a === 'Generator' ? 'is tested monthly.' : 'runs nightly.';
          slack.reply(
            channel,
            ts,
            { user: 'U0GRACE001', text: `${a} ${n} ${answer}` },
            ago(age * DAY_MS - 1000),
          );
        }
        return { channel_ids: [ops, dev] };
      },
      documents: 6,
      breakMidway: () =>
        slack.failOn(
          (method, params) => method === 'conversations.replies' && params.channel === 'C0DEV00001',
        ),
      heal: () => slack.failOn(null),
      indexedBeforeCrash: 4,
      // The first channel's threads are not read again.
      expectResumed: (mark) =>
        expect(calls(mark, 'conversations.replies').map((r) => r.params.channel)).toEqual([
          'C0DEV00001',
          'C0DEV00001',
        ]),
    },

    // The app uninstalled from the workspace: Slack answers token_revoked.
    revokeAccess: () => slack.uninstall(),
    revokedError: /token_revoked|invalid_refresh_token/,

    revocation: {
      atProvider: true,
      liveGrants: () => slack.liveTokens().length,
      expectRevoked: (mark, count) => {
        const revokes = calls(mark, 'auth.revoke');
        expect(revokes).toHaveLength(count);
        // With rotation on, the rotating token (xoxe.) is the one revoked.
        for (const revoke of revokes) expect(revoke.authorization).toMatch(/^Bearer xoxe\.xoxb-/);
      },
    },
  };
  return {
    ...connector,
    emulator: () => slack,
    ago,
    calls,
    rotateThread: () => rotateThread,
    channels: (channelIds: string[]) => ({ channel_ids: channelIds }),
  };
}
