import { CRAWLER_DEFAULTS } from '../../layers/core/adapters/crawler/website-crawler';
import { createDataSource } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import {
  htmlPage,
  type LoopbackSite,
  routes,
  sitemapXml,
  startLoopbackSite,
} from '../support/loopback-site';
import { requestSync, syncStatus } from '../support/sync';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { createWebhook, LOCAL_RECEIVERS_ENV } from '../support/webhooks';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const CHANGING_V1 = 'The orchard tour costs twelve dollars per visitor on weekends.';
const CHANGING_V2 =
  'The orchard tour now costs nineteen dollars per visitor and includes cider tasting.';

/**
 * A gardening site with everything a crawl meets: robots.txt disallowing a
 * path and naming the sitemap, a page only the sitemap lists, links, a
 * redirect, a page larger than the crawler's cap, a PDF link and a non-HTML
 * response, a page that changes and one that disappears between syncs.
 */
function gardeningSite(origin: string) {
  return {
    '/robots.txt': routes.text(
      `User-agent: *\nDisallow: /private/\nSitemap: ${origin}/sitemap.xml\n`,
    ),
    '/sitemap.xml': routes.text(
      sitemapXml(origin, ['/', '/changing', '/vanishing', '/from-sitemap']),
      'application/xml',
    ),
    '/': htmlPage(
      'Orchard Gardening Guide',
      ['Welcome to the orchard gardening guide for apple and pear growers.'],
      [
        '/pruning',
        '/old-soil',
        '/private/secret',
        '/files/catalogue.pdf',
        '/export',
        '/huge',
        '/changing',
      ],
    ),
    '/pruning': htmlPage('Pruning', [
      'Prune apple trees in late winter before the buds swell.',
      'Remove crossing branches to let sunlight reach the fruit.',
    ]),
    '/old-soil': routes.redirect('/soil'),
    '/soil': htmlPage('Soil', ['Loamy soil drains well and holds nutrients for fruit trees.']),
    '/private/secret': htmlPage('Secret', ['The secret password is marmalade butterscotch.']),
    '/files/catalogue.pdf': routes.bytes(
      Buffer.from('%PDF-1.4 quokka catalogue'),
      'application/pdf',
    ),
    '/export': routes.bytes(Buffer.from('quokka export of the orchard database'), 'image/png'),
    '/huge': routes.bytes(
      Buffer.from(
        htmlPage('Huge', [
          `Zebracorn ${'filler words about orchards '.repeat(
            Math.ceil(CRAWLER_DEFAULTS.maxPageBytes / 28),
          )}`,
        ]),
      ),
      'text/html',
    ),
    '/changing': htmlPage('Orchard tours', [CHANGING_V1]),
    '/vanishing': htmlPage('Quince jam', ['Heirloom quince jam is cooked with cardamom pods.']),
    '/from-sitemap': htmlPage('Beekeeping', [
      'Beekeeping hives pollinate the orchard blossoms in spring.',
    ]),
  };
}

/** Pages the first sync indexes: the home page, links, the redirect's target, the sitemap's pages. */
const INDEXED_PATHS = ['/', '/pruning', '/soil', '/changing', '/vanishing', '/from-sitemap'];

/**
 * Website sync end to end (issue 3; D22, D24, D35): the service crawls a
 * loopback site through the real sync worker, indexes what robots.txt
 * allows, and re-syncs incrementally.
 */
