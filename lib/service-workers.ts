import type { RemovalPolicy } from 'aws-cdk-lib';
import { Duration } from 'aws-cdk-lib';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { connectorTokenContext } from '../layers/core/domain/connector';
import { EVAL_MAX_RECEIVE_COUNT } from '../layers/core/domain/evaluation';
import { modelKeySealingContext } from '../layers/core/domain/model-key';
import { secretContext } from '../layers/core/use-cases/webhooks/signed-request';
import type { BedrockModelAccess } from './constructs/bedrock-model-access';
import type { ConnectorApps } from './constructs/connector-apps';
import type { DataStore } from './constructs/data-store';
import type { ModelProvider } from './constructs/model-provider';
import { OutboxPublisher } from './constructs/outbox-publisher';
import { QueueWorker, VISIBILITY_TO_TIMEOUT_RATIO } from './constructs/queue-worker';
import type { SearchDomain } from './constructs/search-domain';
import type { SecretsKey } from './constructs/secrets-key';
import type { ServiceFunctionNetworkProps } from './constructs/service-function';
import { SyncScheduler } from './constructs/sync-scheduler';
import { WorkQueue } from './constructs/work-queue';
import type { ServiceGrants } from './service-grants';

/**
 * One sync job per invocation may crawl, embed and index up to 10,000 pages:
 * Lambda's longest run. The job keeps its progress (resumable), so a
 * redelivery after a timeout continues where it stopped.
 */
export const SYNC_WORKER_TIMEOUT = Duration.minutes(15);

/**
 * The sync queue's visibility timeout: AWS's six times the worker's timeout
 * (90 minutes, under SQS's 12 hours), so a job still running, or retried
 * after throttling, never reappears to a second worker.
 */
export const SYNC_JOB_VISIBILITY = Duration.seconds(
  SYNC_WORKER_TIMEOUT.toSeconds() * VISIBILITY_TO_TIMEOUT_RATIO,
);

/** Receives of a sync message before redrive, as in the local runtime (lib/local/local-dependencies.ts). */
export const SYNC_MAX_RECEIVE_COUNT = 5;

/**
 * When the sync worker's duration alarm fires: a crawl stops itself 60 s
 * before Lambda's deadline to record what it did (FINISH_MARGIN_MS in
 * functions/sync-worker/handler.ts), so long crawls end near 14 minutes by
 * design; a p99 past half that margin means the finishing step itself is
 * about to be cut off.
 */
export const SYNC_WORKER_DURATION_ALARM = SYNC_WORKER_TIMEOUT.minus(Duration.seconds(30));

/**
 * The sync worker's memory: 1769 MB is one full vCPU, what a single-threaded
 * crawl (HTML parsing, chunking, the offline embedder's hashing) can use.
 */
export const SYNC_WORKER_MEMORY_MB = 1769;

/**
 * How often the scheduler looks for scheduled data sources that are
 * due, so the most a scheduled sync starts late. The local runtime's
 * default (SVC_SCHEDULER_INTERVAL_MS) is a minute.
 */
export const SYNC_SCHEDULE_INTERVAL = Duration.minutes(5);

/**
 * One uploaded file per invocation: reading up to 50 MiB from S3,
 * parsing it (a large PDF is the slow case), chunking, embedding and
 * indexing. Far under Lambda's 15 minutes, with room for a slow model API.
 */
export const INGESTION_WORKER_TIMEOUT = Duration.minutes(5);

/** The ingestion queue's visibility: six times the worker's timeout, as for every SQS event source. */
export const INGESTION_VISIBILITY = Duration.seconds(
  INGESTION_WORKER_TIMEOUT.toSeconds() * VISIBILITY_TO_TIMEOUT_RATIO,
);

/**
 * The ingestion worker's memory: a 50 MiB file is held whole, and PDF.js
 * and mammoth build structures several times its size while parsing.
 */
export const INGESTION_WORKER_MEMORY_MB = 2048;

/**
 * Issue 11 item 5: one evaluation run per invocation, for up to Lambda's
 * 15 minutes; the worker pauses 90 s before the deadline and queues the
 * run again, so a run of 500 questions spans invocations.
 */
export const EVAL_WORKER_TIMEOUT = Duration.minutes(15);

