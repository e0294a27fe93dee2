import { newSyncJob } from '../../../layers/core/domain/data-source';
import { newId } from '../../../layers/core/domain/ids';
import type {
  SyncJobQueue,
  SyncQueueMessage,
} from '../../../layers/core/ports/sync-job-queue.port';
import { requeueQueuedSyncs } from '../../../lib/local/requeue-queued-syncs';
import { createDataSource } from '../../support/fixtures';
import { startTestService, type TestService } from '../../support/local-service';

/** A queue that keeps what it is sent, to see what the sweep sends (the real local queue is SQS-shaped and shared). */
function collectingQueue(): SyncJobQueue & { readonly sent: SyncQueueMessage[] } {
  const sent: SyncQueueMessage[] = [];
  return {
    sent,
    send: async (message) => {
      sent.push(message);
    },
  };
}

/**
 * P198: a job recorded by a run that died before sending its message (the
 * window between requestSync's two writes) gets its message at the next
 * start; jobs running or ended, and sources without a job, get none.
 */
describe('Local runtime: queued sync jobs are sent again at start', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.end());

  it('sends a message for each queued job, and only for those', async () => {
    // Prepare: one source whose job was recorded but never sent, one without a job
    const { dataSources } = service.runtime.dependencies;
    const stranded = await createDataSource(service, service.adminKey);
    await createDataSource(service, service.adminKey);
    const job = newSyncJob(newId('syncJob'), new Date().toISOString());
    const claim = await dataSources.claimSyncJob(service.orgId, stranded.id, job);
    expect(claim?.created).toBe(true);
    const queue = collectingQueue();

    // Act
    const requeued = await requeueQueuedSyncs(service.runtime.client, 'svc', queue);

    // Assess
    expect(requeued).toBe(1);
    expect(queue.sent).toEqual([
      { org_id: service.orgId, data_source_id: stranded.id, job_id: job.id },
    ]);
  });
});
