import { DynamoDbDataSourceRepository } from '../../../layers/core/adapters/dynamodb/data-source-repository';
import {
  type DataSource,
  nextSyncAfter,
  type SyncFrequency,
} from '../../../layers/core/domain/data-source';
import { newId } from '../../../layers/core/domain/ids';
import type { Clock } from '../../../layers/core/ports/clock.port';
import type { SyncJobMessage, SyncJobQueue } from '../../../layers/core/ports/sync-job-queue.port';
import { requestSync } from '../../../layers/core/use-cases/data-sources/data-source-use-cases';
import {
  runScheduledSyncs,
  type SchedulerDependencies,
} from '../../../layers/core/use-cases/scheduling/run-scheduled-syncs';
import { startTestTables, type TestTables } from '../../support/dynalite';

/** A queue that records what it is sent, failing for the data sources in `failFor`. */
class RecordingQueue implements SyncJobQueue {
  readonly sent: SyncJobMessage[] = [];
  readonly failFor = new Set<string>();

  async send(message: SyncJobMessage): Promise<void> {
    if (this.failFor.has(message.data_source_id)) throw new Error('queue unavailable');
    this.sent.push(message);
  }

  jobsFor(dataSourceId: string): string[] {
    return this.sent.filter((m) => m.data_source_id === dataSourceId).map((m) => m.job_id);
  }
}

class FixedClock implements Clock {
  constructor(public at: Date) {}
  now(): Date {
    return new Date(this.at);
  }
}

/**
 * D23: the scheduler use case against a real dynalite: due sources get one
 * sync job each (D22), runs at once never double up, and one failing source
 * neither stops the others nor loses its turn.
 */
