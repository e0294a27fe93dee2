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

/** P221: one verified domain due for its re-check, whose record is still published. */
const DOMAIN = {
  domain: 'acme.example',
  status: 'verified',
  txt_record: { name: '_svc-verification.acme.example', value: 'svc-domain-verification=t' },
};

/**
 * D23: the EventBridge target is thin: one run of the use case, its counts
 * logged and returned; a source that fails is counted (and logged), not
 * thrown, so one bad source never fails the tick. The same tick re-checks
 * the SSO domains that are due (P221).
 */
describe('Function: scheduler handler', () => {
  const sent: SyncJobMessage[] = [];
  const confirmed: string[] = [];

  beforeEach(() => {
    sent.length = 0;
    confirmed.length = 0;
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
      ssoRepository: {
        listDueForCheck: async () => [
          { orgId: 'org_01jf3000000000000000000000', domain: DOMAIN.domain, nextCheckAt: '' },
        ],
        moveNextCheck: async () => true,
        getDomain: async () => DOMAIN,
        recordConfirmedCheck: async (_org: string, domain: string) => confirmed.push(domain),
      },
      txtResolver: { resolveTxt: async () => [DOMAIN.txt_record.value] },
    } as unknown as Dependencies);
  });

  it('queues the due sources, re-checks the due domains and returns the tick’s counts, a failing source included', async () => {
    const context = { getRemainingTimeInMillis: () => 120_000 } as Context;

    const tick = await handler(TICK, context);

    expect(tick).toEqual({
      due: 3,
      queued: 1,
      already_running: 0,
      skipped: 1,
      deferred: 0,
      failed: 1,
      domains: { due: 1, confirmed: 1, unverified: 0, failed: 0, skipped: 0, deferred: 0 },
    });
    expect(sent.map((message) => message.data_source_id)).toEqual(['ds_ok']);
    expect(confirmed).toEqual([DOMAIN.domain]);
  });
});
