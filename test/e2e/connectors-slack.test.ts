import fc from 'fast-check';
import { SYNC_VISIBILITY_TIMEOUT_SECONDS } from '../../lib/local/local-dependencies';
import { CapturedOutput } from '../support/captured-output';
import { connectorSteps } from '../support/connector-sign-in';
import { createAgent, createDataSource } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { SlackEmulator } from '../support/slack-emulator';
import { syncNow, syncStatus } from '../support/sync';
import { createTenant } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

const ENG = 'C0ENG00001';
const SECURITY = 'G0SEC00001';
const HR = 'G0HR000001';

/**
 * Slack end to end (issue 12; D22, D26, D33, D35; P145–P158, P159–P164): the
 * OAuth v2 sign-in against a loopback Slack, syncs over its Web API
 * (threads as documents, incremental by the latest activity), answers
 * citing the thread's permalink, token rotation on a controllable clock,
 * 429 + Retry-After, deletions, an uninstalled app (`token_revoked`) to
 * `Connection failed`, disconnect revoking at Slack, a crash resumed from
 * the cursor, tenant isolation, and tokens kept out of responses and logs.
 */
describe('Slack connector (issue 12)', () => {
  const clock = new TestClock();
  let slack: SlackEmulator;
  let service: TestService;
  let rotateThread: string;
  let coffee: string;
  const output = new CapturedOutput();
  const seen = output.seen;
  const ago = (ms: number) => new Date(clock.now().getTime() - ms);

  beforeAll(async () => {
    slack = await new SlackEmulator(clock).start();
    output.start();
    service = await startTestService({
      clock,
      env: {
        // D35: the stand-in listens on loopback (local runs and tests only).
        SVC_ALLOW_PRIVATE_URLS: 'true',
        SVC_SLACK_CLIENT_ID: slack.clientId,
        SVC_SLACK_CLIENT_SECRET: slack.clientSecret,
        SVC_SLACK_URL: slack.origin,
        LOG_LEVEL: 'INFO',
      },
    });
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
  });
  afterAll(async () => {
    output.stop();
    await service.end();
    await slack.close();
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const { call, browser, start, consentAndCallback, connect, sourceOf, indexedDocuments, events } =
    connectorSteps(() => service, seen);

  async function slackSource(channelIds: string[] = [ENG, SECURITY, HR], key = service.adminKey) {
    return createDataSource(service, key, {
      type: 'slack',
      name: `Slack ${channelIds.join(',')}`,
      config: { channel_ids: channelIds },
      sync_frequency: 'manual',
    });
  }

  const calls = (from: number, method: string) =>
    slack
      .requests()
      .slice(from)
      .filter((request) => request.path === `/api/${method}`);
  async function ask(sourceId: string, query: string) {
    const agent = await createAgent(service, service.adminKey, {
      name: `Asks ${query.slice(0, 20)}`,
      data_source_ids: [sourceId],
    });
    return json(
      await call('/api/v1/query', { method: 'POST', body: { agent_id: agent.id, query } }),
    );
  }

  describe('sign-in (D26, P146, P159)', () => {
    it('connects through OAuth v2 with the bot scopes and PKCE, and the source becomes Connected', async () => {
      const source = await slackSource();
      expect(source.connection_status).toBe('Disconnected');

      const started = await start(source.id);

      expect(started.status).toBe(302);
      expect(JSON.parse(started.text)).toEqual({
        authorization_url: started.location,
        expires_at: expect.any(String),
      });
      const authorize = new URL(started.location ?? '');
      expect(`${authorize.origin}${authorize.pathname}`).toBe(`${slack.origin}/oauth/v2/authorize`);
      expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
        client_id: slack.clientId,
        redirect_uri: `${service.url}/api/oauth/callback`,
        code_challenge_method: 'S256',
        scope: 'channels:read,channels:history,channels:join,groups:read,groups:history,users:read',
      });
      const page = await consentAndCallback(started.location ?? '', started.browser);
      expect(page.status).toBe(200);
      expect(page.text).toContain('Connected');
      expect((await sourceOf(source.id)).connection_status).toBe('Connected');
      const exchange = calls(0, 'oauth.v2.access').at(-1);
      expect(exchange?.authorization).toMatch(/^Basic /);
      expect(exchange?.params).toMatchObject({
        grant_type: 'authorization_code',
        code_verifier: expect.stringMatching(/^[\w-]{43}$/),
      });
      expect(exchange?.params.client_secret).toBeUndefined();

      const replay = await fetch(page.callback);
      expect(replay.status).toBe(400);
    });

    it('keeps the source Disconnected when consent is refused', async () => {
      const source = await slackSource();
      slack.denyConsent = true;
      try {
        const page = await connect(source.id);
        expect(page.status).toBe(400);
        expect(page.text).toContain('access_denied');
      } finally {
        slack.denyConsent = false;
      }
      expect((await sourceOf(source.id)).connection_status).toBe('Disconnected');
    });

    it('validates channel ids at create and update (D4, P159)', async () => {
      for (const channelIds of [['general'], ['#eng'], ['c0123'], ['D0123'], []]) {
        const response = await call('/api/v1/data-sources', {
          method: 'POST',
          body: { type: 'slack', name: 'Bad', config: { channel_ids: channelIds } },
        });
        expect(response.status).toBe(400);
      }
      const source = await slackSource([ENG]);
      const update = await call(`/api/v1/data-sources/${source.id}`, {
        method: 'PUT',
        body: { config: { channel_ids: ['not a channel'] } },
      });
      expect(update.status).toBe(400);
      expect(json(update).error.details.fields).toEqual(
        expect.arrayContaining([expect.objectContaining({ path: 'config.channel_ids.0' })]),
      );
    });
  });

  it('fuzzes the Slack config at create: 201 exactly for channel ids, else 400, never a 5xx (D4, P159)', async () => {
    const channelId = fc.stringMatching(/^[CG][A-Z0-9]{1,12}$/);
    const anything = fc.oneof(
      channelId,
      fc.string({ maxLength: 40 }),
      fc.constantFrom('', 'general', '#eng', 'c0123', 'D0123', 'C0123 ', '<C0123>'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.array(anything, { maxLength: 5 }),
          fc.anything({ maxDepth: 2 }),
          fc.dictionary(fc.string({ maxLength: 10 }), fc.anything({ maxDepth: 1 }), { maxKeys: 3 }),
        ),
        async (channelIds) => {
          clock.advance(REFILL_ALL_BUCKETS_MS);
          const response = await call('/api/v1/data-sources', {
            method: 'POST',
            body: { type: 'slack', name: 'Fuzzed', config: { channel_ids: channelIds } },
          });
          const valid =
            Array.isArray(channelIds) &&
            channelIds.length > 0 &&
            channelIds.every((id) => typeof id === 'string' && /^[CG][A-Z0-9]+$/.test(id));
          expect(response.status).toBe(valid ? 201 : 400);
        },
      ),
      { numRuns: 40 },
    );
  });

  describe('syncs (D22-D24, P151, P160-P162)', () => {
    let sourceId: string;

    beforeAll(async () => {
      sourceId = (await slackSource()).id;
      await connect(sourceId);
    });

    it('reads threads as documents, joins the public channel, and answers citing the Slack thread', async () => {
      expect(slack.isMember(ENG)).toBe(false);

      const status = await syncNow(service, service.adminKey, sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      // The private channel the app was not added to is reported, not read.
      expect(status.error).toMatch(
        /G0HR000001 was not found, or is private and the app was not added/,
      );
      expect(slack.isMember(ENG)).toBe(true);
      expect((await indexedDocuments(sourceId)).size).toBe(3);
      const answer = await ask(sourceId, 'How do we rotate the API signing keys?');
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
      const drill = await ask(sourceId, 'When is the incident drill?');
      expect(drill.sources[0].document_url).toMatch(
        new RegExp(`^${slack.workspaceUrl}/archives/${SECURITY}/p\\d+$`),
      );
      expect(JSON.stringify(drill)).not.toContain('Salaries');
      const processed = await events('datasource.processed');
      expect(processed.at(-1)?.data).toMatchObject({
        dataSource: { id: sourceId, type: 'SLACK', status: 'COMPLETED' },
      });
    });

    it('picks up a new reply incrementally: only the changed thread is read again', async () => {
      const before = slack.requests().length;
      slack.reply(ENG, rotateThread, {
        user: 'U0GRACE001',
        text: 'Update: the staging step is now keyctl rotate --prepare',
      });

      const status = await syncNow(service, service.adminKey, sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      const replies = calls(before, 'conversations.replies');
      // Its replies, page after page (response_metadata.next_cursor); no other thread.
      expect(replies.length).toBeGreaterThan(1);
      expect([...new Set(replies.map((request) => request.params.ts))]).toEqual([rotateThread]);
      const answer = await ask(sourceId, 'What is the staging step for rotating keys now?');
      expect(answer.sources[0].document_url).toContain(`thread_ts=${rotateThread}`);
      expect(JSON.stringify(answer)).toContain('--prepare');
    });

    it('removes a deleted thread from the index on the next sync', async () => {
      const before = await indexedDocuments(sourceId);
      slack.deleteThread(ENG, coffee);

      const status = await syncNow(service, service.adminKey, sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      const after = await indexedDocuments(sourceId);
      expect(after.size).toBe(before.size - 1);
    });

    it('drops the text of a deleted first message, keeping its replies (tombstone)', async () => {
      const thread = slack.post(ENG, {
        user: 'U0ADA00001',
        text: 'Parking passes expire in June.',
      });
      slack.reply(ENG, thread, { user: 'U0GRACE001', text: 'Renewals go through facilities.' });
      await syncNow(service, service.adminKey, sourceId);
      slack.deleteMessage(ENG, thread);

      await syncNow(service, service.adminKey, sourceId);

      const answer = await ask(sourceId, 'How are parking passes renewed through facilities?');
      expect(JSON.stringify(answer)).toContain('facilities');
      expect(JSON.stringify(answer)).not.toContain('expire in June');
    });

    it('waits out 429 answers as Retry-After says (P152)', async () => {
      const before = slack.requests().length;
      slack.rateLimitNext(2, '1', 'conversations.history');

      const status = await syncNow(service, service.adminKey, sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      expect(calls(before, 'conversations.history').length).toBeGreaterThanOrEqual(3);
    });

    it('renews a rotating token before it expires (P148) on the controllable clock', async () => {
      clock.advance(12 * HOUR_MS - 60_000);
      const before = slack.requests().length;

      const status = await syncNow(service, service.adminKey, sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      const during = slack.requests().slice(before);
      const refresh = during.findIndex(
        (request) =>
          request.path === '/api/oauth.v2.access' && request.params.grant_type === 'refresh_token',
      );
      const firstRead = during.findIndex((request) => request.path === '/api/conversations.info');
      expect(refresh).toBeGreaterThanOrEqual(0);
      expect(refresh).toBeLessThan(firstRead);
    });

    it('removes the threads of a private channel the app was removed from', async () => {
      slack.removeBot(SECURITY);

      const status = await syncNow(service, service.adminKey, sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      expect(status.error).toMatch(/security|G0SEC00001/);
      const answer = await ask(sourceId, 'When is the incident drill?');
      expect(JSON.stringify(answer)).not.toContain('Ballard');
    });
  });

  it('resumes a sync that crashed mid-way from the committed cursor, without duplicate chunks (P151)', async () => {
    const ops = 'C0OPS00001';
    const dev = 'C0DEV00001';
    slack.addChannel(ops, 'ops', { botMember: true });
    slack.addChannel(dev, 'dev', { botMember: true });
    for (let n = 0; n < 4; n += 1) {
      const ts = slack.post(
        ops,
        { user: 'U0ADA00001', text: `Ops question ${n}` },
        ago((9 - n) * DAY_MS),
      );
      slack.reply(
        ops,
        ts,
        { user: 'U0GRACE001', text: `Generator ${n} is tested monthly.` },
        ago((9 - n) * DAY_MS - 1000),
      );
    }
    for (let n = 0; n < 2; n += 1) {
      const ts = slack.post(
        dev,
        { user: 'U0ADA00001', text: `Dev question ${n}` },
        ago((3 - n) * DAY_MS),
      );
      slack.reply(
        dev,
        ts,
        { user: 'U0GRACE001', text: `Build ${n} runs nightly.` },
        ago((3 - n) * DAY_MS - 1000),
      );
    }
    const source = await slackSource([ops, dev]);
    await connect(source.id);
    slack.failOn((method, params) => method === 'conversations.replies' && params.channel === dev);

    const first = await syncNow(service, service.adminKey, source.id);
    expect(first).toMatchObject({ status: 'processing', job_status: 'running' });
    expect((await indexedDocuments(source.id)).size).toBe(4);

    slack.failOn(null);
    const before = slack.requests().length;
    clock.advance(SYNC_VISIBILITY_TIMEOUT_SECONDS * 1000 + 1_000);
    await service.runtime.workers.stepSync();
    const status = await syncStatus(service, service.adminKey, source.id);

    expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
    // Resumed from the cursor: the first channel's threads are not read again.
    const reread = calls(before, 'conversations.replies').map((request) => request.params.channel);
    expect(reread).toEqual([dev, dev]);
    expect((await indexedDocuments(source.id)).size).toBe(6);
    expect(
      await service.runtime.dependencies.retrieval.count({
        orgId: service.orgId,
        dataSourceIds: [source.id],
      }),
    ).toBe(6);
  });

  it('moves to Connection failed when the app is uninstalled (token_revoked), with datasource.failed (P147)', async () => {
    const source = await slackSource([ENG]);
    await connect(source.id);
    expect((await syncNow(service, service.adminKey, source.id)).status).toBe('active');
    slack.uninstall();

    const status = await syncNow(service, service.adminKey, source.id);

    expect(status).toMatchObject({ status: 'failed', job_status: 'failed' });
    expect(status.error).toMatch(/token_revoked|invalid_refresh_token/);
    expect((await sourceOf(source.id)).connection_status).toBe('Connection failed');
    const failed = (await events('datasource.failed')).filter(
      (event) => (event.data as any).dataSource.id === source.id,
    );
    expect(failed.at(-1)?.data).toMatchObject({ connection_status: 'Connection failed' });

    const again = await syncNow(service, service.adminKey, source.id);
    expect(again.error).toMatch(/reconnect/);
    const page = await connect(source.id);
    expect(page.status).toBe(200);
    expect(await syncNow(service, service.adminKey, source.id)).toMatchObject({ status: 'active' });
  });

  it('disconnects: deletes the tokens and revokes them at Slack (auth.revoke)', async () => {
    const source = await slackSource([ENG]);
    await connect(source.id);
    const live = slack.liveTokens().length;
    const before = slack.requests().length;

    const response = await call(`/api/v1/data-sources/${source.id}/connection`, {
      method: 'DELETE',
    });

    expect(response.status).toBe(200);
    expect(json(response)).toMatchObject({
      revoked_at_provider: true,
      revocation_error: null,
      data_source: { id: source.id, connection_status: 'Disconnected' },
    });
    expect(calls(before, 'auth.revoke')).toHaveLength(1);
    expect(calls(before, 'auth.revoke')[0]?.authorization).toMatch(/^Bearer xoxe\.xoxb-/);
    expect(slack.liveTokens().length).toBe(live - 1);
    expect(
      await service.runtime.dependencies.connections.sealedTokens(service.orgId, source.id),
    ).toBeNull();
    expect((await syncNow(service, service.adminKey, source.id)).error).toMatch(/not connected/);
  });

  it('works with token rotation off: a token that never expires, nothing to renew (P159)', async () => {
    slack.rotation = false;
    try {
      const source = await slackSource([ENG]);
      await connect(source.id);
      clock.advance(30 * DAY_MS);
      const before = slack.requests().length;

      const status = await syncNow(service, service.adminKey, source.id);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      expect(calls(before, 'oauth.v2.access')).toHaveLength(0);
      const response = await call(`/api/v1/data-sources/${source.id}/connection`, {
        method: 'DELETE',
      });
      expect(json(response)).toMatchObject({ revoked_at_provider: true });
      expect(calls(before, 'auth.revoke')[0]?.authorization).toMatch(/^Bearer xoxb-/);
    } finally {
      slack.rotation = true;
    }
  });

  it('revokes the grant of a deleted source at Slack, from the sync worker (P158)', async () => {
    const source = await slackSource([ENG]);
    await connect(source.id);
    const live = slack.liveTokens().length;
    const before = slack.requests().length;

    expect((await call(`/api/v1/data-sources/${source.id}`, { method: 'DELETE' })).status).toBe(
      204,
    );
    await service.runtime.workers.stepSync();

    expect(calls(before, 'auth.revoke')).toHaveLength(1);
    expect(slack.liveTokens().length).toBe(live - 1);
  });

  it('keeps each organization to its own sources (D1)', async () => {
    const source = await slackSource([ENG]);
    const other = await createTenant(service);

    expect((await start(source.id, await browser({ orgId: other.orgId }))).status).toBe(404);
    const disconnect = await api(service.url, `/api/v1/data-sources/${source.id}/connection`, {
      method: 'DELETE',
      key: other.key,
    });
    expect(disconnect.status).toBe(404);
    const theirs = await slackSource([ENG], other.key);
    await connect(theirs.id, await browser({ orgId: other.orgId }));
    expect((await sourceOf(source.id)).connection_status).toBe('Disconnected');
  });

  it('never shows or logs a token, and stores them sealed (D33)', async () => {
    const source = await slackSource([ENG]);
    await connect(source.id);
    const listed = await call('/api/v1/data-sources?limit=100');
    const sealed = await service.runtime.dependencies.connections.sealedTokens(
      service.orgId,
      source.id,
    );

    const tokens = slack.issuedTokens();
    expect(tokens.length).toBeGreaterThan(0);
    const everything = [...seen, listed.text, sealed ?? ''].join('\n');
    for (const token of tokens) expect(everything).not.toContain(token);
    expect(sealed).toEqual(expect.any(String));
  });
});

describe('Slack connector without its app configured (P150)', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.end());

  const { start } = connectorSteps(() => service, []);

  it('answers 409 at connect time, naming what the operator must set', async () => {
    const source = await createDataSource(service, service.adminKey, {
      type: 'slack',
      name: 'Slack',
      config: { channel_ids: [ENG] },
    });

    const response = await start(source.id);

    expect(response.status).toBe(409);
    expect(JSON.parse(response.text).error.message).toMatch(/Slack app is not configured/);
  });
});
