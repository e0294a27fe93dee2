import { SYNC_VISIBILITY_TIMEOUT_SECONDS } from '../../lib/local/local-dependencies';
import { connectorSteps } from '../support/connector-sign-in';
import { confluenceConnector } from '../support/connectors/confluence-connector';
import type { ConnectorAdapter } from '../support/connectors/connector-adapter';
import { connectorSuite } from '../support/connectors/connector-suite';
import { googleDriveConnector } from '../support/connectors/google-drive-connector';
import { sharepointConnector } from '../support/connectors/sharepoint-connector';
import { slackConnector } from '../support/connectors/slack-connector';
import { createDataSource } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { syncStatus } from '../support/sync';
import { createTenant } from '../support/tenants';

const CONNECTORS: ConnectorAdapter[] = [
  confluenceConnector(),
  slackConnector(),
  googleDriveConnector(),
  sharepointConnector(),
];

/**
 * What every connector does, run against each provider's loopback stand-in
 * (issue 12): the provider sign-in (PKCE, a signed state bound
 * to its source and organization, refused consent, expiry), a first sync
 * answering with citations, an edit and a deletion followed incrementally,
 * the access token renewed on a controllable clock, 429s waited out, a crash
 * resumed from the committed cursor, revocation at the provider, disconnect,
 * and tokens kept out of responses and logs. What one provider does beyond
 * this lives in its own `connectors-<provider>.test.ts`.
 */
