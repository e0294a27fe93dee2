import { Duration } from 'aws-cdk-lib';
import { TABLE_KEYS } from '../layers/core/adapters/dynamodb/table-design';
import { type Alarms, DURATION_ALARM_RATIO } from './constructs/alarms';
import type { DataStore } from './constructs/data-store';
import type { HttpApi } from './constructs/http-api';
import type { SearchDomain } from './constructs/search-domain';
import type { SearchIndexBootstrap } from './constructs/search-index-bootstrap';
import type { ServiceFunction } from './constructs/service-function';
import type { WorkQueue } from './constructs/work-queue';
import {
  type QueueName,
  type ServiceWorkers,
  SYNC_MAX_RECEIVE_COUNT,
  SYNC_WORKER_DURATION_ALARM,
  WEBHOOK_DELIVERY_MAX_AGE,
} from './service-workers';

/** What the service's alarms watch. */
export interface AlarmedService extends ServiceWorkers {
  readonly alarms: Alarms;
  readonly queues: Readonly<Record<QueueName, WorkQueue>>;
  readonly http: HttpApi;
  readonly data: DataStore;
  readonly search: SearchDomain;
  readonly searchIndexes: SearchIndexBootstrap;
}

/**
 * Every function built from functions/, with the alarm id prefix and name
 * it is known by (the workers' functions are each a construct's "Function").
 */
export function serviceFunctions(
  service: AlarmedService,
): Array<{ idPrefix: string; name: string; fn: ServiceFunction }> {
  return [
    ...[...service.http.functions, ['fallback', service.http.fallback] as const].map(
      ([name, fn]) => ({ idPrefix: fn.node.id, name, fn }),
    ),
    { idPrefix: 'SyncWorker', name: 'sync-worker', fn: service.syncWorker.worker },
    { idPrefix: 'IngestionWorker', name: 'ingestion-worker', fn: service.ingestionWorker.worker },
    { idPrefix: 'EvalWorker', name: 'eval-worker', fn: service.evalWorker.worker },
    {
      idPrefix: 'WebhookDispatcher',
      name: 'webhook-dispatcher',
      fn: service.webhookDispatcher.worker,
    },
    { idPrefix: 'EventPublisher', name: 'event-publisher', fn: service.eventPublisher.publisher },
    { idPrefix: 'SyncScheduler', name: 'scheduler', fn: service.syncScheduler.scheduler },
    {
      idPrefix: 'SearchIndexes',
      name: 'search-index-bootstrap',
      fn: service.searchIndexes.handler,
    },
  ];
}

/** Dead letters, stuck deliveries, server errors, every function's errors, throttles and durations, the table and the domain. */
export function addServiceAlarms(service: AlarmedService): void {
  const { alarms, queues } = service;
  const deadLetterMeaning: Record<QueueName, string> = {
    // The sync worker reports a failed job as a batch item failure, so
    // redrive follows failed runs (a dependency down, a timeout) as well as crashes.
    syncJobs: `A sync job was dead-lettered after ${SYNC_MAX_RECEIVE_COUNT} failed or timed-out runs; its data source may stay in "processing"`,
    ingestion:
      'An upload event was dead-lettered: the ingestion worker failed on it repeatedly and could not mark the file failed',
    webhookDeliveries:
      'A webhook delivery message was dead-lettered: its consumer crashed on it repeatedly',
    evaluations:
      'An evaluation run was dead-lettered: the eval worker failed on it repeatedly and could not end it "failed"',
  };
  for (const [name, queue] of Object.entries(queues) as [QueueName, WorkQueue][]) {
    alarms.onDeadLetters(
      `${queue.node.id}DeadLetters`,
      queue.deadLetterQueue,
      deadLetterMeaning[name],
    );
  }
  alarms.onDeadLetters(
    'EventPublisherFailedBatches',
    service.eventPublisher.failedBatches,
    'The event publisher gave up on a stream batch after its retries; its events wait in the outbox for the sweep',
  );
  alarms.onQueueAge(
    'WebhookDeliveriesStuck',
    queues.webhookDeliveries.queue,
    WEBHOOK_DELIVERY_MAX_AGE,
    `A webhook delivery has waited over ${WEBHOOK_DELIVERY_MAX_AGE.toHumanString()}, longer than its five attempts take: the dispatcher is not keeping up or not running`,
  );
  alarms.onServerErrors('ApiServerErrors', service.http.api);
  for (const [name, fn] of [
    ...service.http.functions,
    ['fallback', service.http.fallback] as const,
  ]) {
    alarms.onFunctionErrors(`${fn.node.id}Errors`, fn.function, name);
  }
  // The workers' functions are each a construct's "Function": name them by the worker.
  const workers: ReadonlyArray<[string, ServiceFunction, string]> = [
    ['SyncWorkerErrors', service.syncWorker.worker, 'sync-worker'],
    ['IngestionWorkerErrors', service.ingestionWorker.worker, 'ingestion-worker'],
    ['EvalWorkerErrors', service.evalWorker.worker, 'eval-worker'],
    ['WebhookDispatcherErrors', service.webhookDispatcher.worker, 'webhook-dispatcher'],
    ['EventPublisherErrors', service.eventPublisher.publisher, 'event-publisher'],
    ['SyncSchedulerErrors', service.syncScheduler.scheduler, 'scheduler'],
  ];
  for (const [id, fn, name] of workers) alarms.onFunctionErrors(id, fn.function, name);

  // Throttles and durations near the timeout, for every function of ours
  // (CDK's deploy-time handlers excepted).
  for (const { idPrefix, name, fn } of serviceFunctions(service)) {
    alarms.onFunctionThrottles(`${idPrefix}Throttles`, fn.function, name);
    const timeout = fn.function.timeout ?? Duration.seconds(3);
    alarms.onFunctionDuration(
      `${idPrefix}Duration`,
      fn.function,
      name,
      fn === service.syncWorker.worker
        ? SYNC_WORKER_DURATION_ALARM
        : Duration.millis(Math.round(timeout.toMilliseconds() * DURATION_ALARM_RATIO)),
    );
  }

  const indexNames = [TABLE_KEYS.gsi1.indexName, TABLE_KEYS.gsi2.indexName];
  alarms.onTableThrottles('DataReadThrottles', service.data.table, indexNames, 'Read');
  alarms.onTableThrottles('DataWriteThrottles', service.data.table, indexNames, 'Write');

  alarms.onSearchDomainHealth('Search', service.search);
}