/** The eval queue's visibility: six times the worker's timeout, as for every SQS event source. */
export const EVAL_VISIBILITY = Duration.seconds(
  EVAL_WORKER_TIMEOUT.toSeconds() * VISIBILITY_TO_TIMEOUT_RATIO,
);

/**
 * Evaluation runs at once: the minimum an SQS event source allows. Runs ask
 * their questions one at a time, so this also bounds the model calls
 * evaluations make beside the organizations' own queries.
 */
export const EVAL_WORKER_CONCURRENCY = 2;

/**
 * How long one dispatcher batch may run: its deliveries go out in parallel,
 * each POST given 10 s, plus the KMS and DynamoDB calls around it.
 */
export const WEBHOOK_DISPATCHER_TIMEOUT = Duration.seconds(30);

/**
 * The deliveries queue's default visibility: AWS's six times the
 * dispatcher's timeout (3 min). Longer than the local runtime's 60 s
 * (lib/local/local-dependencies.ts), which has no Lambda timeout or
 * throttling to allow for; either way the dispatcher sets the visibility to
 * the next retry delay itself, so this only decides when a message whose
 * dispatcher crashed or timed out comes back.
 */
export const WEBHOOK_DELIVERY_VISIBILITY = Duration.seconds(
  WEBHOOK_DISPATCHER_TIMEOUT.toSeconds() * VISIBILITY_TO_TIMEOUT_RATIO,
);

/**
 * A delivery's five attempts (0 s, 5 s, 30 s, 5 min, 1 h) span about
 * 66 minutes; a message older than this is stuck beyond the schedule.
 */
export const WEBHOOK_DELIVERY_MAX_AGE = Duration.hours(2);

export type QueueName = 'syncJobs' | 'ingestion' | 'webhookDeliveries' | 'evaluations';

/** The queues' keys: the main one, and the upload events' own (S3 may only send with a key naming the bucket). */
export interface QueueKeys {
  readonly main: kms.IKey;
  readonly uploadEvents: kms.IKey;
}

export function createWorkQueues(scope: Construct, keys: QueueKeys): Record<QueueName, WorkQueue> {
  const encryptionKey = keys.main;
  return {
    syncJobs: new WorkQueue(scope, 'SyncJobs', {
      encryptionKey,
      // A sync job crawls and embeds for up to the worker's 15 minutes; the
      // worker keeps its progress (resumable), so a redelivery after a
      // crash continues it.
      visibilityTimeout: SYNC_JOB_VISIBILITY,
      maxReceiveCount: SYNC_MAX_RECEIVE_COUNT,
    }),
    // S3 announces each upload here; the ingestion worker consumes it.
    ingestion: new WorkQueue(scope, 'Ingestion', {
      encryptionKey: keys.uploadEvents,
      visibilityTimeout: INGESTION_VISIBILITY,
      // As the local runtime's INGESTION_MAX_RECEIVE_COUNT; the worker
      // marks the file failed on the last one.
      maxReceiveCount: 5,
    }),
    // Issue 11 item 5: evaluation runs; the worker ends a run on its last receive.
    evaluations: new WorkQueue(scope, 'EvalRuns', {
      encryptionKey,
      visibilityTimeout: EVAL_VISIBILITY,
      maxReceiveCount: EVAL_MAX_RECEIVE_COUNT,
    }),
    webhookDeliveries: new WorkQueue(scope, 'WebhookDeliveries', {
      encryptionKey,
      // ARCHITECTURE "Webhook retries": a failed delivery stays on the
      // queue and the dispatcher sets its visibility to the next delay
      // (5 s, 30 s, 5 min, 1 h; all under SQS's 12 h cap), so this default
      // only matters until it does (see WEBHOOK_DELIVERY_VISIBILITY).
      visibilityTimeout: WEBHOOK_DELIVERY_VISIBILITY,
      // ApproximateReceiveCount is the attempt number and the 5th failure
      // marks the delivery failed, so redrive must never come first:
      // 5 attempts plus 3 receives of slack for dispatcher crashes, which
      // are all the DLQ is for. Same as the local runtime's
      // DELIVERY_MAX_RECEIVE_COUNT.
      maxReceiveCount: 8,
      // Far more than the ~66 minutes the five attempts span.
      retentionPeriod: Duration.days(4),
    }),
  };
}

