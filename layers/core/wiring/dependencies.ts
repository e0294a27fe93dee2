import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { outageAsUnavailable } from '../adapters/aws/outage-as-unavailable';
import { S3FileStorage } from '../adapters/aws/s3-file-storage';
import { SqsQueue } from '../adapters/aws/sqs-queue';
import { SqsMessageVisibility } from '../adapters/aws/sqs-visibility';
import { EnvelopeSecretSealer, kmsKeyring } from '../adapters/crypto/envelope-secret-sealer';
import { createDocumentClient } from '../adapters/dynamodb/document-client';
import { webhookPolicy } from '../adapters/net/outbound-policy';
import { createOpenSearchClient } from '../adapters/opensearch/client';
import { OpenSearchRetrievalIndex } from '../adapters/opensearch/opensearch-retrieval-index';
import { parseCloudConfig } from '../config';
import type { Dependencies } from '../ports/dependencies.port';
import type { SyncJobMessage } from '../ports/sync-job-queue.port';
import type { DeliveryMessage } from '../ports/webhook-repository.port';
import { buildDependencies } from './build-dependencies';

let current: Dependencies | undefined;

/**
 * The dependencies every handler uses. In a Lambda they are built from the
 * environment on first use (no network at import, for cold starts); the local
 * runtime and the tests provide theirs before the first request.
 */
export function dependencies(): Dependencies {
  current ??= cloudDependencies();
  return current;
}

/** Used by the local runtime and tests: the same handlers, other adapters. */
export function provideDependencies(provided: Dependencies): void {
  current = provided;
}

function cloudDependencies(): Dependencies {
  const config = parseCloudConfig(process.env);
  const sqs = new SQSClient({ region: config.AWS_REGION });
  sqs.middlewareStack.use(outageAsUnavailable);
  const s3 = new S3Client({ region: config.AWS_REGION });
  s3.middlewareStack.use(outageAsUnavailable);
  return buildDependencies({
    client: createDocumentClient({ region: config.AWS_REGION }),
    tableName: config.TABLE_NAME,
    environment: config.SVC_ENVIRONMENT,
    syncQueue: new SqsQueue<SyncJobMessage>(sqs, config.SYNC_QUEUE_URL),
    deliveryQueue: new SqsQueue<DeliveryMessage>(sqs, config.DELIVERY_QUEUE_URL),
    deliveryVisibility: new SqsMessageVisibility(sqs, config.DELIVERY_QUEUE_URL),
    secretSealer: new EnvelopeSecretSealer(kmsKeyring(config.SECRETS_KEY_ARN)),
    // D35: private addresses are never allowed in the cloud.
    outboundPolicy: webhookPolicy({ allowPrivateAddresses: false }),
    retrieval: new OpenSearchRetrievalIndex({
      client: createOpenSearchClient({
        endpoint: config.OPENSEARCH_ENDPOINT,
        region: config.AWS_REGION,
        timeoutMs: 10_000,
      }),
    }),
    fileStorage: new S3FileStorage(s3, config.FILE_BUCKET_NAME),
    openAi: config.OPENAI_API_KEY
      ? { apiKey: config.OPENAI_API_KEY, baseURL: config.OPENAI_BASE_URL }
      : null,
  });
}