describe('Website sync', () => {
  const clock = new TestClock();
  let service: TestService;
  let site: LoopbackSite;
  let receiver: WebhookReceiver;
  let key: string;
  let sourceId: string;
  /** The `datasource.processed` events received so far, oldest first. */
  const processed = () =>
    receiver.receipts
      .map((receipt) => receipt.envelope)
      .filter(
        (envelope) =>
          envelope.type === 'datasource.processed' && envelope.data.dataSource.id === sourceId,
      );

  beforeAll(async () => {
    [service, site, receiver] = await Promise.all([
      startTestService({ env: { ...LOCAL_RECEIVERS_ENV }, clock }),
      startLoopbackSite(gardeningSite),
      startWebhookReceiver(),
    ]);
    key = service.adminKey;
    await createWebhook(service, key, {
      url: receiver.url('/syncs'),
      events: ['datasource.processed'],
    });
    const source = await createDataSource(service, key, {
      type: 'website',
      name: 'Gardening',
      config: { url: site.url('/'), max_pages: 50 },
      sync_frequency: 'manual',
    });
    sourceId = source.id;
  });
  afterAll(async () => {
    await service.end();
    await Promise.all([site.close(), receiver.close()]);
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const search = async (query: string) => {
    const response = await api(service.url, '/api/v1/semantic-search', {
      method: 'POST',
      key,
      body: { query, org_id: service.orgId, data_source_ids: [sourceId], top_k: 100 },
    });
    expect(response.status).toBe(200);
    return json(response).chunks as Array<Record<string, any>>;
  };
  /** Every chunk the source has that shares a word with `words` (the offline embedder is lexical). */
  const textsAbout = async (words: string) => (await search(words)).map((chunk) => chunk.text);

  /** Runs the queued job through the real sync worker, then publishes and delivers its events. */
  const runWorkers = () => service.runtime.workers.step();

  let firstChunks: Array<Record<string, any>>;

  it('returns the queued job to a second sync request instead of queuing another (D22)', async () => {
    const first = await requestSync(service, key, sourceId);
    const second = await requestSync(service, key, sourceId);

    expect(first).toMatchObject({ created: true, job: { status: 'queued' } });
    expect(second).toMatchObject({ created: false, job: { id: first.job.id, status: 'queued' } });
  });

  it('crawls the site and ends active with the D24 fields filled in', async () => {
    await runWorkers();

    const status = await syncStatus(service, key, sourceId);
    expect(status).toEqual({
      status: 'active',
      job_id: expect.stringMatching(/^job_/),
      job_status: 'succeeded',
      chunks_indexed: expect.any(Number),
      progress_pct: 100,
      estimated_completion: null,
      documents_total: INDEXED_PATHS.length,
      documents_processed: INDEXED_PATHS.length,
      // P248: each skipped page by its address, with the reason.
      documents_skipped: 4,
      skipped: expect.arrayContaining([
        { key: site.url('/files/catalogue.pdf'), reason: expect.any(String) },
        { key: site.url('/export'), reason: expect.stringMatching(/image\/png|content type/i) },
        { key: site.url('/huge'), reason: expect.any(String) },
      ]),
      started_at: expect.stringMatching(ISO_MS),
      finished_at: expect.stringMatching(ISO_MS),
      // D22: active even with some skipped pages; the error says which.
      error: expect.stringMatching(/^4 document\(s\) skipped, e.g. /),
    });
    expect(status.skipped).toHaveLength(4);
    expect(status.chunks_indexed).toBeGreaterThanOrEqual(INDEXED_PATHS.length);
    expect(Date.parse(status.finished_at)).toBeGreaterThanOrEqual(Date.parse(status.started_at));
    // Only one job ran for the two requests.
    expect(await service.runtime.workers.stepSync()).toBe(0);
    const source = json(await api(service.url, `/api/v1/data-sources/${sourceId}`, { key }));
    expect(source).toMatchObject({ status: 'active', chunks_indexed: status.chunks_indexed });
  });

  it('indexes every allowed page, the redirect under its target address', async () => {
    const chunks = await search(
      'orchard gardening apple pruning loamy soil tour quince beekeeping',
    );
    const urls = new Set(chunks.map((chunk) => chunk.document_url));

    expect([...urls].sort()).toEqual(INDEXED_PATHS.map((path) => site.url(path)).sort());
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({
        chunk_id: expect.stringMatching(/^chk_/),
        document_id: expect.stringMatching(/^doc_/),
        data_source_id: sourceId,
      });
    }
    expect(await textsAbout('loamy soil nutrients')).toContain(
      'Loamy soil drains well and holds nutrients for fruit trees.',
    );
    expect(site.hits('/old-soil')).toBe(1);
    firstChunks = chunks;
  });

  it('never fetches or indexes what robots.txt disallows', async () => {
    expect(site.hits('/robots.txt')).toBeGreaterThanOrEqual(1);
    expect(site.hits('/private/secret')).toBe(0);
    expect((await textsAbout('secret password marmalade butterscotch')).join(' ')).not.toMatch(
      /marmalade/i,
    );
  });

  it('skips a page larger than the cap, a PDF link and a non-HTML response', async () => {
    expect(site.hits('/files/catalogue.pdf')).toBe(0); // known by its extension: not fetched
    expect(site.hits('/export')).toBe(1); // fetched, refused by its content type
    expect(site.hits('/huge')).toBe(1);
    const texts = (await textsAbout('zebracorn quokka catalogue export database')).join(' ');
    expect(texts).not.toMatch(/zebracorn|quokka/i);
  });

  it('re-indexes a changed page and drops a page that is gone on the next sync', async () => {
    site.set({ '/changing': htmlPage('Orchard tours', [CHANGING_V2]) });
    site.remove('/vanishing');
    const before = await syncStatus(service, key, sourceId);

    const accepted = await requestSync(service, key, sourceId);
    expect(accepted).toMatchObject({ created: true, data_source: { status: 'active' } });
    await runWorkers();

    const status = await syncStatus(service, key, sourceId);
    expect(status).toMatchObject({
      status: 'active',
      job_id: accepted.job.id,
      job_status: 'succeeded',
      progress_pct: 100,
      documents_processed: INDEXED_PATHS.length - 1,
    });
    expect(status.finished_at).not.toBe(before.finished_at);
    const tour = (await textsAbout('orchard tour costs dollars per visitor')).join(' ');
    expect(tour).toContain('nineteen dollars');
    expect(tour).not.toContain('twelve dollars');
    expect((await textsAbout('heirloom quince jam cardamom')).join(' ')).not.toMatch(/quince/i);
    const after = await search('orchard gardening apple pruning loamy soil tour quince beekeeping');
    expect(after.map((chunk) => chunk.document_url)).not.toContain(site.url('/vanishing'));
    const vanishingChunks = firstChunks.filter((c) => c.document_url === site.url('/vanishing'));
    expect(status.chunks_indexed).toBe(before.chunks_indexed - vanishingChunks.length);
  });

  it('keeps unchanged pages as they were: same chunks, nothing re-embedded', async () => {
    const unchanged = (chunks: Array<Record<string, any>>) =>
      chunks
        .filter((chunk) => [site.url('/pruning'), site.url('/soil')].includes(chunk.document_url))
        .map((chunk) => [chunk.chunk_id, chunk.document_id, chunk.text])
        .sort();
    const now = await search('orchard gardening apple pruning loamy soil tour quince beekeeping');
    expect(unchanged(now)).toEqual(unchanged(firstChunks));
    expect(unchanged(now).length).toBeGreaterThan(0);

    // A third sync with nothing changed embeds nothing (datasource.processed stats, D28).
    await requestSync(service, key, sourceId);
    await runWorkers();

    const stats = processed().map((envelope) => envelope.data.dataSource.stats);
    expect(stats).toHaveLength(3);
    const [first, second, third] = stats;
    expect(first.documentsProcessed).toBe(INDEXED_PATHS.length);
    expect(first.tokensProcessed).toBeGreaterThan(0);
    // Only the changed page was embedded again.
    expect(second.tokensProcessed).toBeGreaterThan(0);
    expect(second.tokensProcessed).toBeLessThan(first.tokensProcessed / 2);
    expect(third).toMatchObject({
      documentsProcessed: INDEXED_PATHS.length - 1,
      tokensProcessed: 0,
    });
  });

  it('returns the running job to a sync request made while it runs (D22)', async () => {
    const release = site.hold('/pruning');
    const queued = await requestSync(service, key, sourceId);
    const running = runWorkers();
    try {
      let status = await syncStatus(service, key, sourceId);
      for (let polls = 0; status.job_status !== 'running' && polls < 200; polls += 1) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        status = await syncStatus(service, key, sourceId);
      }
      expect(status).toMatchObject({ status: 'processing', job_status: 'running' });

      const again = await requestSync(service, key, sourceId);

      expect(again).toMatchObject({
        created: false,
        job: { id: queued.job.id, status: 'running' },
        data_source: { status: 'processing' },
      });
    } finally {
      release();
      await running;
    }
    expect(await syncStatus(service, key, sourceId)).toMatchObject({
      status: 'active',
      job_id: queued.job.id,
      job_status: 'succeeded',
    });
    expect(await service.runtime.workers.stepSync()).toBe(0);
  });
});