/** The functions that are not endpoint families: queue consumers and timers. */
export interface ServiceWorkers {
  readonly syncWorker: QueueWorker;
  readonly ingestionWorker: QueueWorker;
  /** Issue 11 item 5: runs evaluations through the query use case. */
  readonly evalWorker: QueueWorker;
  readonly webhookDispatcher: QueueWorker;
  readonly eventPublisher: OutboxPublisher;
  readonly syncScheduler: SyncScheduler;
}

export interface ServiceWorkerProps {
  readonly queues: Readonly<Record<QueueName, WorkQueue>>;
  readonly data: DataStore;
  readonly encryptionKey: kms.IKey;
  /** The configuration every function gets (lib/function-config.ts). */
  readonly environment: Readonly<Record<string, string>>;
  readonly concurrency: {
    readonly sync: number;
    readonly ingestion: number;
    readonly webhookDispatcher: number;
  };
  readonly logRetention: logs.RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
  /** Beside the search domain (in its VPC when it has one, P50). */
  readonly searchClients: ServiceFunctionNetworkProps;
  /** Out through the addresses receivers allowlist. */
  readonly webhookSenders: ServiceFunctionNetworkProps;
}

/** The sync, ingestion and eval workers and the webhook dispatcher (queue consumers). */
export function createQueueWorkers(
  scope: Construct,
  props: ServiceWorkerProps,
): Pick<ServiceWorkers, 'syncWorker' | 'ingestionWorker' | 'evalWorker' | 'webhookDispatcher'> {
  const { queues, environment, searchClients } = props;
  const logs = {
    logRetention: props.logRetention,
    logEncryptionKey: props.encryptionKey,
    logRemovalPolicy: props.logRemovalPolicy,
  };
  // Crawls customer websites (the crawler refuses private addresses)
  // and indexes into the search domain: in the VPC with it, out through NAT.
  const syncWorker = new QueueWorker(scope, 'SyncWorker', {
    folder: 'sync-worker',
    description: 'Agent Query Service: runs sync jobs (crawl, chunk, embed, index), one at a time',
    queue: queues.syncJobs,
    environment,
    timeout: SYNC_WORKER_TIMEOUT,
    memorySize: SYNC_WORKER_MEMORY_MB,
    concurrency: props.concurrency.sync,
    // One job per invocation, as soon as it is queued: a batch would share
    // one 15-minute run.
    batchSize: 1,
    maxBatchingWindow: Duration.seconds(0),
    ...logs,
    ...searchClients,
  });

  // Every object created under files/ is an upload to ingest.
  const ingestionWorker = new QueueWorker(scope, 'IngestionWorker', {
    folder: 'ingestion-worker',
    description:
      'Agent Query Service: ingests uploaded files (parse, chunk, embed, index), one at a time',
    queue: queues.ingestion,
    environment,
    timeout: INGESTION_WORKER_TIMEOUT,
    memorySize: INGESTION_WORKER_MEMORY_MB,
    concurrency: props.concurrency.ingestion,
    batchSize: 1,
    maxBatchingWindow: Duration.seconds(0),
    ...logs,
    ...searchClients,
  });

  // Asks each question as a query would: the index, the models and model keys, so
  // placed like the query function.
  const evalWorker = new QueueWorker(scope, 'EvalWorker', {
    folder: 'eval-worker',
    description:
      'Agent Query Service: runs evaluations (each question through the query use case, scored offline)',
    queue: queues.evaluations,
    environment,
    timeout: EVAL_WORKER_TIMEOUT,
    concurrency: EVAL_WORKER_CONCURRENCY,
    batchSize: 1,
    maxBatchingWindow: Duration.seconds(0),
    ...logs,
    ...searchClients,
  });

  const webhookDispatcher = new QueueWorker(scope, 'WebhookDispatcher', {
    folder: 'webhook-dispatcher',
    description:
      'Agent Query Service: signs and sends webhook deliveries on the the delivery schedule',
    queue: queues.webhookDeliveries,
    environment,
    timeout: WEBHOOK_DISPATCHER_TIMEOUT,
    concurrency: props.concurrency.webhookDispatcher,
    ...logs,
    ...props.webhookSenders,
  });
  return { syncWorker, ingestionWorker, evalWorker, webhookDispatcher };
}

