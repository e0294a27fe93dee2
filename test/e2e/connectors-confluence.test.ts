import { SYNC_VISIBILITY_TIMEOUT_SECONDS } from '../../lib/local/local-dependencies';
import { CapturedOutput } from '../support/captured-output';
import {
  type ConfluenceEmulator,
  ConfluenceEmulator as Emulator,
} from '../support/confluence-emulator';
import { connectorSteps } from '../support/connector-sign-in';
import { pdfOf } from '../support/documents';
import { createAgent, createDataSource } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { syncNow, syncStatus } from '../support/sync';
import { createTenant } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

const DAY_MS = 86_400_000;

const HOUR_MS = 3_600_000;

/**
 * Confluence Cloud end to end (issue 12; D22, D26, D33, D35; P145–P157):
 * the provider sign-in against a loopback Atlassian, syncs over its REST API,
 * answers citing the pages, token refresh on a controllable clock, 429s,
 * revocation at the provider, disconnect, a crash resumed from the cursor,
 * tenant isolation, and tokens kept out of responses and logs.
 */
describe('Confluence connector (issue 12)', () => {
  const clock = new TestClock();
  let emulator: ConfluenceEmulator;
  let service: TestService;
  /** Every response body and every log line, to look for tokens in. */
  const output = new CapturedOutput();
  const seen = output.seen;

  const ago = (ms: number) => new Date(clock.now().getTime() - ms).toISOString();

  beforeAll(async () => {
    emulator = await new Emulator(clock).start();
    output.start();
    service = await startTestService({
      clock,
      env: {
        // D35: the stand-in listens on loopback (local runs and tests only).
        SVC_ALLOW_PRIVATE_URLS: 'true',
        SVC_CONFLUENCE_CLIENT_ID: emulator.clientId,
        SVC_CONFLUENCE_CLIENT_SECRET: emulator.clientSecret,
        SVC_ATLASSIAN_AUTH_URL: emulator.origin,
        SVC_ATLASSIAN_API_URL: emulator.origin,
        LOG_LEVEL: 'INFO',
      },
    });
    emulator.put({
      id: '1001',
      type: 'page',
      spaceKey: 'ENG',
      title: 'Deploy runbook',
      body: '<h2>Rollback</h2><p>To roll back a deploy, run the pipeline named <strong>undo-release</strong> and wait for the canary.</p>',
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
      id: '1003',
      type: 'page',
      spaceKey: 'ENG',
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
  });
  afterAll(async () => {
    output.stop();
    await service.end();
    await emulator.close();
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const { call, browser, start, consentAndCallback, connect, sourceOf, indexedDocuments, events } =
    connectorSteps(() => service, seen);

  async function confluenceSource(spaceKeys: string[] = ['ENG'], key = service.adminKey) {
    return createDataSource(service, key, {
      type: 'confluence',
      name: `Confluence ${spaceKeys.join(',')}`,
      config: { base_url: 'https://acme.atlassian.net', space_keys: spaceKeys },
      sync_frequency: 'manual',
    });
  }

  /** GET oauth/start without following the redirect: the 302 and its body. */

  describe('sign-in (D26, P146)', () => {
    it('connects with PKCE and a signed state, and the source becomes Connected', async () => {
      const source = await confluenceSource();
      expect(source.connection_status).toBe('Disconnected');

      const started = await start(source.id);

      expect(started.status).toBe(302);
      const body = JSON.parse(started.text);
      expect(body).toEqual({ authorization_url: started.location, expires_at: expect.any(String) });
      const authorize = new URL(started.location ?? '');
      expect(`${authorize.origin}${authorize.pathname}`).toBe(`${emulator.origin}/authorize`);
      expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
        audience: 'api.atlassian.com',
        client_id: emulator.clientId,
        response_type: 'code',
        code_challenge_method: 'S256',
        redirect_uri: `${service.url}/api/oauth/callback`,
        scope: expect.stringContaining('offline_access'),
      });
      const page = await consentAndCallback(started.location ?? '', started.browser);
      expect(page.status).toBe(200);
      expect(page.text).toContain('Connected');
      expect((await sourceOf(source.id)).connection_status).toBe('Connected');
      const exchange = emulator
        .requests()
        .filter((request) => request.url === '/oauth/token')
        .at(-1);
      expect(JSON.parse(exchange?.body ?? '{}')).toMatchObject({
        grant_type: 'authorization_code',
        code_verifier: expect.stringMatching(/^[\w-]{43}$/),
      });

      // The callback is taken once: the same redirect again fails and changes nothing.
      const replay = await fetch(page.callback);
      expect(replay.status).toBe(400);
      expect(await replay.text()).toContain('Connection failed');
    });

    it('refuses a forged or altered state with the Connection failed page', async () => {
      const source = await confluenceSource();
      const started = await start(source.id);
      const state = new URL(started.location ?? '').searchParams.get('state') ?? '';
      const altered = `${state.slice(0, -4)}AAAA`;

      for (const bad of [altered, 'not-a-state', '']) {
        const response = await fetch(
          `${service.url}/api/oauth/callback?code=anything&state=${encodeURIComponent(bad)}`,
        );
        expect(response.status).toBe(400);
        expect(await response.text()).toContain('Connection failed');
      }
      expect((await sourceOf(source.id)).connection_status).toBe('Disconnected');
    });

    it('keeps the source as it was when consent is refused at the provider', async () => {
      const source = await confluenceSource();
      emulator.denyConsent = true;
      try {
        const page = await connect(source.id);
        expect(page.status).toBe(400);
        expect(page.text).toContain('access_denied');
      } finally {
        emulator.denyConsent = false;
      }
      expect((await sourceOf(source.id)).connection_status).toBe('Disconnected');
    });

    it('expires a sign-in after 10 minutes (P146)', async () => {
      const source = await confluenceSource();
      const started = await start(source.id);
      clock.advance(11 * 60_000);

      const page = await consentAndCallback(started.location ?? '', started.browser);

      expect(page.status).toBe(400);
      expect((await sourceOf(source.id)).connection_status).toBe('Disconnected');
    });

    it('refuses other data source types and read-only users', async () => {
      const website = await createDataSource(service, service.adminKey);
      expect((await start(website.id)).status).toBe(400);
      const source = await confluenceSource();
      const reader = await browser({ role: 'readonly' });
      expect((await start(source.id, reader)).status).toBe(403);
      const missing = await call('/api/v1/data-sources/ds_00000000000000000000000000/connection', {
        method: 'DELETE',
      });
      expect(missing.status).toBe(404);
    });
  });

  describe('syncs (D22-D24, P151, P155)', () => {
    let sourceId: string;

    beforeAll(async () => {
      sourceId = (await confluenceSource()).id;
      await connect(sourceId);
    });

    it('reads the chosen spaces and answers citing the Confluence pages', async () => {
      const status = await syncNow(service, service.adminKey, sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded', error: null });
      expect(status.chunks_indexed).toBeGreaterThanOrEqual(3);
      expect((await indexedDocuments(sourceId)).size).toBe(3);
      const agent = await createAgent(service, service.adminKey, {
        name: 'Engineering helper',
        data_source_ids: [sourceId],
      });
      const answer = json(
        await call('/api/v1/query', {
          method: 'POST',
          body: { agent_id: agent.id, query: 'How do I roll back a deploy?' },
        }),
      );
      expect(answer.response).toContain('undo-release');
      expect(answer.sources[0]).toMatchObject({
        document_title: 'Deploy runbook',
        document_url: 'https://acme.atlassian.net/wiki/spaces/ENG/pages/1001',
      });
      const processed = await events('datasource.processed');
      expect(processed.at(-1)?.data).toMatchObject({
        dataSource: { id: sourceId, type: 'CONFLUENCE', status: 'COMPLETED' },
      });
    });

    it('reads only what changed, by last-modified CQL; renamed pages keep their id, deleted ones leave', async () => {
      const before = await indexedDocuments(sourceId);
      emulator.put({
        id: '1001',
        type: 'page',
        spaceKey: 'ENG',
        title: 'Release runbook',
        body: '<h2>Rollback</h2><p>To roll back a deploy, run the pipeline named <strong>undo-release</strong> and wait for the canary.</p>',
        when: clock.now().toISOString(),
      });
      emulator.remove('1003');
      const requestsBefore = emulator.requests().length;

      const status = await syncNow(service, service.adminKey, sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      const after = await indexedDocuments(sourceId);
      expect(after.size).toBe(2);
      const renamedId = [...before.keys()].find(
        (id) => after.has(id) && after.get(id) !== before.get(id),
      );
      expect(renamedId).toBeDefined();
      const searches = emulator
        .requests()
        .slice(requestsBefore)
        .filter((request) => request.url.includes('/content/search'))
        .map((request) => new URL(request.url, emulator.origin).searchParams.get('cql') ?? '');
      expect(searches.some((cql) => /lastmodified >= now\("-\d+m"\)/.test(cql))).toBe(true);
      const agent = await createAgent(service, service.adminKey, {
        name: 'Renamed',
        data_source_ids: [sourceId],
      });
      const answer = json(
        await call('/api/v1/query', {
          method: 'POST',
          body: { agent_id: agent.id, query: 'How do I roll back a deploy?' },
        }),
      );
      expect(answer.sources[0]).toMatchObject({
        document_title: 'Release runbook',
        document_url: 'https://acme.atlassian.net/wiki/spaces/ENG/pages/1001',
      });
    });

    it('renews the access token before it expires (P148) on the controllable clock', async () => {
      clock.advance(HOUR_MS - 60_000);
      const requestsBefore = emulator.requests().length;

      const status = await syncNow(service, service.adminKey, sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      const during = emulator.requests().slice(requestsBefore);
      const refresh = during.findIndex(
        (request) => request.url === '/oauth/token' && request.body.includes('refresh_token'),
      );
      const firstApiCall = during.findIndex((request) => request.url.startsWith('/ex/confluence/'));
      expect(refresh).toBeGreaterThanOrEqual(0);
      expect(refresh).toBeLessThan(firstApiCall);
      // Rotating refresh tokens: only the newest one still works, and it is the one stored.
      expect(emulator.activeRefreshTokens().length).toBeGreaterThan(0);
    });

    it('waits out 429 answers as Retry-After says (P152)', async () => {
      emulator.rateLimitNext(2, '1');

      const status = await syncNow(service, service.adminKey, sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
    });
  });

  it('indexes page attachments through the file parsers, follows new versions and removes deleted ones (P186)', async () => {
    emulator.put({
      id: '4001',
      type: 'page',
      spaceKey: 'DOCS',
      title: 'Appliances',
      body: '<p>Manuals for the office appliances are attached.</p>',
      when: ago(3 * DAY_MS),
    });
    emulator.attach('4001', {
      id: 'att5001',
      title: 'dishwasher-manual.pdf',
      mediaType: 'application/pdf',
      bytes: await pdfOf(['Dishwasher', 'Run the dishwasher on the eco program after 6 pm.']),
      when: ago(2 * DAY_MS),
    });
    emulator.attach('4001', {
      id: 'att5002',
      title: 'floor-plan.png',
      mediaType: 'image/png',
      bytes: Buffer.from([137, 80, 78, 71]),
      when: ago(2 * DAY_MS),
    });
    const source = await confluenceSource(['DOCS']);
    await connect(source.id);

    const status = await syncNow(service, service.adminKey, source.id);

    expect(status).toMatchObject({ status: 'active', job_status: 'succeeded', error: null });
    // The page and its PDF; the picture is not read.
    expect((await indexedDocuments(source.id)).size).toBe(2);
    const agent = await createAgent(service, service.adminKey, {
      name: 'Appliances',
      data_source_ids: [source.id],
    });
    const ask = async (query: string) =>
      json(await call('/api/v1/query', { method: 'POST', body: { agent_id: agent.id, query } }));
    const answer = await ask('When should the dishwasher run?');
    expect(answer.response).toContain('eco program');
    expect(answer.sources[0]).toMatchObject({
      document_title: 'dishwasher-manual.pdf',
      document_url: expect.stringMatching(
        /^https:\/\/acme\.atlassian\.net\/wiki\/pages\/viewpageattachments\.action\?pageId=4001&preview=/,
      ),
    });
    const downloads = emulator.requests().filter((r) => r.url.includes('/child/attachment/'));
    expect(downloads.map((r) => r.url)).toEqual([
      expect.stringMatching(/\/content\/4001\/child\/attachment\/att5001\/download$/),
    ]);

    emulator.attach('4001', {
      id: 'att5001',
      title: 'dishwasher-manual.pdf',
      mediaType: 'application/pdf',
      bytes: await pdfOf(['Dishwasher', 'Run the dishwasher on the quick program before noon.']),
      when: clock.now().toISOString(),
    });
    expect(await syncNow(service, service.adminKey, source.id)).toMatchObject({ status: 'active' });
    expect((await ask('When should the dishwasher run?')).response).toContain('quick program');

    emulator.remove('att5001');
    expect(await syncNow(service, service.adminKey, source.id)).toMatchObject({ status: 'active' });
    expect((await indexedDocuments(source.id)).size).toBe(1);
  });

  it('resumes a sync that crashed mid-way from the committed cursor, without duplicate chunks (P151)', async () => {
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
    const source = await confluenceSource(['OPS']);
    await connect(source.id);
    // The second page of bodies fails: the worker's attempt throws after committing page one.
    emulator.failOn(
      (url) =>
        url.pathname.endsWith('/content/search') &&
        (url.searchParams.get('expand') ?? '').includes('body.storage') &&
        url.searchParams.has('cursor'),
    );
    const first = await syncNow(service, service.adminKey, source.id);
    expect(first).toMatchObject({ status: 'processing', job_status: 'running' });
    expect((await indexedDocuments(source.id)).size).toBe(2);

    emulator.failOn(null);
    const requestsBefore = emulator.requests().length;
    clock.advance(SYNC_VISIBILITY_TIMEOUT_SECONDS * 1000 + 1_000);
    await service.runtime.workers.stepSync();
    const status = await syncStatus(service, service.adminKey, source.id);

    expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
    const resumed = emulator
      .requests()
      .slice(requestsBefore)
      .map((request) => new URL(request.url, emulator.origin))
      .filter((url) => (url.searchParams.get('expand') ?? '').includes('body.storage'));
    // Resumed from the cursor (the second page's oldest change), not from the start.
    expect(resumed[0]?.searchParams.get('cql')).toMatch(/lastmodified >= now\("-\d+m"\)/);
    expect((await indexedDocuments(source.id)).size).toBe(5);
    expect(
      await service.runtime.dependencies.retrieval.count({
        orgId: service.orgId,
        dataSourceIds: [source.id],
      }),
    ).toBe(5);
  });

  it('moves to Connection failed when access is revoked at the provider, with datasource.failed (P147)', async () => {
    const source = await confluenceSource();
    await connect(source.id);
    expect((await syncNow(service, service.adminKey, source.id)).status).toBe('active');
    emulator.revokeEverything();

    const status = await syncNow(service, service.adminKey, source.id);

    expect(status).toMatchObject({ status: 'failed', job_status: 'failed' });
    expect(status.error).toMatch(/revoked/);
    expect((await sourceOf(source.id)).connection_status).toBe('Connection failed');
    const failed = (await events('datasource.failed')).filter(
      (event) => (event.data as any).dataSource.id === source.id,
    );
    expect(failed.at(-1)?.data).toMatchObject({
      connection_status: 'Connection failed',
      error: expect.stringMatching(/revoked/),
    });
    // Until reconnected: the next sync says so without calling the provider.
    const again = await syncNow(service, service.adminKey, source.id);
    expect(again.error).toMatch(/reconnect/);

    const page = await connect(source.id);
    expect(page.status).toBe(200);
    expect(await syncNow(service, service.adminKey, source.id)).toMatchObject({
      status: 'active',
    });
  });

  it('disconnects: deletes the tokens and revokes them at the provider', async () => {
    const source = await confluenceSource();
    await connect(source.id);
    const active = emulator.activeRefreshTokens();

    const response = await call(`/api/v1/data-sources/${source.id}/connection`, {
      method: 'DELETE',
    });

    expect(response.status).toBe(200);
    expect(json(response)).toMatchObject({
      revoked_at_provider: true,
      revocation_error: null,
      data_source: { id: source.id, connection_status: 'Disconnected' },
    });
    const revoke = emulator
      .requests()
      .filter((request) => request.url === '/oauth/revoke')
      .at(-1);
    expect(revoke).toBeDefined();
    expect(emulator.activeRefreshTokens().length).toBe(active.length - 1);
    expect(
      await service.runtime.dependencies.connections.sealedTokens(service.orgId, source.id),
    ).toBeNull();
    const status = await syncNow(service, service.adminKey, source.id);
    expect(status.error).toMatch(/not connected/);
  });

  it('revokes the grant of a deleted source at the provider, from the sync worker (P158)', async () => {
    const source = await confluenceSource();
    await connect(source.id);
    const active = emulator.activeRefreshTokens().length;
    const revokesBefore = emulator.requests().filter((r) => r.url === '/oauth/revoke').length;

    const deleted = await call(`/api/v1/data-sources/${source.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    await service.runtime.workers.stepSync();

    expect(emulator.requests().filter((r) => r.url === '/oauth/revoke').length).toBe(
      revokesBefore + 1,
    );
    expect(emulator.activeRefreshTokens().length).toBe(active - 1);
  });

  it('keeps each organization to its own sources (D1) and binds the state to its source', async () => {
    const source = await confluenceSource();
    const other = await createTenant(service);

    expect((await start(source.id, await browser({ orgId: other.orgId }))).status).toBe(404);
    const disconnect = await api(service.url, `/api/v1/data-sources/${source.id}/connection`, {
      method: 'DELETE',
      key: other.key,
    });
    expect(disconnect.status).toBe(404);

    // A state started by the other organization for its own source connects that source only.
    const theirs = await createDataSource(service, other.key, {
      type: 'confluence',
      name: 'Theirs',
      config: { base_url: 'https://acme.atlassian.net', space_keys: ['ENG'] },
    });
    const started = await start(theirs.id, await browser({ orgId: other.orgId }));
    await consentAndCallback(started.location ?? '', started.browser);
    expect((await sourceOf(source.id)).connection_status).toBe('Disconnected');
    const theirsNow = json(
      await api(service.url, `/api/v1/data-sources/${theirs.id}`, { key: other.key }),
    );
    expect(theirsNow.connection_status).toBe('Connected');
  });

  it('never shows or logs a token, and stores them sealed (D33)', async () => {
    const source = await confluenceSource();
    await connect(source.id);
    const listed = await call('/api/v1/data-sources?limit=100');
    const sealed = await service.runtime.dependencies.connections.sealedTokens(
      service.orgId,
      source.id,
    );

    const tokens = emulator.issuedTokens();
    expect(tokens.length).toBeGreaterThan(0);
    const everything = [...seen, listed.text, sealed ?? ''].join('\n');
    for (const token of tokens) expect(everything).not.toContain(token);
    expect(sealed).toEqual(expect.any(String));
  });
});

describe('Confluence connector without its app configured (P150)', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.end());

  const { start } = connectorSteps(() => service, []);

  it('answers 409 at connect time, naming what the operator must set', async () => {
    const source = await createDataSource(service, service.adminKey, {
      type: 'confluence',
      name: 'Wiki',
      config: { base_url: 'https://acme.atlassian.net', space_keys: ['ENG'] },
    });

    const response = await start(source.id);

    expect(response.status).toBe(409);
    expect(JSON.parse(response.text).error.message).toMatch(/app is not configured/);
  });
});
