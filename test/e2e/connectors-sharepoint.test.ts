import fc from 'fast-check';
import { SYNC_VISIBILITY_TIMEOUT_SECONDS } from '../../lib/local/local-dependencies';
import { CapturedOutput } from '../support/captured-output';
import { connectorSteps } from '../support/connector-sign-in';
import { pdfOf } from '../support/documents';
import { expectNestedError } from '../support/error-shapes';
import { createAgent, createDataSource } from '../support/fixtures';
import { minimalDocx } from '../support/hostile-files';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { MicrosoftGraphEmulator } from '../support/microsoft-graph-emulator';
import { syncNow, syncStatus } from '../support/sync';
import { createTenant } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

const HOUR_MS = 3_600_000;
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/**
 * SharePoint / OneDrive for Business end to end (issue 12; D22, D26, D33,
 * D35; P145–P158, P183–P185): the Microsoft identity platform sign-in and
 * Microsoft Graph against a loopback stand-in, full and delta syncs of a
 * document library (DOCX, PDF, text, nested folders), answers citing the
 * files' webUrl, edits, renames and deletions followed through delta links,
 * 429/503 waited out, an expired delta token resynced, a crash resumed from
 * the committed link, invalid_grant to `Connection failed`, disconnect.
 */
describe('SharePoint connector (issue 12)', () => {
  const clock = new TestClock();
  let graph: MicrosoftGraphEmulator;
  let service: TestService;
  let library: string;
  let archive: string;
  const output = new CapturedOutput();
  const seen = output.seen;

  beforeAll(async () => {
    graph = await new MicrosoftGraphEmulator(clock).start();
    output.start();
    service = await startTestService({
      clock,
      env: {
        // D35: the stand-in listens on loopback (local runs and tests only).
        SVC_ALLOW_PRIVATE_URLS: 'true',
        SVC_SHAREPOINT_CLIENT_ID: graph.clientId,
        SVC_SHAREPOINT_CLIENT_SECRET: graph.clientSecret,
        SVC_MICROSOFT_AUTH_URL: graph.authUrl,
        SVC_MICROSOFT_GRAPH_URL: graph.graphUrl,
        LOG_LEVEL: 'INFO',
      },
    });
    library = graph.addDrive('Shared Documents');
    archive = graph.addDrive('Archive');
    graph.putFile(
      library,
      'Policies/HR/Handbook.docx',
      minimalDocx([
        'Parental leave',
        'Parents may take twenty weeks of paid leave, starting any time in the first year.',
      ]),
      DOCX,
    );
    graph.putFile(
      library,
      'Manuals/Kettle warranty.pdf',
      await pdfOf(['Warranty', 'The kettle warranty lasts two years from delivery.']),
      'application/pdf',
    );
    graph.putFile(
      library,
      'wifi.txt',
      'The guest wifi password rotates every Monday at nine.',
      'text/plain',
    );
    graph.putFile(
      library,
      'Office plants.txt',
      'The ficus by the window is watered on Fridays.',
      'text/plain',
    );
    graph.putFile(library, 'Pictures/team.png', Buffer.from([137, 80, 78, 71]), 'image/png');
    graph.putFile(archive, 'old.txt', 'An archived fact about the basement boiler.', 'text/plain');
  });
  afterAll(async () => {
    output.stop();
    await service.end();
    await graph.close();
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const { call, browser, start, consentAndCallback, connect, sourceOf, indexedDocuments, events } =
    connectorSteps(() => service, seen);

  async function sharepointSource(
    config: Record<string, unknown> = { site_url: graph.siteUrl, drive_ids: [library] },
    key = service.adminKey,
  ) {
    return createDataSource(service, key, {
      type: 'sharepoint',
      name: 'Knowledge base',
      config,
      sync_frequency: 'manual',
    });
  }

  const chunkCount = (sourceId: string) =>
    service.runtime.dependencies.retrieval.count({
      orgId: service.orgId,
      dataSourceIds: [sourceId],
    });

  async function ask(sourceId: string, query: string) {
    const agent = await createAgent(service, service.adminKey, {
      name: `Helper ${Math.random()}`,
      data_source_ids: [sourceId],
    });
    return json(
      await call('/api/v1/query', { method: 'POST', body: { agent_id: agent.id, query } }),
    );
  }

  it('answers any sharepoint config with 201 (an https site_url, echoed) or a 400 in the nested shape (P183)', async () => {
    const text = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc.constantFrom('https://acme.sharepoint.com/sites/kb', 'http://acme.sharepoint.com', ''),
    );
    const config = fc.record(
      {
        site_url: fc.oneof(text, fc.integer(), fc.constant(null)),
        drive_ids: fc.oneof(fc.array(text, { maxLength: 4 }), text, fc.constant(null)),
        extra: fc.string(),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(config, async (value) => {
        clock.advance(REFILL_ALL_BUCKETS_MS);
        const response = await call('/api/v1/data-sources', {
          method: 'POST',
          body: { type: 'sharepoint', name: 'Fuzzed', config: value },
        });
        if (response.status === 201) {
          expect(json(response).config).toEqual(value);
          expect(String(value.site_url)).toMatch(/^https:\/\//);
        } else {
          expectNestedError(response, 400, 'invalid_request');
        }
      }),
      { numRuns: 40 },
    );
  });

  describe('sign-in (D26, P146, P183)', () => {
    it('connects through the identity platform with PKCE, the Graph scopes and offline_access', async () => {
      const source = await sharepointSource();
      expect(source.connection_status).toBe('Disconnected');

      const started = await start(source.id);

      expect(started.status).toBe(302);
      const authorize = new URL(started.location ?? '');
      expect(`${authorize.origin}${authorize.pathname}`).toBe(
        `${graph.authUrl}/oauth2/v2.0/authorize`,
      );
      expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
        client_id: graph.clientId,
        response_type: 'code',
        response_mode: 'query',
        code_challenge_method: 'S256',
        redirect_uri: `${service.url}/api/oauth/callback`,
        scope: 'offline_access Files.Read.All Sites.Read.All',
      });
      const page = await consentAndCallback(started.location ?? '', started.browser);
      expect(page.status).toBe(200);
      expect(page.text).toContain('Connected');
      expect((await sourceOf(source.id)).connection_status).toBe('Connected');
      const exchange = graph
        .requests()
        .filter((request) => request.url.endsWith('/oauth2/v2.0/token'))
        .at(-1);
      expect(Object.fromEntries(new URLSearchParams(exchange?.body ?? ''))).toMatchObject({
        grant_type: 'authorization_code',
        client_secret: graph.clientSecret,
        code_verifier: expect.stringMatching(/^[\w-]{43}$/),
        scope: expect.stringContaining('offline_access'),
      });
    });

    it('fails the sign-in with the reason when the account cannot open the site', async () => {
      const source = await sharepointSource({ site_url: 'https://acme.sharepoint.com/sites/hr' });

      const page = await connect(source.id);

      expect(page.status).toBe(400);
      expect(page.text).toContain('cannot open the site https://acme.sharepoint.com/sites/hr');
      expect((await sourceOf(source.id)).connection_status).toBe('Disconnected');
    });

    it('keeps the source as it was when consent is refused', async () => {
      const source = await sharepointSource();
      graph.denyConsent = true;
      try {
        const page = await connect(source.id);
        expect(page.status).toBe(400);
        expect(page.text).toContain('access_denied');
      } finally {
        graph.denyConsent = false;
      }
      expect((await sourceOf(source.id)).connection_status).toBe('Disconnected');
    });

    it('refuses read-only users and other organizations (D1)', async () => {
      const source = await sharepointSource();
      const reader = await browser({ role: 'readonly' });
      expect((await start(source.id, reader)).status).toBe(403);
      const other = await createTenant(service);
      expect((await start(source.id, await browser({ orgId: other.orgId }))).status).toBe(404);
      const disconnect = await api(service.url, `/api/v1/data-sources/${source.id}/connection`, {
        method: 'DELETE',
        key: other.key,
      });
      expect(disconnect.status).toBe(404);
    });
  });

  describe('syncs (D22-D24, P151, P184, P185)', () => {
    let sourceId: string;

    beforeAll(async () => {
      sourceId = (await sharepointSource()).id;
      expect((await connect(sourceId)).status).toBe(200);
    });

    it('reads the chosen library (DOCX, PDF, text, nested folders) and cites files by their webUrl', async () => {
      const status = await syncNow(service, service.adminKey, sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded', error: null });
      // Four readable files; the picture and the other library are not read.
      expect((await indexedDocuments(sourceId)).size).toBe(4);
      const handbook = graph.itemIdAt(library, 'Policies/HR/Handbook.docx');
      const answer = await ask(sourceId, 'How many weeks of parental leave do parents get?');
      expect(answer.response).toContain('twenty weeks');
      expect(answer.sources[0]).toMatchObject({
        document_title: 'Handbook.docx',
        document_url: graph.webUrlOf(library, handbook),
      });
      expect(answer.sources[0].document_url).toBe(
        'https://acme.sharepoint.com/sites/kb/Shared%20Documents/Policies/HR/Handbook.docx',
      );
      const pdf = await ask(sourceId, 'How long does the kettle warranty last?');
      expect(pdf.response).toContain('two years');
      expect(pdf.sources[0].document_url).toContain('Kettle%20warranty.pdf');
      // Downloads went to the pre-authenticated address without the bearer token.
      const downloads = graph.requests().filter((r) => r.url.startsWith('/download/'));
      expect(downloads.length).toBe(4);
      expect(downloads.every((r) => r.authorization === null)).toBe(true);
      expect(graph.requests().some((r) => r.url.includes(archive))).toBe(false);
      const processed = await events('datasource.processed');
      expect(processed.at(-1)?.data).toMatchObject({
        dataSource: { id: sourceId, type: 'SHAREPOINT', status: 'COMPLETED' },
      });
    });

    it('follows the delta link: edited files re-read, renamed ones keep their id, deleted ones leave', async () => {
      const before = await indexedDocuments(sourceId);
      const wifi = graph.itemIdAt(library, 'wifi.txt');
      const handbook = graph.itemIdAt(library, 'Policies/HR/Handbook.docx');
      graph.putFile(
        library,
        'wifi.txt',
        'The guest wifi password now rotates every Thursday at ten.',
        'text/plain',
      );
      graph.rename(library, handbook, 'Employee handbook.docx');
      graph.remove(library, graph.itemIdAt(library, 'Office plants.txt'));
      const requestsBefore = graph.requests().length;

      const status = await syncNow(service, service.adminKey, sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      const after = await indexedDocuments(sourceId);
      expect(after.size).toBe(3);
      const changed = [...before.keys()].filter(
        (id) => after.has(id) && after.get(id) !== before.get(id),
      );
      expect(changed.length).toBe(2);
      const during = graph.requests().slice(requestsBefore);
      // The changes came from the stored delta link; only the two changed files were downloaded.
      expect(during.some((r) => r.url.includes('/root/delta?token='))).toBe(true);
      expect(during.filter((r) => r.url.startsWith('/download/')).length).toBe(2);
      expect(during.some((r) => r.url.includes(`/items/${wifi}/content`))).toBe(true);

      const renamed = await ask(sourceId, 'How many weeks of parental leave do parents get?');
      expect(renamed.sources[0]).toMatchObject({
        document_title: 'Employee handbook.docx',
        document_url:
          'https://acme.sharepoint.com/sites/kb/Shared%20Documents/Policies/HR/Employee%20handbook.docx',
      });
      const edited = await ask(sourceId, 'When does the guest wifi password rotate?');
      expect(edited.response).toContain('Thursday');
      const gone = await ask(sourceId, 'When is the ficus watered?');
      expect(
        (gone.sources as { document_title: string }[]).some(
          (s) => s.document_title === 'Office plants.txt',
        ),
      ).toBe(false);
    });

    it('removes every file of a deleted folder', async () => {
      graph.putFile(
        library,
        'Temp/a.txt',
        'Temporary note about the parking garage.',
        'text/plain',
      );
      graph.putFile(
        library,
        'Temp/b.md',
        '# Lunch\n\nLunch is served at noon on the terrace.',
        'text/markdown',
      );
      await syncNow(service, service.adminKey, sourceId);
      expect((await indexedDocuments(sourceId)).size).toBe(5);

      graph.remove(library, graph.itemIdAt(library, 'Temp'));
      const status = await syncNow(service, service.adminKey, sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      expect((await indexedDocuments(sourceId)).size).toBe(3);
    });

    it('waits out 429 and 503 answers as Retry-After says (P152)', async () => {
      graph.putFile(
        library,
        'wifi.txt',
        'The guest wifi password rotates every Friday.',
        'text/plain',
      );
      graph.throttleNext(2, '1', 429);
      const requestsBefore = graph.requests().length;

      const status = await syncNow(service, service.adminKey, sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      graph.throttleNext(1, '1', 503);
      expect(await syncNow(service, service.adminKey, sourceId)).toMatchObject({
        status: 'active',
      });
      // The throttled requests were sent again, and the edit arrived.
      expect(graph.requests().length - requestsBefore).toBeGreaterThan(3);
      expect((await ask(sourceId, 'When does the guest wifi password rotate?')).response).toContain(
        'Friday',
      );
    });

    it('starts again from a full enumeration when Graph answers 410 for an expired token (P185)', async () => {
      graph.expireDeltaTokens();
      graph.putFile(
        library,
        'new.txt',
        'The new coffee machine is on the third floor.',
        'text/plain',
      );

      const status = await syncNow(service, service.adminKey, sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      expect((await indexedDocuments(sourceId)).size).toBe(4);
    });

    it('renews the access token before it expires (P148)', async () => {
      clock.advance(HOUR_MS - 60_000);
      const requestsBefore = graph.requests().length;

      const status = await syncNow(service, service.adminKey, sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      const during = graph.requests().slice(requestsBefore);
      const refresh = during.findIndex(
        (r) => r.url.endsWith('/oauth2/v2.0/token') && r.body.includes('grant_type=refresh_token'),
      );
      const firstGraphCall = during.findIndex((r) => r.url.startsWith('/v1.0/'));
      expect(refresh).toBeGreaterThanOrEqual(0);
      expect(refresh).toBeLessThan(firstGraphCall);
    });
  });

  it('reads every library of the site when drive_ids is omitted (P183)', async () => {
    const source = await sharepointSource({ site_url: graph.siteUrl });
    await connect(source.id);

    const status = await syncNow(service, service.adminKey, source.id);

    expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
    const answer = await ask(source.id, 'What is the archived fact about the boiler?');
    expect(answer.sources[0].document_url).toBe(
      'https://acme.sharepoint.com/sites/kb/Archive/old.txt',
    );
  });

  it('skips files over 50 MiB without downloading them, and files of other types entirely (P184)', async () => {
    const drive = graph.addDrive('Media');
    const huge = graph.putFile(drive, 'huge.pdf', '%PDF-1.4', 'application/pdf', 60 * 1024 * 1024);
    const clip = graph.putFile(drive, 'clip.mp4', Buffer.alloc(16), 'video/mp4');
    graph.putFile(
      drive,
      'notes.md',
      '# Studio\n\nThe studio is booked on Wednesdays.',
      'text/markdown',
    );
    const source = await sharepointSource({ site_url: graph.siteUrl, drive_ids: [drive] });
    await connect(source.id);

    const status = await syncNow(service, service.adminKey, source.id);

    expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
    expect(status.error).toMatch(/1 document\(s\) skipped, e\.g\. .*huge\.pdf has 62914560 bytes/);
    expect((await indexedDocuments(source.id)).size).toBe(1);
    const contents = graph.requests().filter((r) => r.url.includes('/content'));
    expect(contents.some((r) => r.url.includes(huge))).toBe(false);
    expect(contents.some((r) => r.url.includes(clip))).toBe(false);
  });

  it('resumes a sync that crashed mid-way from the committed link, without duplicate chunks (P151)', async () => {
    const drive = graph.addDrive('Operations');
    for (let n = 0; n < 7; n += 1) {
      graph.putFile(
        drive,
        `Hall ${n}/generator.txt`,
        `The generator in hall ${n} is tested on day ${n + 1} of each month.`,
        'text/plain',
      );
    }
    const source = await sharepointSource({ site_url: graph.siteUrl, drive_ids: [drive] });
    await connect(source.id);
    // Later pages of the (full) change enumeration fail: the attempt throws after committing page one.
    // Pages of ten: the root, the seven folders and two files come first.
    graph.pageSize = 10;
    graph.failOn((url) => {
      const token = url.pathname.endsWith('/root/delta') ? url.searchParams.get('token') : null;
      if (!token) return false;
      const decoded = JSON.parse(Buffer.from(token, 'base64url').toString());
      return decoded.select === null && decoded.offset > 0;
    });
    const first = await syncNow(service, service.adminKey, source.id).finally(() => {
      graph.pageSize = 3;
    });
    expect(first).toMatchObject({ status: 'processing', job_status: 'running' });
    const partial = (await indexedDocuments(source.id)).size;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(7);

    graph.failOn(null);
    const downloadsBefore = graph.requests().filter((r) => r.url.startsWith('/download/')).length;
    clock.advance(SYNC_VISIBILITY_TIMEOUT_SECONDS * 1000 + 1_000);
    await service.runtime.workers.stepSync();
    const status = await syncStatus(service, service.adminKey, source.id);

    expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
    expect((await indexedDocuments(source.id)).size).toBe(7);
    expect(await chunkCount(source.id)).toBe(7);
    // Resumed from the committed nextLink: what was indexed before the crash was not downloaded again.
    const downloads = graph.requests().filter((r) => r.url.startsWith('/download/')).length;
    expect(downloads - downloadsBefore).toBe(7 - partial);
  });

  it('moves to Connection failed on invalid_grant, with datasource.failed (P147)', async () => {
    const source = await sharepointSource();
    await connect(source.id);
    expect((await syncNow(service, service.adminKey, source.id)).status).toBe('active');
    graph.revokeEverything();

    const status = await syncNow(service, service.adminKey, source.id);

    expect(status).toMatchObject({ status: 'failed', job_status: 'failed' });
    expect(status.error).toMatch(/invalid_grant/);
    expect((await sourceOf(source.id)).connection_status).toBe('Connection failed');
    const failed = (await events('datasource.failed')).filter(
      (event) => (event.data as any).dataSource.id === source.id,
    );
    expect(failed.at(-1)?.data).toMatchObject({
      connection_status: 'Connection failed',
      error: expect.stringMatching(/invalid_grant/),
    });
    // Reconnecting restores it.
    expect((await connect(source.id)).status).toBe(200);
    expect(await syncNow(service, service.adminKey, source.id)).toMatchObject({ status: 'active' });
  });

  it('disconnects: deletes the tokens and says where access is removed at Microsoft (P183)', async () => {
    const source = await sharepointSource();
    await connect(source.id);

    const response = await call(`/api/v1/data-sources/${source.id}/connection`, {
      method: 'DELETE',
    });

    expect(response.status).toBe(200);
    expect(json(response)).toMatchObject({
      revoked_at_provider: false,
      revocation_error: expect.stringContaining('https://myapps.microsoft.com'),
      data_source: { id: source.id, connection_status: 'Disconnected' },
    });
    expect(
      await service.runtime.dependencies.connections.sealedTokens(service.orgId, source.id),
    ).toBeNull();
    const status = await syncNow(service, service.adminKey, source.id);
    expect(status.error).toMatch(/not connected/);
  });

  it('never shows or logs a token, and stores them sealed (D33)', async () => {
    const listed = await call('/api/v1/data-sources?limit=100');
    const tokens = graph.issuedTokens();
    expect(tokens.length).toBeGreaterThan(0);
    const everything = [...seen, listed.text].join('\n');
    for (const token of tokens) expect(everything).not.toContain(token);
  });
});

describe('SharePoint connector without its app configured (P150)', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.end());

  const { start } = connectorSteps(() => service, []);

  it('answers 409 at connect time, naming what the operator must set', async () => {
    const source = await createDataSource(service, service.adminKey, {
      type: 'sharepoint',
      name: 'Docs',
      config: { site_url: 'https://acme.sharepoint.com/sites/kb' },
    });

    const response = await start(source.id);

    expect(response.status).toBe(409);
    expect(JSON.parse(response.text).error.message).toMatch(
      /SharePoint \(Microsoft\) app is not configured/,
    );
  });
});
