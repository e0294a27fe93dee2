import { createDataSource } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import {
  helpCenterPages,
  htmlPage,
  type LoopbackSite,
  startLoopbackSite,
} from '../support/loopback-site';
import { syncStatus } from '../support/sync';
import { createTenant, type TestKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import { LOCAL_RECEIVERS_ENV } from '../support/webhooks';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * D23 end to end: `hourly`/`daily`/`weekly` data sources are synced by the
 * scheduler (here the local runtime's, driven by `workers.step()` and a test
 * clock) without a sync request; `manual` ones only on request. Crawls go to
 * loopback sites through the real sync worker.
 */
describe('Scheduled syncs (D23)', () => {
  const clock = new TestClock();
  let service: TestService;
  let site: LoopbackSite;
  let otherSite: LoopbackSite;
  let key: string;

  beforeAll(async () => {
    [service, site, otherSite] = await Promise.all([
      startTestService({ env: { ...LOCAL_RECEIVERS_ENV }, clock }),
      startLoopbackSite(() => helpCenterPages()),
      startLoopbackSite(() => ({
        '/': htmlPage('Orchard notes', ['Quince trees flower late and love sheltered corners.']),
      })),
    ]);
    key = service.adminKey;
  });
  afterAll(async () => {
    await service.end();
    await Promise.all([site.close(), otherSite.close()]);
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  /** One scheduler tick, then the sync jobs it queued, then their events (background workers are off in tests). */
  const tick = () => service.runtime.workers.step();
  const getSource = async (id: string, as = key) => {
    const response = await api(service.url, `/api/v1/data-sources/${id}`, { key: as });
    expect(response.status).toBe(200);
    return json(response);
  };
  const website = (name: string, frequency: string, url = site.url('/')) =>
    createDataSource(service, key, {
      type: 'website',
      name,
      config: { url, max_pages: 20 },
      sync_frequency: frequency,
    });

  describe('a daily source', () => {
    let sourceId: string;
    let firstJob: string;
    let firstNext: string;

    it('is due at once, and synced by the next tick without a sync request (P40)', async () => {
      // Prepare
      const source = await website('Help center, daily', 'daily');
      sourceId = source.id;
      expect(source).toMatchObject({
        sync_frequency: 'daily',
        next_sync_at: source.created_at,
        status: 'pending',
        current_job: null,
      });
      expect(site.hits('/')).toBe(0);
      const before = clock.now().getTime();

      // Act
      await tick();

      // Assess
      const status = await syncStatus(service, key, sourceId);
      expect(status).toMatchObject({
        status: 'active',
        job_id: expect.stringMatching(/^job_/),
        job_status: 'succeeded',
        progress_pct: 100,
      });
      expect(status.chunks_indexed).toBeGreaterThan(0);
      expect(site.hits('/')).toBeGreaterThanOrEqual(1);
      firstJob = status.job_id;
      // The next one a day after the tick.
      firstNext = (await getSource(sourceId)).next_sync_at;
      expect(Date.parse(firstNext)).toBeGreaterThanOrEqual(before + DAY);
      expect(Date.parse(firstNext)).toBeLessThanOrEqual(clock.now().getTime() + DAY);
    });

    it('is not synced again before its day is up', async () => {
      clock.advance(DAY / 2);

      await tick();

      expect(await syncStatus(service, key, sourceId)).toMatchObject({ job_id: firstJob });
      expect((await getSource(sourceId)).next_sync_at).toBe(firstNext);
    });

    it('gets a second job once a day has passed', async () => {
      // Prepare
      clock.advanceTo(new Date(Date.parse(firstNext) + 1));
      const crawlsBefore = site.hits('/');

      // Act
      await tick();

      // Assess
      const status = await syncStatus(service, key, sourceId);
      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      expect(status.job_id).not.toBe(firstJob);
      expect(site.hits('/')).toBeGreaterThan(crawlsBefore);
      const next = (await getSource(sourceId)).next_sync_at;
      expect(Date.parse(next)).toBeGreaterThanOrEqual(Date.parse(firstNext) + DAY);
      // One job for the tick: a second tick at the same time finds nothing due.
      const again = await service.runtime.workers.stepSchedule();
      expect(again).toMatchObject({ queued: 0, alreadyRunning: 0 });
      expect(await service.runtime.workers.stepSync()).toBe(0);
    });

    it('keeps the job a sync request queued instead of making another (D22)', async () => {
      // Prepare: a sync requested by hand, then the source falls due
      const requested = await api(service.url, `/api/v1/data-sources/${sourceId}/sync`, {
        method: 'POST',
        key,
      });
      expect(requested.status).toBe(202);
      const jobId = json(requested).job.id;
      clock.advanceTo(new Date(Date.parse((await getSource(sourceId)).next_sync_at) + 1));

      // Act
      const run = await service.runtime.workers.stepSchedule();
      await service.runtime.workers.step();

      // Assess
      expect(run).toMatchObject({ queued: 0, alreadyRunning: expect.any(Number) });
      expect(run.alreadyRunning).toBeGreaterThanOrEqual(1);
      expect(await syncStatus(service, key, sourceId)).toMatchObject({
        job_id: jobId,
        job_status: 'succeeded',
      });
    });
  });

  it('never syncs a manual source on its own', async () => {
    // Prepare
    const source = await website('Help center, manual', 'manual');
    expect(source.next_sync_at).toBeNull();

    // Act: ticks over more than a week
    await tick();
    clock.advance(8 * DAY);
    await tick();

    // Assess
    expect(await syncStatus(service, key, source.id)).toMatchObject({
      status: 'pending',
      job_id: null,
    });
    expect((await getSource(source.id)).next_sync_at).toBeNull();
  });

  it('stops syncing a source turned manual, and counts a new frequency from the change', async () => {
    // Prepare: an hourly source, synced once
    const source = await website('Help center, hourly', 'hourly');
    await tick();
    const synced = await syncStatus(service, key, source.id);
    expect(synced).toMatchObject({ status: 'active', job_status: 'succeeded' });

    // Act: weekly from now, then manual
    clock.freeze();
    try {
      const weekly = await api(service.url, `/api/v1/data-sources/${source.id}`, {
        method: 'PUT',
        key,
        body: { sync_frequency: 'weekly' },
      });
      expect(weekly.status).toBe(200);
      expect(json(weekly).next_sync_at).toBe(
        new Date(clock.now().getTime() + 7 * DAY).toISOString(),
      );
    } finally {
      clock.resume();
    }
    const manual = await api(service.url, `/api/v1/data-sources/${source.id}`, {
      method: 'PUT',
      key,
      body: { sync_frequency: 'manual' },
    });
    expect(json(manual)).toMatchObject({ sync_frequency: 'manual', next_sync_at: null });
    clock.advance(8 * DAY);
    await tick();

    // Assess
    expect(await syncStatus(service, key, source.id)).toMatchObject({ job_id: synced.job_id });
    expect((await getSource(source.id)).next_sync_at).toBeNull();
  });

  describe('tenant isolation', () => {
    let other: TestKey;
    let mine: Record<string, any>;
    let theirs: Record<string, any>;

    beforeAll(async () => {
      other = await createTenant(service, { name: 'Scheduled tenant' });
      mine = await website('Help center, weekly', 'weekly');
      const created = await api(service.url, '/api/v1/data-sources', {
        method: 'POST',
        key: other.key,
        body: {
          type: 'website',
          name: 'Orchard, daily',
          config: { url: otherSite.url('/'), max_pages: 5 },
          sync_frequency: 'daily',
        },
      });
      expect(created.status).toBe(201);
      theirs = json(created);
      await tick();
    });

    it('syncs each organization’s sources within that organization', async () => {
      expect(await syncStatus(service, key, mine.id)).toMatchObject({ status: 'active' });
      expect(await syncStatus(service, other.key, theirs.id)).toMatchObject({ status: 'active' });
      expect(otherSite.hits('/')).toBeGreaterThanOrEqual(1);

      const search = async (as: TestKey | { key: string; orgId: string }, query: string) => {
        const response = await api(service.url, '/api/v1/semantic-search', {
          method: 'POST',
          key: as.key,
          body: { query, org_id: as.orgId, top_k: 50 },
        });
        expect(response.status).toBe(200);
        return json(response).chunks as Array<Record<string, any>>;
      };
      const theirChunks = await search(other, 'quince trees flower sheltered corners warranty');
      expect(theirChunks.length).toBeGreaterThan(0);
      expect(new Set(theirChunks.map((chunk) => chunk.data_source_id))).toEqual(
        new Set([theirs.id]),
      );
      const myChunks = await search({ key, orgId: service.orgId }, 'quince trees flower');
      expect(myChunks.map((chunk) => chunk.data_source_id)).not.toContain(theirs.id);
    });

    it('neither shows nor lets another organization change a source’s schedule', async () => {
      // Prepare
      const mySchedule = (await getSource(mine.id)).next_sync_at;

      // Act
      const read = await api(service.url, `/api/v1/data-sources/${mine.id}`, { key: other.key });
      const change = await api(service.url, `/api/v1/data-sources/${mine.id}`, {
        method: 'PUT',
        key: other.key,
        body: { sync_frequency: 'manual' },
      });
      const list = await api(service.url, '/api/v1/data-sources', { key: other.key });

      // Assess
      expect(read.status).toBe(404);
      expect(change.status).toBe(404);
      expect((await getSource(mine.id)).next_sync_at).toBe(mySchedule);
      expect(json(list).data_sources.map((source: { id: string }) => source.id)).toEqual([
        theirs.id,
      ]);
    });
  });
});
