import { SYNC_VISIBILITY_TIMEOUT_SECONDS } from '../../lib/local/local-dependencies';
import { CapturedOutput } from '../support/captured-output';
import { connectorSteps } from '../support/connector-sign-in';
import { pdfOf } from '../support/documents';
import { createAgent, createDataSource } from '../support/fixtures';
import { DRIVE_TYPES, GoogleDriveEmulator } from '../support/google-drive-emulator';
import { minimalDocx } from '../support/hostile-files';
import { json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { syncNow, syncStatus } from '../support/sync';
import { createTenant } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

const HOUR_MS = 3_600_000;

/**
 * Google Drive end to end (issue 12; D22, D26, D33, D35; P145–P158,
 * P177–P182): Google's sign-in against a loopback Google (PKCE,
 * access_type=offline, prompt=consent), a full sync of a folder tree (a Doc,
 * a Sheet, a PDF and a DOCX; other files left alone), answers citing the
 * files' webViewLinks, incremental syncs through the Changes API (edited,
 * renamed, trashed, moved out), shared drives, rate limits (429 and 403
 * userRateLimitExceeded), a crashed full pass resumed from its checkpoint,
 * invalid_grant to Connection failed, and disconnect revoking at Google.
 */
describe('Google Drive connector (issue 12)', () => {
  const clock = new TestClock();
  let emulator: GoogleDriveEmulator;
  let service: TestService;
  const output = new CapturedOutput();
  const seen = output.seen;

  beforeAll(async () => {
    emulator = await new GoogleDriveEmulator(clock).start();
    output.start();
    service = await startTestService({
      clock,
      env: {
        // D35: the stand-in listens on loopback (local runs and tests only).
        SVC_ALLOW_PRIVATE_URLS: 'true',
        SVC_GOOGLE_DRIVE_CLIENT_ID: emulator.clientId,
        SVC_GOOGLE_DRIVE_CLIENT_SECRET: emulator.clientSecret,
        SVC_GOOGLE_AUTH_URL: emulator.origin,
        SVC_GOOGLE_TOKEN_URL: emulator.origin,
        SVC_GOOGLE_API_URL: emulator.origin,
        LOG_LEVEL: 'INFO',
      },
    });
    // The chosen folder, a subfolder, and what is outside it.
    emulator.put({
      id: 'fold-eng',
      name: 'Engineering',
      mimeType: DRIVE_TYPES.folder,
      parents: ['root'],
      content: {},
    });
    emulator.put({
      id: 'fold-sub',
      name: 'Manuals',
      mimeType: DRIVE_TYPES.folder,
      parents: ['fold-eng'],
      content: {},
    });
    emulator.put({
      id: 'fold-hr',
      name: 'HR',
      mimeType: DRIVE_TYPES.folder,
      parents: ['root'],
      content: {},
    });
    emulator.put({
      id: 'doc-runbook',
      name: 'Deploy runbook',
      mimeType: DRIVE_TYPES.doc,
      parents: ['fold-eng'],
      content: {
        'text/markdown':
          '# Rollback\n\nTo roll back a deploy, run the pipeline named **undo-release** and wait for the canary.\n',
        'text/plain': 'Rollback\nTo roll back a deploy, run the pipeline named undo-release.',
      },
    });
    emulator.put({
      id: 'sheet-oncall',
      name: 'On-call rota',
      mimeType: DRIVE_TYPES.sheet,
      parents: ['fold-eng'],
      content: { 'text/csv': 'week,engineer\n1,Ada Lovelace\n2,Grace Hopper\n' },
    });
    emulator.put({
      id: 'file-pdf',
      name: 'Generator manual.pdf',
      mimeType: 'application/pdf',
      parents: ['fold-sub'],
      content: await pdfOf(['The backup generator in hall 7 is tested every first Monday.']),
    });
    emulator.put({
      id: 'file-docx',
      name: 'Badge policy.docx',
      mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      parents: ['fold-sub'],
      content: minimalDocx(['Visitor badges are returned to reception before 6 pm.']),
    });
    emulator.put({
      id: 'file-png',
      name: 'diagram.png',
      mimeType: 'image/png',
      parents: ['fold-eng'],
      content: Buffer.from('89504e470d0a1a0a', 'hex'),
    });
    emulator.put({
      id: 'form-1',
      name: 'Feedback form',
      mimeType: DRIVE_TYPES.form,
      parents: ['fold-eng'],
      content: {},
    });
    emulator.put({
      id: 'doc-salaries',
      name: 'Salaries',
      mimeType: DRIVE_TYPES.doc,
      parents: ['fold-hr'],
      content: { 'text/markdown': 'Not in a chosen folder: never read.' },
    });
    emulator.put({
      id: 'doc-shared',
      name: 'Shared drive handbook',
      mimeType: DRIVE_TYPES.doc,
      parents: ['drive-ops'],
      driveId: 'drive-ops',
      content: {
        'text/markdown':
          '# Pager\n\nThe pager escalates after 15 minutes without an acknowledgement.',
      },
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

  async function driveSource(config: Record<string, unknown> = { folder_ids: ['fold-eng'] }) {
    return createDataSource(service, service.adminKey, {
      type: 'google_drive',
      name: 'Drive',
      config,
      sync_frequency: 'manual',
    });
  }

  const driveRequestsSince = (index: number) =>
    emulator
      .requests()
      .slice(index)
      .filter((request) => request.url.startsWith('/drive/v3/'))
      .map((request) => new URL(request.url, emulator.origin));
  async function ask(sourceId: string, query: string) {
    const agent = await createAgent(service, service.adminKey, {
      name: 'Drive helper',
      data_source_ids: [sourceId],
    });
    return json(
      await call('/api/v1/query', { method: 'POST', body: { agent_id: agent.id, query } }),
    );
  }

  it('signs in with PKCE, offline access and consent, asking for drive.readonly only (P177)', async () => {
    const source = await driveSource();
    const started = await start(source.id);

    expect(started.status).toBe(302);
    const authorize = new URL(started.location ?? '');
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${emulator.origin}/o/oauth2/v2/auth`);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      client_id: emulator.clientId,
      response_type: 'code',
      scope: 'https://www.googleapis.com/auth/drive.readonly',
      access_type: 'offline',
      prompt: 'consent',
      code_challenge_method: 'S256',
      redirect_uri: `${service.url}/api/oauth/callback`,
    });
    const page = await consentAndCallback(started.location ?? '', started.browser);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Connected');
    expect((await sourceOf(source.id)).connection_status).toBe('Connected');
    const exchange = emulator
      .requests()
      .filter((request) => request.url === '/token')
      .at(-1);
    expect(Object.fromEntries(new URLSearchParams(exchange?.body ?? ''))).toMatchObject({
      grant_type: 'authorization_code',
      code_verifier: expect.stringMatching(/^[\w-]{43}$/),
    });
  });

  it('fails the sign-in when the Drive permission was unticked on the consent screen', async () => {
    const source = await driveSource();
    emulator.grantScope = 'openid';
    try {
      const page = await connect(source.id);
      expect(page.status).toBe(400);
      expect(page.text).toContain('drive.readonly');
    } finally {
      emulator.grantScope = 'https://www.googleapis.com/auth/drive.readonly';
    }
    expect((await sourceOf(source.id)).connection_status).toBe('Disconnected');
  });

  describe('syncs (D22-D24, P151, P179-P181)', () => {
    let sourceId: string;

    beforeAll(async () => {
      sourceId = (await driveSource()).id;
      await connect(sourceId);
    });

    it('reads the folder tree (Doc, Sheet, PDF, DOCX) and answers citing the webViewLink', async () => {
      const before = emulator.requests().length;

      const status = await syncNow(service, service.adminKey, sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded', error: null });
      expect((await indexedDocuments(sourceId)).size).toBe(4);
      const calls = driveRequestsSince(before);
      // Google types exported to the P179 formats, other files downloaded; the image and the form left alone.
      const exports = calls.filter((url) => url.pathname.endsWith('/export'));
      expect(exports.map((url) => [url.pathname, url.searchParams.get('mimeType')]).sort()).toEqual(
        [
          ['/drive/v3/files/doc-runbook/export', 'text/markdown'],
          ['/drive/v3/files/sheet-oncall/export', 'text/csv'],
        ],
      );
      const downloads = calls.filter((url) => url.searchParams.get('alt') === 'media');
      expect(downloads.map((url) => url.pathname).sort()).toEqual([
        '/drive/v3/files/file-docx',
        '/drive/v3/files/file-pdf',
      ]);
      expect(calls.some((url) => url.pathname.includes('salaries'))).toBe(false);
      expect(calls.some((url) => url.pathname === '/drive/v3/changes/startPageToken')).toBe(true);

      const answer = await ask(sourceId, 'How do I roll back a deploy?');
      expect(answer.response).toContain('undo-release');
      expect(answer.sources[0]).toMatchObject({
        document_title: 'Deploy runbook',
        document_url: 'https://docs.google.com/document/d/doc-runbook/edit?usp=drivesdk',
      });
      const pdf = await ask(sourceId, 'When is the backup generator in hall 7 tested?');
      expect(pdf.sources[0]).toMatchObject({
        document_title: 'Generator manual.pdf',
        document_url: 'https://drive.google.com/file/d/file-pdf/view?usp=drivesdk',
      });
    });

    it('reads only what the Changes API says changed: edited, renamed, trashed, moved out', async () => {
      const before = await indexedDocuments(sourceId);
      emulator.update('doc-runbook', {
        content: {
          'text/markdown':
            '# Rollback\n\nTo roll back a deploy, run the pipeline named **undo-release-v2** and wait for the canary.\n',
        },
      });
      emulator.update('sheet-oncall', { name: 'On-call rota 2027' });
      emulator.update('file-pdf', { trashed: true });
      emulator.update('file-docx', { parents: ['fold-hr'] });
      const requestsBefore = emulator.requests().length;

      const status = await syncNow(service, service.adminKey, sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      const after = await indexedDocuments(sourceId);
      expect(after.size).toBe(2);
      // Same ids (the Drive file id), new content: the edited doc and the renamed sheet.
      const kept = [...before.keys()].filter((id) => after.has(id));
      expect(kept.length).toBe(2);
      for (const id of kept) expect(after.get(id)).not.toBe(before.get(id));
      const calls = driveRequestsSince(requestsBefore);
      const changes = calls.filter((url) => url.pathname === '/drive/v3/changes');
      expect(changes[0]?.searchParams.get('pageToken')).toMatch(/^\d+$/);
      expect(calls.filter((url) => url.pathname.endsWith('/export')).length).toBe(2);
      expect(calls.some((url) => url.searchParams.get('alt') === 'media')).toBe(false);

      const answer = await ask(sourceId, 'Who is on call in week 2?');
      expect(answer.sources[0]).toMatchObject({
        document_title: 'On-call rota 2027',
        document_url: 'https://docs.google.com/spreadsheets/d/sheet-oncall/edit?usp=drivesdk',
      });
    });

    it('reads nothing when nothing changed, and keeps what is indexed', async () => {
      const before = emulator.requests().length;

      const status = await syncNow(service, service.adminKey, sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      expect((await indexedDocuments(sourceId)).size).toBe(2);
      const calls = driveRequestsSince(before);
      expect(calls.some((url) => url.pathname.endsWith('/export'))).toBe(false);
    });

    it('renews the access token before it expires (P148), keeping the refresh token', async () => {
      clock.advance(HOUR_MS - 60_000);
      const before = emulator.requests().length;

      const status = await syncNow(service, service.adminKey, sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      const during = emulator.requests().slice(before);
      const refresh = during.findIndex(
        (request) => request.url === '/token' && request.body.includes('grant_type=refresh_token'),
      );
      const firstApiCall = during.findIndex((request) => request.url.startsWith('/drive/v3/'));
      expect(refresh).toBeGreaterThanOrEqual(0);
      expect(refresh).toBeLessThan(firstApiCall);
    });

    it('waits out 429 and 403 userRateLimitExceeded answers (P152, P178)', async () => {
      emulator.rateLimitNext(2, 429, '1');
      expect(await syncNow(service, service.adminKey, sourceId)).toMatchObject({
        status: 'active',
        job_status: 'succeeded',
      });

      emulator.rateLimitNext(1, 403, null);
      const before = emulator.requests().length;
      expect(await syncNow(service, service.adminKey, sourceId)).toMatchObject({
        status: 'active',
        job_status: 'succeeded',
      });
      const calls = driveRequestsSince(before);
      // The refused request was sent again after the back-off.
      expect(calls[0]?.pathname).toBe(calls[1]?.pathname);
    });

    it('drops a file deleted for good (a removed change) from the index', async () => {
      emulator.remove('sheet-oncall');

      const status = await syncNow(service, service.adminKey, sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      expect((await indexedDocuments(sourceId)).size).toBe(1);
    });
  });

  it('reads shared drives named in shared_drive_ids (P177)', async () => {
    const source = await driveSource({ shared_drive_ids: ['drive-ops'] });
    await connect(source.id);

    const status = await syncNow(service, service.adminKey, source.id);

    expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
    expect((await indexedDocuments(source.id)).size).toBe(1);
    const answer = await ask(source.id, 'When does the pager escalate?');
    expect(answer.sources[0]).toMatchObject({ document_title: 'Shared drive handbook' });
  });

  it('validates the config at create and update (D26, P177)', async () => {
    const neither = await call('/api/v1/data-sources', {
      method: 'POST',
      body: { type: 'google_drive', name: 'g', config: {} },
    });
    expect(neither.status).toBe(400);
    expect(JSON.stringify(json(neither))).toContain('config.folder_ids');
    const empty = await call('/api/v1/data-sources', {
      method: 'POST',
      body: { type: 'google_drive', name: 'g', config: { shared_drive_ids: [] } },
    });
    expect(empty.status).toBe(400);
    const typo = await call('/api/v1/data-sources', {
      method: 'POST',
      body: { type: 'google_drive', name: 'g', config: { folder_ids: ['a'], drive_ids: ['b'] } },
    });
    expect(typo.status).toBe(400);
    expect(JSON.stringify(json(typo))).toContain('config.drive_ids');

    const source = await driveSource({ folder_ids: ['a'], shared_drive_ids: ['b'] });
    const update = await call(`/api/v1/data-sources/${source.id}`, {
      method: 'PUT',
      body: { config: { folder_ids: [''] } },
    });
    expect(update.status).toBe(400);
    expect((await sourceOf(source.id)).config).toEqual({
      folder_ids: ['a'],
      shared_drive_ids: ['b'],
    });
  });

  it('resumes a full pass that crashed mid-way from its checkpoint, without duplicate chunks (P180)', async () => {
    emulator.put({
      id: 'fold-many',
      name: 'Many',
      mimeType: DRIVE_TYPES.folder,
      parents: ['root'],
      content: {},
    });
    for (let n = 10; n < 22; n += 1) {
      emulator.put({
        id: `doc-many-${n}`,
        name: `Fact ${n}`,
        mimeType: DRIVE_TYPES.doc,
        parents: ['fold-many'],
        content: {
          'text/markdown': `Fact number ${n}: the boiler in block ${n} is serviced in spring.`,
        },
      });
    }
    const source = await driveSource({ folder_ids: ['fold-many'] });
    await connect(source.id);
    emulator.failOn((url) => url.pathname === '/drive/v3/files/doc-many-21/export');
    const first = await syncNow(service, service.adminKey, source.id);
    expect(first).toMatchObject({ status: 'processing', job_status: 'running' });
    expect((await indexedDocuments(source.id)).size).toBe(11);

    emulator.failOn(null);
    const before = emulator.requests().length;
    clock.advance(SYNC_VISIBILITY_TIMEOUT_SECONDS * 1000 + 1_000);
    await service.runtime.workers.stepSync();
    const status = await syncStatus(service, service.adminKey, source.id);

    expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
    const exported = driveRequestsSince(before)
      .filter((url) => url.pathname.endsWith('/export'))
      .map((url) => url.pathname);
    // Checkpointed after ten files: the eleventh (indexed, not checkpointed) and twelfth are read again.
    expect(exported).toEqual([
      '/drive/v3/files/doc-many-20/export',
      '/drive/v3/files/doc-many-21/export',
    ]);
    expect((await indexedDocuments(source.id)).size).toBe(12);
    expect(
      await service.runtime.dependencies.retrieval.count({
        orgId: service.orgId,
        dataSourceIds: [source.id],
      }),
    ).toBe(12);
  });

  it('moves to Connection failed on invalid_grant, with datasource.failed (P147)', async () => {
    const source = await driveSource();
    await connect(source.id);
    expect((await syncNow(service, service.adminKey, source.id)).status).toBe('active');
    emulator.revokeEverything();

    const status = await syncNow(service, service.adminKey, source.id);

    expect(status).toMatchObject({ status: 'failed', job_status: 'failed' });
    expect(status.error).toMatch(/invalid_grant/);
    expect((await sourceOf(source.id)).connection_status).toBe('Connection failed');
    const failed = (await events('datasource.failed')).filter(
      (event) => (event.data as any).dataSource.id === source.id,
    );
    expect(failed.at(-1)?.data).toMatchObject({ connection_status: 'Connection failed' });

    expect((await connect(source.id)).status).toBe(200);
    expect(await syncNow(service, service.adminKey, source.id)).toMatchObject({ status: 'active' });
  });

  it('disconnects: deletes the tokens and revokes them at Google', async () => {
    const source = await driveSource();
    await connect(source.id);
    const active = emulator.activeRefreshTokens().length;

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
      .filter((request) => request.url === '/revoke')
      .at(-1);
    expect(new URLSearchParams(revoke?.body ?? '').get('token')).toMatch(/^1\/\/0/);
    expect(emulator.activeRefreshTokens().length).toBe(active - 1);
    expect(
      await service.runtime.dependencies.connections.sealedTokens(service.orgId, source.id),
    ).toBeNull();
  });

  it('revokes the grant of a deleted source at Google, from the sync worker (P158)', async () => {
    const source = await driveSource();
    await connect(source.id);
    const active = emulator.activeRefreshTokens().length;

    const deleted = await call(`/api/v1/data-sources/${source.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    await service.runtime.workers.stepSync();

    expect(emulator.activeRefreshTokens().length).toBe(active - 1);
  });

  it('keeps each organization to its own sources (D1)', async () => {
    const source = await driveSource();
    const other = await createTenant(service);
    expect((await start(source.id, await browser({ orgId: other.orgId }))).status).toBe(404);
  });

  it('never shows or logs a token (D33)', async () => {
    const tokens = emulator.issuedTokens();
    expect(tokens.length).toBeGreaterThan(0);
    const everything = seen.join('\n');
    for (const token of tokens) expect(everything).not.toContain(token);
  });
});

describe('Google Drive connector without its app configured (P150)', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.end());

  const { start } = connectorSteps(() => service, []);

  it('answers 409 at connect time, naming what the operator must set', async () => {
    const source = await createDataSource(service, service.adminKey, {
      type: 'google_drive',
      name: 'Drive',
      config: { folder_ids: ['1AbC'] },
    });

    const response = await start(source.id);

    expect(response.status).toBe(409);
    expect(JSON.parse(response.text).error.message).toMatch(/Google Drive app is not configured/);
  });
});