describe.each(CONNECTORS)('$name connector', (adapter) => {
  const {
    clock,
    seen,
    service,
    call,
    browser,
    start,
    consentAndCallback,
    connect,
    sourceOf,
    indexedDocuments,
    events,
    createSource,
    ask,
    sync,
    chunkCount,
  } = connectorSuite(adapter);

  describe('sign-in', () => {
    it('connects with PKCE and a signed state, and the source becomes Connected', async () => {
      const source = await createSource();
      expect(source.connection_status).toBe('Disconnected');

      const started = await start(source.id);

      expect(started.status).toBe(302);
      expect(JSON.parse(started.text)).toEqual({
        authorization_url: started.location,
        expires_at: expect.any(String),
      });
      const authorize = new URL(started.location ?? '');
      expect(`${authorize.origin}${authorize.pathname}`).toBe(adapter.signIn.authorizeEndpoint());
      expect(Object.fromEntries(authorize.searchParams)).toMatchObject(
        adapter.signIn.authorizeParams(service().url),
      );
      const page = await consentAndCallback(started.location ?? '', started.browser);
      expect(page.status).toBe(200);
      expect(page.text).toContain('Connected');
      expect((await sourceOf(source.id)).connection_status).toBe('Connected');
      expect(adapter.signIn.lastCodeExchange()).toMatchObject(
        adapter.signIn.expectedCodeExchange(),
      );

      // The callback is taken once: the same redirect again fails and changes nothing.
      const replay = await fetch(page.callback);
      expect(replay.status).toBe(400);
      expect(await replay.text()).toContain('Connection failed');
    });

    it('refuses a forged or altered state with the Connection failed page', async () => {
      const source = await createSource();
      const started = await start(source.id);
      const state = new URL(started.location ?? '').searchParams.get('state') ?? '';
      const altered = `${state.slice(0, -4)}AAAA`;

      for (const bad of [altered, 'not-a-state', '']) {
        const response = await fetch(
          `${service().url}/api/oauth/callback?code=anything&state=${encodeURIComponent(bad)}`,
        );
        expect(response.status).toBe(400);
        expect(await response.text()).toContain('Connection failed');
      }
      expect((await sourceOf(source.id)).connection_status).toBe('Disconnected');
    });

    it('keeps the source Disconnected when consent is refused at the provider', async () => {
      const source = await createSource();
      adapter.signIn.refuseConsent(true);
      try {
        const page = await connect(source.id);
        expect(page.status).toBe(400);
        expect(page.text).toContain('access_denied');
      } finally {
        adapter.signIn.refuseConsent(false);
      }
      expect((await sourceOf(source.id)).connection_status).toBe('Disconnected');
    });

    it('expires a sign-in after 10 minutes (P146)', async () => {
      const source = await createSource();
      const started = await start(source.id);
      clock.advance(11 * 60_000);

      const page = await consentAndCallback(started.location ?? '', started.browser);

      expect(page.status).toBe(400);
      expect((await sourceOf(source.id)).connection_status).toBe('Disconnected');
    });

    it('refuses other data source types and read-only users', async () => {
      const website = await createDataSource(service(), service().adminKey);
      expect((await start(website.id)).status).toBe(400);
      const source = await createSource();
      const reader = await browser({ role: 'readonly' });
      expect((await start(source.id, reader)).status).toBe(403);
      const missing = await call('/api/v1/data-sources/ds_00000000000000000000000000/connection', {
        method: 'DELETE',
      });
      expect(missing.status).toBe(404);
    });

    it('keeps each organization to its own sources (D1) and binds the state to its source', async () => {
      const source = await createSource();
      const other = await createTenant(service());

      expect((await start(source.id, await browser({ orgId: other.orgId }))).status).toBe(404);
      const disconnect = await api(service().url, `/api/v1/data-sources/${source.id}/connection`, {
        method: 'DELETE',
        key: other.key,
      });
      expect(disconnect.status).toBe(404);

      // A state started by the other organization for its own source connects that source only.
      const theirs = await createSource(adapter.config(), other.key);
      await connect(theirs.id, await browser({ orgId: other.orgId }));
      expect((await sourceOf(source.id)).connection_status).toBe('Disconnected');
      const theirsNow = json(
        await api(service().url, `/api/v1/data-sources/${theirs.id}`, { key: other.key }),
      );
      expect(theirsNow.connection_status).toBe('Connected');
    });
  });

  describe('syncs', () => {
    let sourceId: string;

    beforeAll(async () => {
      sourceId = (await createSource()).id;
      expect((await connect(sourceId)).status).toBe(200);
    });

    it('imports the chosen content on the first sync and answers citing it at the provider', async () => {
      const mark = adapter.requestCount();

      const status = await sync(sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      if (adapter.firstSync.error) expect(status.error).toMatch(adapter.firstSync.error);
      else expect(status.error).toBeNull();
      expect((await indexedDocuments(sourceId)).size).toBe(adapter.firstSync.documents);
      adapter.firstSync.expectReads(mark);
      for (const { question, expectAnswer } of adapter.firstSync.questions) {
        expectAnswer(await ask(sourceId, question));
      }
      const processed = await events('datasource.processed');
      expect(processed.at(-1)?.data).toMatchObject({
        dataSource: { id: sourceId, type: adapter.eventType, status: 'COMPLETED' },
      });
    });

    it('reads only what changed at the provider; edited and renamed documents keep their ids', async () => {
      const before = await indexedDocuments(sourceId);
      await adapter.change.apply();
      const mark = adapter.requestCount();

      const status = await sync(sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      const after = await indexedDocuments(sourceId);
      expect(after.size).toBe(before.size);
      const changed = [...before.keys()].filter(
        (id) => after.has(id) && after.get(id) !== before.get(id),
      );
      expect(changed).toHaveLength(adapter.change.documents);
      adapter.change.expectReads(mark);
      for (const { question, expectAnswer } of adapter.change.questions) {
        expectAnswer(await ask(sourceId, question));
      }
    });

    it('removes what was deleted at the provider from the index on the next sync', async () => {
      const before = await indexedDocuments(sourceId);
      adapter.deletion.apply();

      const status = await sync(sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      expect((await indexedDocuments(sourceId)).size).toBe(
        before.size - adapter.deletion.documents,
      );
      const answer = await ask(sourceId, adapter.deletion.question);
      const titles = (answer.sources as { document_title: string }[]).map((s) => s.document_title);
      expect(titles).not.toContain(adapter.deletion.goneTitle);
    });

    it('renews the access token before it expires (P148) on the controllable clock', async () => {
      clock.advance(adapter.accessToken.lifetimeMs - 60_000);
      const mark = adapter.requestCount();

      const status = await sync(sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      const { refresh, firstRead } = adapter.accessToken.refreshAndFirstRead(mark);
      expect(refresh).toBeGreaterThanOrEqual(0);
      expect(refresh).toBeLessThan(firstRead);
    });

    it('waits out 429 answers as Retry-After says, and sends the refused requests again (P152)', async () => {
      const mark = adapter.requestCount();
      adapter.rateLimitNext(2);

      const status = await sync(sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      // Two refused, then at least the same request answered.
      expect(adapter.requestCount() - mark).toBeGreaterThanOrEqual(3);
    });
  });

  it('resumes a sync that crashed mid-way from the committed cursor, without duplicate chunks (P151)', async () => {
    const { crash } = adapter;
    const source = await createSource(await crash.seed());
    await connect(source.id);
    crash.breakMidway();

    const first = await sync(source.id);

    expect(first).toMatchObject({ status: 'processing', job_status: 'running' });
    const indexedBeforeCrash = (await indexedDocuments(source.id)).size;
    if (crash.indexedBeforeCrash === null) {
      expect(indexedBeforeCrash).toBeGreaterThan(0);
      expect(indexedBeforeCrash).toBeLessThan(crash.documents);
    } else {
      expect(indexedBeforeCrash).toBe(crash.indexedBeforeCrash);
    }

    crash.heal();
    const mark = adapter.requestCount();
    clock.advance(SYNC_VISIBILITY_TIMEOUT_SECONDS * 1000 + 1_000);
    await service().runtime.workers.stepSync();
    const status = await syncStatus(service(), service().adminKey, source.id);

    expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
    crash.expectResumed(mark, indexedBeforeCrash);
    expect((await indexedDocuments(source.id)).size).toBe(crash.documents);
    expect(await chunkCount(source.id)).toBe(crash.documents);
  });

  it('moves to Connection failed when access is revoked at the provider, with datasource.failed (P147)', async () => {
    const source = await createSource();
    await connect(source.id);
    expect((await sync(source.id)).status).toBe('active');
    adapter.revokeAccess();

    const status = await sync(source.id);

    expect(status).toMatchObject({ status: 'failed', job_status: 'failed' });
    expect(status.error).toMatch(adapter.revokedError);
    expect((await sourceOf(source.id)).connection_status).toBe('Connection failed');
    const failed = (await events('datasource.failed')).filter(
      (event) => (event.data as any).dataSource.id === source.id,
    );
    expect(failed.at(-1)?.data).toMatchObject({
      connection_status: 'Connection failed',
      error: expect.stringMatching(adapter.revokedError),
    });
    // Until reconnected: the next sync says so without calling the provider.
    const mark = adapter.requestCount();
    expect((await sync(source.id)).error).toMatch(/reconnect/);
    expect(adapter.requestCount()).toBe(mark);

    expect((await connect(source.id)).status).toBe(200);
    expect(await sync(source.id)).toMatchObject({ status: 'active' });
  });

  const { revocation } = adapter;

  it('disconnects: deletes the tokens and revokes them at the provider, or says where to', async () => {
    const source = await createSource();
    await connect(source.id);
    const live = revocation.atProvider ? revocation.liveGrants() : 0;
    const mark = adapter.requestCount();

    const response = await call(`/api/v1/data-sources/${source.id}/connection`, {
      method: 'DELETE',
    });

    expect(response.status).toBe(200);
    expect(json(response)).toMatchObject({
      revoked_at_provider: revocation.atProvider,
      revocation_error: revocation.atProvider
        ? null
        : expect.stringContaining(revocation.whereToRemove),
      data_source: { id: source.id, connection_status: 'Disconnected' },
    });
    if (revocation.atProvider) {
      revocation.expectRevoked(mark, 1);
      expect(revocation.liveGrants()).toBe(live - 1);
    }
    expect(
      await service().runtime.dependencies.connections.sealedTokens(service().orgId, source.id),
    ).toBeNull();
    expect((await sync(source.id)).error).toMatch(/not connected/);
  });

  if (revocation.atProvider) {
    it('revokes the grant of a deleted source at the provider, from the sync worker (P158)', async () => {
      const source = await createSource();
      await connect(source.id);
      const live = revocation.liveGrants();
      const mark = adapter.requestCount();

      const deleted = await call(`/api/v1/data-sources/${source.id}`, { method: 'DELETE' });
      expect(deleted.status).toBe(204);
      await service().runtime.workers.stepSync();

      revocation.expectRevoked(mark, 1);
      expect(revocation.liveGrants()).toBe(live - 1);
    });
  }

  it('never shows or logs a token, and stores them sealed (D33)', async () => {
    const source = await createSource();
    await connect(source.id);
    const listed = await call('/api/v1/data-sources?limit=100');
    const sealed = await service().runtime.dependencies.connections.sealedTokens(
      service().orgId,
      source.id,
    );

    const tokens = adapter.issuedTokens();
    expect(tokens.length).toBeGreaterThan(0);
    const everything = [...seen, listed.text, sealed ?? ''].join('\n');
    for (const token of tokens) expect(everything).not.toContain(token);
    expect(sealed).toEqual(expect.any(String));
  });
});

describe('connectors without their app configured', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.end());

  const { start } = connectorSteps(() => service, []);

  it.each(CONNECTORS)(
    '$name answers 409 at connect time, naming what the operator must set',
    async (adapter) => {
      const source = await createDataSource(service, service.adminKey, {
        type: adapter.type,
        name: adapter.name,
        config: adapter.offlineConfig,
      });

      const response = await start(source.id);

      expect(response.status).toBe(409);
      expect(JSON.parse(response.text).error.message).toMatch(adapter.notConfigured);
    },
  );
});
