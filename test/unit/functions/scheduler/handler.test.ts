import type { Context, ScheduledEvent } from 'aws-lambda';
import { handler } from '../../../../functions/scheduler/handler';
import type { DataSource } from '../../../../layers/core/domain/data-source';
import type { DueDataSource } from '../../../../layers/core/ports/data-source-repository.port';
import type { Dependencies } from '../../../../layers/core/ports/dependencies.port';
import type { SyncJobMessage } from '../../../../layers/core/ports/sync-job-queue.port';
import { provideDependencies } from '../../../../layers/core/wiring/composition-root';

const NOW = new Date('2026-11-21T10:00:00.000Z');
const TICK = {
  id: 'tick-1',
  version: '0',
  account: '123456789012',
  time: NOW.toISOString(),
  region: 'eu-west-1',
  resources: ['arn:aws:events:eu-west-1:123456789012:rule/scheduler'],
  source: 'aws.events',
  'detail-type': 'Scheduled Event',
  detail: {},
} as ScheduledEvent;

const due = (id: string): DueDataSource => ({
  orgId: 'org_01jf3000000000000000000000',
  dataSourceId: id,
  frequency: 'daily',
  nextSyncAt: NOW.toISOString(),
});

/**
 * D23: the EventBridge target is thin: one run of the use case, its counts
 * logged and returned; a source that fails is counted (and logged), not
 * thrown, so one bad source never fails the tick.
 */
describe('Function: scheduler handler', () => {
  const sent: SyncJobMessage[] = [];

  beforeEach(() => {
    sent.length = 0;
    provideDependencies({
      clock: { now: () => NOW },
      dataSources: {
        listDueForSync: async () => [due('ds_ok'), due('ds_broken'), due('ds_moved')],
        moveNextSync: async (_org: string, id: string) => id !== 'ds_moved',
        claimSyncJob: async (_org: string, id: string, job: DataSource['current_job']) => ({
          job,
          created: true,
          dataSource: { id } as DataSource,
        }),
      },
      syncQueue: {
        send: async (message: SyncJobMessage) => {
          if (message.data_source_id === 'ds_broken') throw new Error('SQS is down');
          sent.push(message);
        },
      },
    } as unknown as Dependencies);
  });

  it('queues the due sources and returns the tick’s counts, a failing source included', async () => {
    const context = { getRemainingTimeInMillis: () => 120_000 } as Context;

    const tick = await handler(TICK, context);

    expect(tick).toEqual({
      due: 3,
      queued: 1,
      already_running: 0,
      skipped: 1,
      deferred: 0,
      failed: 1,
    });
    expect(sent.map((message) => message.data_source_id)).toEqual(['ds_ok']);
  });
});
