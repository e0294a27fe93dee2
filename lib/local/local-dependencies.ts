import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LocalQueue } from '../../layers/core/adapters/local/local-queue';
import type { Clock } from '../../layers/core/ports/clock.port';
import type { Dependencies } from '../../layers/core/ports/dependencies.port';
import type { SyncJobMessage } from '../../layers/core/ports/sync-job-queue.port';
import { buildDependencies } from '../../layers/core/wiring/build-dependencies';

/** Local queue names; in the cloud these are SQS queues (lib/constructs/queues.ts). */
export const LOCAL_QUEUES = {
  syncJobs: { name: 'sync-jobs', deadLetter: 'sync-jobs-dlq' },
} as const;

export const queueTableName = (tableName: string) => `${tableName}-local-queues`;

/** The local wiring: the cloud's DynamoDB adapters on dynalite, the local queue for SQS. D10: local runs are `test`. */
export function localDependencies(options: {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly clock?: Clock;
}): Dependencies {
  const syncQueue = new LocalQueue<SyncJobMessage>(
    options.client,
    queueTableName(options.tableName),
    LOCAL_QUEUES.syncJobs.name,
    { deadLetterQueue: LOCAL_QUEUES.syncJobs.deadLetter, maxReceiveCount: 5 },
  );
  return buildDependencies({ ...options, environment: 'test', syncQueue });
}
