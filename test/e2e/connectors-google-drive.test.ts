import { connectorSuite } from '../support/connectors/connector-suite';
import { DRIVE_SCOPE, googleDriveConnector } from '../support/connectors/google-drive-connector';
import { json } from '../support/http-client';

/**
 * What Google Drive does beyond the shared connector scenarios
 * (`connectors-scenarios.test.ts`): the Drive permission checked at sign-in,
 * the config checked at the edge, shared drives, a sync with nothing to
 * read, and Google's other rate-limit answer (403 userRateLimitExceeded).
 */
describe('Google Drive connector (issue 12)', () => {
  const drive = googleDriveConnector();
  const { call, connect, sourceOf, indexedDocuments, createSource, ask, sync } =
    connectorSuite(drive);

  it('fails the sign-in when the Drive permission was unticked on the consent screen', async () => {
    const source = await createSource();
    drive.emulator().grantScope = 'openid';
    try {
      const page = await connect(source.id);
      expect(page.status).toBe(400);
      expect(page.text).toContain('drive.readonly');
    } finally {
      drive.emulator().grantScope = DRIVE_SCOPE;
    }
    expect((await sourceOf(source.id)).connection_status).toBe('Disconnected');
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

    const source = await createSource({ folder_ids: ['a'], shared_drive_ids: ['b'] });
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

  it('reads shared drives named in shared_drive_ids (P177)', async () => {
    const source = await createSource({ shared_drive_ids: ['drive-ops'] });
    await connect(source.id);

    const status = await sync(source.id);

    expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
    expect((await indexedDocuments(source.id)).size).toBe(1);
    const answer = await ask(source.id, 'When does the pager escalate?');
    expect(answer.sources[0]).toMatchObject({ document_title: 'Shared drive handbook' });
  });

  describe('syncs', () => {
    let sourceId: string;

    beforeAll(async () => {
      sourceId = (await createSource()).id;
      await connect(sourceId);
      await sync(sourceId);
    });

    it('reads nothing when nothing changed, and keeps what is indexed', async () => {
      const before = drive.requestCount();
      const indexed = (await indexedDocuments(sourceId)).size;

      const status = await sync(sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      expect((await indexedDocuments(sourceId)).size).toBe(indexed);
      const calls = drive.driveCallsSince(before);
      expect(calls.some((url) => url.pathname.endsWith('/export'))).toBe(false);
      expect(calls.some((url) => url.searchParams.get('alt') === 'media')).toBe(false);
    });

    it('waits out a 403 userRateLimitExceeded answer and sends the request again (P178)', async () => {
      drive.emulator().rateLimitNext(1, 403, null);
      const before = drive.requestCount();

      expect(await sync(sourceId)).toMatchObject({ status: 'active', job_status: 'succeeded' });

      const calls = drive.driveCallsSince(before);
      // The refused request was sent again after the back-off.
      expect(calls[0]?.pathname).toBe(calls[1]?.pathname);
    });
  });
});
