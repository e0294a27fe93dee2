import { ConfluenceEmulator } from '../confluence-emulator';
import type { TestClock } from '../test-clock';
import type { ConnectorAdapter } from './connector-adapter';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const BASE_URL = 'https://acme.atlassian.net';
const ROLLBACK =
  '<h2>Rollback</h2><p>To roll back a deploy, run the pipeline named <strong>undo-release</strong> and wait for the canary.</p>';

/**
 * Confluence Cloud behind a loopback Atlassian (`ConfluenceEmulator`): the
 * space ENG (two pages and a blog post) is chosen, HR is not.
 */
export function confluenceConnector() {
  let clock: TestClock;
  let emulator: ConfluenceEmulator;
  /** An ISO time `ms` before the suite's now. */
  const ago = (ms: number) => new Date(clock.now().getTime() - ms).toISOString();
  const requestsSince = (mark: number) => emulator.requests().slice(mark);
  const cqlOf = (url: string) => new URL(url, emulator.origin).searchParams.get('cql') ?? '';

  const connector: ConnectorAdapter = {
    name: 'Confluence',
    type: 'confluence',
    eventType: 'CONFLUENCE',
    offlineConfig: { base_url: BASE_URL, space_keys: ['ENG'] },
    notConfigured: /Confluence \(Atlassian\) app is not configured/,

    async start(suiteClock) {
      clock = suiteClock;
      emulator = await new ConfluenceEmulator(clock).start();
      return {
        SVC_CONFLUENCE_CLIENT_ID: emulator.clientId,
        SVC_CONFLUENCE_CLIENT_SECRET: emulator.clientSecret,
        SVC_ATLASSIAN_AUTH_URL: emulator.origin,
        SVC_ATLASSIAN_API_URL: emulator.origin,
      };
    },
    async seed() {
      const page = { type: 'page', spaceKey: 'ENG' } as const;
      emulator.put({
        ...page,
        id: '1001',
        title: 'Deploy runbook',
        body: ROLLBACK,
        when: ago(3 * DAY_MS),
      });
      emulator.put({
        id: '1002',
        type: 'blogpost',
        spaceKey: 'ENG',
        title: 'Quarterly engineering update',
        body: '<p>The on-call rotation now changes every Tuesday at noon.</p>',
        when: ago(2 * DAY_MS),
      });
      emulator.put({
        ...page,
        id: '1003',
        title: 'Office plants',
        body: '<p>The ficus in room 4 is watered on Fridays.</p>',
        when: ago(DAY_MS),
      });
      emulator.put({
        id: '9001',
        type: 'page',
        spaceKey: 'HR',
        title: 'Salaries',
        body: '<p>Not in a chosen space: never read.</p>',
        when: ago(DAY_MS),
      });
    },
    close: () => emulator.close(),
    config: () => ({ base_url: BASE_URL, space_keys: ['ENG'] }),
    requestCount: () => emulator.requests().length,
    issuedTokens: () => emulator.issuedTokens(),

    signIn: {
      authorizeEndpoint: () => `${emulator.origin}/authorize`,
      authorizeParams: (serviceUrl) => ({
        audience: 'api.atlassian.com',
        client_id: emulator.clientId,
        response_type: 'code',
        code_challenge_method: 'S256',
        redirect_uri: `${serviceUrl}/api/oauth/callback`,
        scope: expect.stringContaining('offline_access'),
      }),
      lastCodeExchange: () =>
        JSON.parse(
          emulator
            .requests()
            .filter((r) => r.url === '/oauth/token')
            .at(-1)?.body ?? '{}',
        ),
      expectedCodeExchange: () => ({
        grant_type: 'authorization_code',
        code_verifier: expect.stringMatching(/^[\w-]{43}$/),
      }),
      refuseConsent: (refuse) => {
        emulator.denyConsent = refuse;
      },
    },

    firstSync: {
      documents: 3,
      error: null,
      questions: [
        {
          question: 'How do I roll back a deploy?',
          expectAnswer: (answer) => {
            expect(answer.response).toContain('undo-release');
            expect(answer.sources[0]).toMatchObject({
              document_title: 'Deploy runbook',
              document_url: `${BASE_URL}/wiki/spaces/ENG/pages/1001`,
            });
          },
        },
      ],
      expectReads: (mark) => {
        const searched = requestsSince(mark).filter((r) => r.url.includes('/content/search'));
        expect(searched.map((r) => cqlOf(r.url)).some((cql) => cql.includes('HR'))).toBe(false);
      },
    },

    change: {
      apply: () => {
        // Renamed: same id, new title.
        emulator.put({
          id: '1001',
          type: 'page',
          spaceKey: 'ENG',
          title: 'Release runbook',
          body: ROLLBACK,
          when: clock.now().toISOString(),
        });
      },
      documents: 1,
      expectReads: (mark) => {
        const searches = requestsSince(mark)
          .filter((r) => r.url.includes('/content/search'))
          .map((r) => cqlOf(r.url));
        expect(searches.some((cql) => /lastmodified >= now\("-\d+m"\)/.test(cql))).toBe(true);
      },
      questions: [
        {
          question: 'How do I roll back a deploy?',
          expectAnswer: (answer) =>
            expect(answer.sources[0]).toMatchObject({
              document_title: 'Release runbook',
              document_url: `${BASE_URL}/wiki/spaces/ENG/pages/1001`,
            }),
        },
      ],
    },

    deletion: {
      apply: () => emulator.remove('1003'),
      documents: 1,
      question: 'When is the ficus in room 4 watered?',
      goneTitle: 'Office plants',
    },

    accessToken: {
      lifetimeMs: HOUR_MS,
      refreshAndFirstRead: (mark) => {
        const during = requestsSince(mark);
        return {
          refresh: during.findIndex(
            (r) => r.url === '/oauth/token' && r.body.includes('refresh_token'),
          ),
          firstRead: during.findIndex((r) => r.url.startsWith('/ex/confluence/')),
        };
      },
    },

    rateLimitNext: (count) => emulator.rateLimitNext(count, '1'),

    crash: {
      async seed() {
        for (let n = 0; n < 5; n += 1) {
          emulator.put({
            id: `300${n}`,
            type: 'page',
            spaceKey: 'OPS',
            title: `Ops page ${n}`,
            body: `<p>Ops fact number ${n}: the generator in hall ${n} is tested monthly.</p>`,
            when: ago((10 - n) * DAY_MS),
          });
        }
        return { base_url: BASE_URL, space_keys: ['OPS'] };
      },
      documents: 5,
      // The second page of bodies fails: the attempt throws after committing page one.
      breakMidway: () =>
        emulator.failOn(
          (url) =>
            url.pathname.endsWith('/content/search') &&
            (url.searchParams.get('expand') ?? '').includes('body.storage') &&
            url.searchParams.has('cursor'),
        ),
      heal: () => emulator.failOn(null),
      indexedBeforeCrash: 2,
      expectResumed: (mark) => {
        const resumed = requestsSince(mark)
          .map((r) => new URL(r.url, emulator.origin))
          .filter((url) => (url.searchParams.get('expand') ?? '').includes('body.storage'));
        // From the cursor (the second page's oldest change), not from the start.
        expect(resumed[0]?.searchParams.get('cql')).toMatch(/lastmodified >= now\("-\d+m"\)/);
      },
    },

    revokeAccess: () => emulator.revokeEverything(),
    revokedError: /revoked/,

    revocation: {
      atProvider: true,
      liveGrants: () => emulator.activeRefreshTokens().length,
      expectRevoked: (mark, count) =>
        expect(requestsSince(mark).filter((r) => r.url === '/oauth/revoke')).toHaveLength(count),
    },
  };
  return {
    ...connector,
    emulator: () => emulator,
    ago,
    spaces: (spaceKeys: string[]) => ({ base_url: BASE_URL, space_keys: spaceKeys }),
  };
}
