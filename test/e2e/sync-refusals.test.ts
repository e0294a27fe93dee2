import { createDataSource } from '../support/fixtures';
import { startTestService, type TestService } from '../support/local-service';
import { htmlPage, type LoopbackSite, startLoopbackSite } from '../support/loopback-site';
import { requestSync, syncNow, syncStatus } from '../support/sync';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Syncs that cannot produce anything end `failed` with an `error` that says
 * why (D22, D24): D35's address rule, without SVC_ALLOW_PRIVATE_URLS (as in
 * every real deployment), and the data source types whose ingestion is not
 * built yet.
 */
describe('Syncs that fail', () => {
  const clock = new TestClock();
  let service: TestService;
  let site: LoopbackSite;

  beforeAll(async () => {
    [service, site] = await Promise.all([
      startTestService({ clock }),
      startLoopbackSite(() => ({
        '/robots.txt': 'User-agent: *\nAllow: /\n',
        '/': htmlPage('Internal wiki', ['Only reachable on the private network.']),
      })),
    ]);
  });
  afterAll(async () => {
    await service.end();
    await site.close();
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const website = (url: string) =>
    createDataSource(service, service.adminKey, {
      type: 'website',
      name: 'Private',
      config: { url, max_pages: 10 },
      sync_frequency: 'manual',
    });

  function expectFailed(status: Record<string, any>, error: RegExp): void {
    expect(status).toEqual({
      status: 'failed',
      job_id: expect.stringMatching(/^job_/),
      job_status: 'failed',
      chunks_indexed: 0,
      progress_pct: 100,
      estimated_completion: null,
      documents_total: 0,
      documents_processed: 0,
      // P248: the refused address, when one was tried, is named with its reason.
      documents_skipped: expect.any(Number),
      skipped: expect.any(Array),
      started_at: expect.stringMatching(ISO_MS),
      finished_at: expect.stringMatching(ISO_MS),
      error: expect.stringMatching(error),
    });
    expect(status.skipped).toHaveLength(status.documents_skipped);
  }

  it.each([
    ['a loopback address', (origin: string) => `${origin}/`, /address 127\.0\.0\.1 is not public/],
    [
      'a name that resolves to loopback',
      (origin: string) => `${origin.replace('127.0.0.1', 'localhost')}/`,
      /host localhost resolves to (127\.0\.0\.1|::1), which is not public/,
    ],
    [
      'the cloud metadata address',
      () => 'http://169.254.169.254/latest/meta-data/',
      /address 169\.254\.169\.254 is not public/,
    ],
    ['a private range', () => 'http://10.0.0.1/', /address 10\.0\.0\.1 is not public/],
  ])('refuses to crawl %s and says so (D35)', async (_name, url, error) => {
    const source = await website(url(site.origin));

    const status = await syncNow(service, service.adminKey, source.id);

    expectFailed(status, error);
    expect(status.error).toMatch(/^Nothing usable was found/);
    expect(site.requested()).toEqual([]);
  });

  it('ends the sync of a file source without uploaded files failed: nothing usable (D22, D25)', async () => {
    const source = await createDataSource(service, service.adminKey, {
      type: 'file',
      name: 'No files yet',
      sync_frequency: 'manual',
    });

    const status = await syncNow(service, service.adminKey, source.id);

    expectFailed(status, /^Nothing usable was found$/);
  });

  it('ends the sync of a Slack source that was never connected failed, saying to sign in (P147)', async () => {
    const source = await createDataSource(service, service.adminKey, {
      type: 'slack',
      name: 'A slack source',
      config: { channel_ids: ['C0123456'] },
      sync_frequency: 'manual',
    });

    const status = await syncNow(service, service.adminKey, source.id);

    expectFailed(status, /not connected: sign in at GET \/api\/v1\/data-sources\/.+\/oauth\/start/);
  });

  it.each([
    ['google_drive', { folder_ids: ['1AbCdEfGh'] }],
    ['sharepoint', { site_url: 'https://acme.sharepoint.com', drive_ids: ['b!drive1'] }],
  ])('ends a %s sync that was never connected failed, saying to sign in', async (type, config) => {
    const source = await createDataSource(service, service.adminKey, {
      type,
      name: `A ${type} source`,
      config,
      sync_frequency: 'manual',
    });

    const status = await syncNow(service, service.adminKey, source.id);

    expectFailed(status, /not connected: sign in at GET \/api\/v1\/data-sources\/.+\/oauth\/start/);
  });

  it('lets a failed data source be synced again, with a new job', async () => {
    const source = await website(`${site.origin}/`);
    const first = await syncNow(service, service.adminKey, source.id);

    const accepted = await requestSync(service, service.adminKey, source.id);
    await service.runtime.workers.stepSync();

    expect(accepted).toMatchObject({
      created: true,
      job: { status: 'queued' },
      data_source: { status: 'failed' },
    });
    expect(accepted.job.id).not.toBe(first.job_id);
    const second = await syncStatus(service, service.adminKey, source.id);
    expectFailed(second, /not public/);
    expect(second.job_id).toBe(accepted.job.id);
  });
});
