import type { S3Event, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { LocalQueue, ReceivedMessage } from '../../layers/core/adapters/local/local-queue';
import type { EvaluationRunMessage } from '../../layers/core/domain/evaluation';
import type { Dependencies } from '../../layers/core/ports/dependencies.port';
import type { SyncQueueMessage } from '../../layers/core/ports/sync-job-queue.port';
import type { DeliveryMessage } from '../../layers/core/ports/webhook-repository.port';
import {
  runScheduledSyncs,
  type ScheduledSyncRun,
} from '../../layers/core/use-cases/scheduling/run-scheduled-syncs';
import {
  type DomainRecheckRun,
  recheckSsoDomains,
} from '../../layers/core/use-cases/sso/recheck-sso-domains';
import { publishPending } from '../../layers/core/use-cases/webhooks/publish-events';

/** An idle loop waits at most this many intervals between rounds. */
const IDLE_BACKOFF_MAX = 5;

export type SqsHandler = (event: SQSEvent) => Promise<SQSBatchResponse>;

/** The SQS event Lambda's event source mapping would build for these messages. */
export function toSqsEvent(
  messages: readonly ReceivedMessage<unknown>[],
  queueName: string,
): SQSEvent {
  return {
    Records: messages.map((message) => ({
      messageId: message.messageId,
      receiptHandle: message.receiptHandle,
      body: JSON.stringify(message.body),
      attributes: {
        ApproximateReceiveCount: String(message.receiveCount),
        SentTimestamp: String(message.sentAt),
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp: String(message.sentAt),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:local:000000000000:${queueName}`,
      awsRegion: 'local',
    })),
  };
}

/**
 * Delivers received messages to a consumer as Lambda's event source mapping
 * does: the batch as one SQS event, then deletes what succeeded; reported
 * failures stay on the queue for their visibility timeout.
 */
async function consume<T>(
  queue: LocalQueue<T>,
  handler: SqsHandler,
  batchSize: number,
): Promise<number> {
  let handled = 0;
  for (;;) {
    const messages = await queue.receive(batchSize);
    if (messages.length === 0) return handled;
    handled += messages.length;
    const { batchItemFailures } = await handler(toSqsEvent(messages, queue.name));
    const failed = new Set(batchItemFailures.map((failure) => failure.itemIdentifier));
    for (const message of messages) {
      if (!failed.has(message.messageId)) await queue.delete(message.receiptHandle);
    }
  }
}

export interface LocalConsumers {
  readonly deliveryQueue: LocalQueue<DeliveryMessage>;
  readonly dispatcher: SqsHandler;
  readonly syncQueue: LocalQueue<SyncQueueMessage>;
  readonly syncWorker: SqsHandler;
  readonly ingestionQueue: LocalQueue<S3Event>;
  readonly ingestionWorker: SqsHandler;
  /** Issue 11 item 5: evaluation runs and the eval worker. */
  readonly evaluationQueue: LocalQueue<EvaluationRunMessage>;
  readonly evalWorker: SqsHandler;
}

/**
 * What runs in the background on one machine: the outbox sweep (the cloud's
 * stream + schedule), and the consumers of deliveries, sync jobs, uploads and evaluation runs
 * (the cloud's SQS event source mappings), calling the same use case and the
 * same handler exports. Each consumer runs in its own loop, so a long crawl
 * never holds up webhook deliveries or an uploaded file. `step` does one round of everything, so tests can
 * drive time by hand. The sync scheduler (the cloud's EventBridge rule)
 * ticks in a slower loop of its own.
 */
export class BackgroundWorkers {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<unknown>>();
  private stopped = false;

  constructor(
    private readonly deps: Dependencies,
    private readonly consumers: LocalConsumers,
    private readonly onError: (error: unknown) => void = (error) =>
      console.error('Background worker:', error),
  ) {}

  /** Publishes pending events, then dispatches every delivery that is due. Returns deliveries attempted. */
  async stepDeliveries(): Promise<number> {
    await publishPending(this.deps);
    return consume(this.consumers.deliveryQueue, this.consumers.dispatcher, 10);
  }

  /** Ingests every uploaded file that has arrived, one at a time. Returns the uploads handled. */
  stepIngestion(): Promise<number> {
    return consume(this.consumers.ingestionQueue, this.consumers.ingestionWorker, 1);
  }

  /**
   * The scheduler's tick (the cloud's EventBridge rule → functions/scheduler):
   * queues a sync for every scheduled data source that is due. A source whose
   * request failed is reported to `onError` and stays due for the next tick.
   * The same tick re-checks the verified SSO domains that are due.
   */
  async stepSchedule(): Promise<ScheduledSyncRun> {
    const run = await runScheduledSyncs(this.deps);
    for (const failure of run.failures) this.onError(failure.error);
    await this.stepDomainChecks();
    return run;
  }

  /** Looks up again every verified SSO domain whose daily re-check is due. */
  stepDomainChecks(): Promise<DomainRecheckRun> {
    return recheckSsoDomains(this.deps);
  }

  /** Runs every sync job that is due, one at a time. Returns the jobs handled. */
  stepSync(): Promise<number> {
    return consume(this.consumers.syncQueue, this.consumers.syncWorker, 1);
  }

  /** Runs every queued evaluation, one at a time (issue 11 item 5). Returns the runs handled. */
  stepEvaluations(): Promise<number> {
    return consume(this.consumers.evaluationQueue, this.consumers.evalWorker, 1);
  }

  /** One round of everything: uploads, syncs and evaluations first, so the events they end with are published in the same round. */
  async step(): Promise<number> {
    // The schedule first, so the syncs it queues run in this round.
    await this.stepSchedule();
    await this.stepIngestion();
    await this.stepSync();
    await this.stepEvaluations();
    return this.stepDeliveries();
  }

  /**
   * Starts the loops: every consumer each `intervalMs`, the scheduler each
   * `scheduleIntervalMs` (its first tick one interval after the start).
   * `intervalMs` 0 starts nothing (tests step by hand); `scheduleIntervalMs`
   * 0 leaves only the scheduler off.
   */
  start(intervalMs: number, options: { readonly scheduleIntervalMs?: number } = {}): void {
    // Already running: one set of loops at a time.
    if (intervalMs <= 0 || (!this.stopped && this.timers.size > 0)) return;
    this.stopped = false;
    this.loop(() => this.stepDeliveries(), intervalMs);
    this.loop(() => this.stepSync(), intervalMs);
    const scheduleIntervalMs = options.scheduleIntervalMs ?? 0;
    if (scheduleIntervalMs > 0) this.loop(() => this.stepSchedule(), scheduleIntervalMs);
    this.loop(() => this.stepIngestion(), intervalMs);
    this.loop(() => this.stepEvaluations(), intervalMs);
  }

  /**
   * A loop whose rounds find nothing waits longer, up to
   * IDLE_BACKOFF_MAX intervals (1 s at the default 200 ms), and is back to
   * its interval after the first round that did something. Every idle round
   * is DynamoDB queries (the outbox's shards and each queue), which on a
   * persisted data directory cost the process about a tenth of a core and
   * slowed a running sync down (issue 10).
   */
  private loop(round: () => Promise<unknown>, intervalMs: number): void {
    let idleRounds = 0;
    const tick = () => {
      const run = round()
        .then(
          (done) => {
            idleRounds = done === 0 ? idleRounds + 1 : 0;
          },
          (error: unknown) => {
            idleRounds = 0;
            this.onError(error);
          },
        )
        .finally(() => {
          this.running.delete(run);
          const delayMs = intervalMs * Math.min(2 ** idleRounds, IDLE_BACKOFF_MAX);
          if (!this.stopped) this.timers.add(setTimeout(tick, delayMs));
        });
      this.running.add(run);
    };
    this.timers.add(setTimeout(tick, intervalMs));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.all(this.running);
  }
}
