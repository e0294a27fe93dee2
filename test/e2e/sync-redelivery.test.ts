import { handler as syncWorker } from '../../functions/sync-worker/handler';
import { toSqsEvent } from '../../lib/local/background-workers';
import { createDataSource } from '../support/fixtures';
import { startTestService, type TestService } from '../support/local-service';
import { htmlPage, type LoopbackSite, startLoopbackSite } from '../support/loopback-site';
import { requestSync, syncStatus } from '../support/sync';
import { TestClock } from '../support/test-clock';
import { LOCAL_RECEIVERS_ENV } from '../support/webhooks';

/**
 * At least once (issue 13): a sync job's message that comes back after the
 * job ended (the worker was killed between recording the end and deleting the
 * message) does nothing, since its end moved the job from `current_job` to
 * `last_job`: no second crawl, no second `datasource.processed`.
 */
describe('A sync job delivered again after it ended', () => {
  const clock = new TestClock();
  let service: TestService;
  let site: LoopbackSite;
  beforeAll(async () => {
    clock.freeze();
    [service, site] = await Promise.all([
      startTestService({ env: { ...LOCAL_RECEIVERS_ENV }, clock }),
      startLoopbackSite(() => ({
        '/robots.txt': 'User-agent: *\nAllow: /\n',
        '/': htmlPage('Glaze notes', ['Celadon glazes need a reduction firing.']),
      })),
    ]);
  });
  afterAll(async () => {
    await service.end();
    await site.close();
  });

  it('is acknowledged without crawling again or sending a second event', async () => {
    // Prepare: a sync run to its end
    const source = await createDataSource(service, service.adminKey, {
      type: 'website',
      name: 'Glaze notes',
      config: { url: site.url('/'), max_pages: 5 },
      sync_frequency: 'manual',
    });
    const { job } = await requestSync(service, service.adminKey, source.id);
    await service.runtime.workers.stepSync();
    const ended = await syncStatus(service, service.adminKey, source.id);
    expect(ended).toMatchObject({ status: 'active', job_status: 'succeeded' });
    const crawled = site.requested().length;
    const events = async () =>
      (await service.runtime.dependencies.outbox.pending(100))
        .filter((batch) => batch.orgId === service.orgId)
        .flatMap((batch) => batch.events)
        .filter((event) => event.type === 'datasource.processed');
    expect(await events()).toHaveLength(1);

    // Act: its message again, as the queue gives it back
    const message = { org_id: service.orgId, data_source_id: source.id, job_id: job.id };
    const result = await syncWorker(
      toSqsEvent(
        [{ messageId: 'm-1', body: message, receiptHandle: 'r-1', receiveCount: 2, sentAt: 0 }],
        'sync-jobs',
      ),
    );

    // Assess
    expect(result.batchItemFailures).toEqual([]);
    expect(site.requested()).toHaveLength(crawled);
    expect(await events()).toHaveLength(1);
    expect(await syncStatus(service, service.adminKey, source.id)).toEqual(ended);
  });
});