/** The outbox's event publisher and the sync scheduler's timer. */
export function createTimedWorkers(
  scope: Construct,
  props: ServiceWorkerProps,
): Pick<ServiceWorkers, 'eventPublisher' | 'syncScheduler'> {
  const logs = {
    logRetention: props.logRetention,
    logEncryptionKey: props.encryptionKey,
    logRemovalPolicy: props.logRemovalPolicy,
  };
  const eventPublisher = new OutboxPublisher(scope, 'EventPublisher', {
    table: props.data.table,
    encryptionKey: props.encryptionKey,
    environment: props.environment,
    ...logs,
  });
  const syncScheduler = new SyncScheduler(scope, 'SyncScheduler', {
    environment: props.environment,
    interval: SYNC_SCHEDULE_INTERVAL,
    ...logs,
  });
  return { eventPublisher, syncScheduler };
}

/** What the workers are granted from. */
export interface WorkerResources {
  readonly grants: ServiceGrants;
  readonly queues: Readonly<Record<QueueName, WorkQueue>>;
  readonly search: SearchDomain;
  readonly secretsKey: SecretsKey;
  readonly models: ModelProvider | undefined;
  readonly bedrock: BedrockModelAccess | undefined;
  readonly connectorApps: ConnectorApps | undefined;
}

/**
 * Least privilege for the workers. Each reads and writes table items. The
 * sync worker consumes the sync queue and the dispatcher the deliveries
 * queue (their event sources grant receive, delete and
 * ChangeMessageVisibility, which schedules retries); the scheduler sends to
 * the sync queue, the publisher to the deliveries queue (fan-out).
 * The secrets key: the dispatcher only opens webhook secrets, the
 * eval worker only opens model keys, the sync worker seals and opens
 * connector tokens. The search domain: the sync, ingestion and eval workers
 * (the index bootstrap is granted by its construct).
 */
export function grantWorkerAccess(workers: ServiceWorkers, resources: WorkerResources): void {
  const { grants, queues, search, secretsKey, models, bedrock } = resources;
  const deliveries = queues.webhookDeliveries.queue;

  const sync = workers.syncWorker.worker;
  grants.itemAccess(sync);
  search.grantReadWrite(sync.role);
  // Issue 12: connectors open their grants and seal the renewed ones, with the providers' apps.
  secretsKey.grantSealAndOpen(sync.function, connectorTokenContext('', '').purpose ?? '');
  resources.connectorApps?.connect(sync);
  // File sources' syncs, and a file indexed again on request, read uploads (and delete orphans).
  grants.fileAccess(sync, ['s3:GetObject', 's3:DeleteObject'], false);

  // The ingestion worker reads uploads and deletes orphans.
  const ingestion = workers.ingestionWorker.worker;
  grants.itemAccess(ingestion);
  search.grantReadWrite(ingestion.role);
  grants.fileAccess(ingestion, ['s3:GetObject', 's3:DeleteObject'], false);

  // Issue 11 item 5: the eval worker answers as the query function does, and queues
  // a paused run again.
  const evaluation = workers.evalWorker.worker;
  grants.itemAccess(evaluation);
  search.grantReadWrite(evaluation.role);
  secretsKey.grantOpen(evaluation.function, modelKeySealingContext('', '').purpose);
  queues.evaluations.queue.grantSendMessages(evaluation.function);

  const dispatcher = workers.webhookDispatcher.worker;
  grants.itemAccess(dispatcher);
  secretsKey.grantOpen(dispatcher.function, secretContext('', '').purpose);

  const publisher = workers.eventPublisher.publisher;
  grants.itemAccess(publisher);
  deliveries.grantSendMessages(publisher.function);

  const scheduler = workers.syncScheduler.scheduler;
  grants.itemAccess(scheduler);
  queues.syncJobs.queue.grantSendMessages(scheduler.function);

  // Embeddings where text is embedded, answers where agents answer (issue 32).
  for (const fn of [sync, ingestion, evaluation]) models?.connect(fn);
  bedrock?.connect(evaluation, 'answers');
  bedrock?.connect(sync, 'embeddings');
  bedrock?.connect(ingestion, 'embeddings');
}