describe('Use case: runScheduledSyncs (D23)', () => {
  let tables: TestTables;
  let repository: DynamoDbDataSourceRepository;
  let queue: RecordingQueue;
  let clock: FixedClock;
  let orgId: string;
  let deps: SchedulerDependencies;

  const create = async (frequency: SyncFrequency, nextSyncAt: string | null) => {
    const source: DataSource = {
      id: newId('dataSource'),
      type: 'website',
      name: 'Docs',
      config: { url: 'https://example.com', max_pages: 10 },
      sync_frequency: frequency,
      next_sync_at: nextSyncAt,
      status: 'pending',
      chunks_indexed: 0,
      created_at: clock.now().toISOString(),
      updated_at: clock.now().toISOString(),
      current_job: null,
      last_job: null,
    };
    await repository.create(orgId, source, []);
    return source;
  };
  const stored = async (id: string) => repository.get(orgId, id);

  // A table of its own for every test: the schedule spans the whole table.
  beforeEach(async () => {
    tables = await startTestTables();
    repository = new DynamoDbDataSourceRepository(tables.client, tables.tableName);
    clock = new FixedClock(new Date('2026-11-21T12:00:00.000Z'));
    queue = new RecordingQueue();
    orgId = newId('organization');
    deps = { dataSources: repository, syncQueue: queue, clock };
  });
  afterEach(() => tables.end());

  it('queues one job per due source and moves each one interval on', async () => {
    // Prepare
    const now = clock.now();
    const hourly = await create('hourly', now.toISOString());
    const weekly = await create('weekly', new Date(now.getTime() - 3_600_000).toISOString());
    const notYet = await create('daily', new Date(now.getTime() + 1).toISOString());
    const manual = await create('manual', null);

    // Act
    const run = await runScheduledSyncs(deps);

    // Assess
    expect(run.failures).toEqual([]);
    expect(queue.sent.map((m) => m.data_source_id).sort()).toEqual([hourly.id, weekly.id].sort());
    for (const source of [hourly, weekly]) {
      const after = await stored(source.id);
      expect(after?.current_job).toMatchObject({
        status: 'queued',
        id: queue.jobsFor(source.id)[0],
      });
      expect(after?.next_sync_at).toBe(nextSyncAfter(source.sync_frequency, now));
    }
    expect((await stored(notYet.id))?.current_job).toBeNull();
    expect((await stored(manual.id))?.current_job).toBeNull();
    expect((await stored(manual.id))?.next_sync_at).toBeNull();
  });

  it('finds nothing due on a second run at the same time', async () => {
    const source = await create('daily', clock.now().toISOString());
    await runScheduledSyncs(deps);

    const again = await runScheduledSyncs(deps);

    expect(again).toMatchObject({ due: 0, queued: 0, failures: [] });
    expect(queue.jobsFor(source.id)).toHaveLength(1);
  });

  it('keeps a job already queued or running instead of making a second (D22)', async () => {
    // Prepare
    const source = await create('hourly', clock.now().toISOString());
    const requested = await requestSync(deps, orgId, source.id);

    // Act
    const run = await runScheduledSyncs(deps);

    // Assess
    expect(run).toMatchObject({ queued: 0, alreadyRunning: 1 });
    expect((await stored(source.id))?.current_job?.id).toBe(requested.job.id);
    // The queued job was sent again (workers treat its id as the idempotency key).
    expect(new Set(queue.jobsFor(source.id))).toEqual(new Set([requested.job.id]));
    expect((await stored(source.id))?.next_sync_at).toBe(nextSyncAfter('hourly', clock.now()));
  });

  it('lets exactly one of several runs at once take each source', async () => {
    // Prepare
    const created = await Promise.all(
      Array.from({ length: 6 }, () => create('daily', clock.now().toISOString())),
    );

    // Act
    const runs = await Promise.all(Array.from({ length: 4 }, () => runScheduledSyncs(deps)));

    // Assess
    const ours = new Set(created.map((source) => source.id));
    expect(queue.sent.filter((m) => ours.has(m.data_source_id))).toHaveLength(6);
    for (const source of created) {
      expect(queue.jobsFor(source.id)).toHaveLength(1);
      expect((await stored(source.id))?.current_job?.id).toBe(queue.jobsFor(source.id)[0]);
    }
    expect(runs.reduce((sum, run) => sum + run.queued, 0)).toBeGreaterThanOrEqual(6);
    expect(runs.every((run) => run.failures.length === 0)).toBe(true);
  });

  it('goes on past a failing source and leaves it due for the next run', async () => {
    // Prepare
    const before = clock.now().toISOString();
    const failing = await create('daily', before);
    const others = [await create('daily', before), await create('hourly', before)];
    queue.failFor.add(failing.id);

    // Act
    const run = await runScheduledSyncs(deps);

    // Assess
    expect(run.failures).toEqual([
      {
        orgId,
        dataSourceId: failing.id,
        error: expect.objectContaining({ message: 'queue unavailable' }),
      },
    ]);
    for (const source of others) expect(queue.jobsFor(source.id)).toHaveLength(1);
    // Put back as due; its job was recorded before the enqueue failed.
    const after = await stored(failing.id);
    expect(after?.next_sync_at).toBe(before);
    expect(after?.current_job?.status).toBe('queued');

    // The next run (the queue is back) enqueues that same job.
    queue.failFor.clear();
    const next = await runScheduledSyncs(deps);
    expect(next.failures).toEqual([]);
    expect(queue.jobsFor(failing.id)).toEqual([after?.current_job?.id]);
    expect((await stored(failing.id))?.next_sync_at).toBe(nextSyncAfter('daily', clock.now()));
  });

  it('skips a source deleted, turned manual or rescheduled after it was listed', async () => {
    // Prepare: the schedule is read, then the sources change before the moves.
    const at = clock.now().toISOString();
    const deleted = await create('daily', at);
    const turnedManual = await create('daily', at);
    const rescheduled = await create('daily', at);
    const listed = await repository.listDueForSync(at);
    expect(listed).toHaveLength(3);
    await repository.delete(orgId, deleted.id);
    await repository.update(
      orgId,
      turnedManual.id,
      { sync_frequency: 'manual', next_sync_at: null },
      at,
    );
    await repository.update(
      orgId,
      rescheduled.id,
      { sync_frequency: 'weekly', next_sync_at: nextSyncAfter('weekly', clock.now()) },
      at,
    );

    // Act: a run that read the schedule before those changes
    const run = await runScheduledSyncs({
      ...deps,
      dataSources: {
        listDueForSync: async () => listed,
        moveNextSync: (...args) => repository.moveNextSync(...args),
        claimSyncJob: (...args) => repository.claimSyncJob(...args),
      },
    });

    // Assess
    expect(run).toMatchObject({ due: 3, queued: 0, skipped: 3, failures: [] });
    expect(queue.sent).toEqual([]);
    expect((await stored(turnedManual.id))?.current_job).toBeNull();
    expect((await stored(rescheduled.id))?.current_job).toBeNull();
  });

  it('starts nothing once its signal is aborted, leaving the rest due', async () => {
    const source = await create('hourly', clock.now().toISOString());
    const controller = new AbortController();
    controller.abort();

    const run = await runScheduledSyncs(deps, { signal: controller.signal });

    expect(run.queued).toBe(0);
    expect(run).toMatchObject({ due: 1, deferred: 1 });
    expect((await stored(source.id))?.next_sync_at).toBe(clock.now().toISOString());
  });
});
