import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  UnavailableSourceReader,
  WebsiteSourceReader,
} from '../adapters/crawler/website-source-reader';
import { DynamoDbAgentRepository } from '../adapters/dynamodb/agent-repository';
import { DynamoDbAnalyticsRollups } from '../adapters/dynamodb/analytics-rollups';
import { DynamoDbApiKeyRepository } from '../adapters/dynamodb/api-key-repository';
import { DynamoDbDataSourceRepository } from '../adapters/dynamodb/data-source-repository';
import { DynamoDbDeliveryRepository } from '../adapters/dynamodb/delivery-repository';
import {
  DynamoDbInteractionRepository,
  DynamoDbSessionHistory,
} from '../adapters/dynamodb/interaction-repository';
import { DynamoDbOrganizationRepository } from '../adapters/dynamodb/organization-repository';
import { DynamoDbOutbox } from '../adapters/dynamodb/outbox';
import { DynamoDbPlanQuota, DynamoDbRateLimiter } from '../adapters/dynamodb/rate-limiter';
import { DynamoDbUploadedFileRepository } from '../adapters/dynamodb/uploaded-file-repository';
import { DynamoDbWebhookRepository } from '../adapters/dynamodb/webhook-repository';
import { FileSourceReader } from '../adapters/files/file-source-reader';
import {
  HttpWebhookTransport,
  TlsWebhookUrlVerifier,
} from '../adapters/net/http-webhook-transport';
import { crawlerPolicy, type OutboundPolicy } from '../adapters/net/outbound-policy';
import { uploadedFileParser } from '../adapters/parsing/file-parser';
import type { Environment } from '../domain/environments';
import { type Clock, systemClock } from '../ports/clock.port';
import type { Dependencies } from '../ports/dependencies.port';
import type { FileStorage } from '../ports/file-storage.port';
import type { RetrievalIndex } from '../ports/retrieval-index.port';
import type { MessageQueue, SyncJobQueue } from '../ports/sync-job-queue.port';
import type {
  DeliveryMessage,
  MessageVisibility,
  SecretSealer,
} from '../ports/webhook-repository.port';
import { modelProviders, type OpenAiSettings } from './model-providers';

/** D29: a receiver has 10 s to answer. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * The part of the wiring both runtimes share: the same DynamoDB adapters,
 * pointed at DynamoDB in the cloud and at dynalite on one machine, and the
 * same outbound HTTP under the runtime's address policy (D35).
 */
export function buildDependencies(options: {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly environment: Environment;
  readonly syncQueue: SyncJobQueue;
  readonly deliveryQueue: MessageQueue<DeliveryMessage>;
  readonly deliveryVisibility: MessageVisibility;
  readonly secretSealer: SecretSealer;
  readonly outboundPolicy: OutboundPolicy;
  readonly webhookTimeoutMs?: number;
  readonly clock?: Clock;
  readonly retrieval: RetrievalIndex;
  readonly openAi: OpenAiSettings | null;
  /** D25: S3 in the cloud, the local blob store on one machine. */
  readonly fileStorage: FileStorage;
}): Dependencies {
  const { client, tableName } = options;
  const models = modelProviders(options.openAi);
  const website = new WebsiteSourceReader(
    crawlerPolicy({ allowPrivateAddresses: options.outboundPolicy.allowPrivateAddresses }),
  );
  const unavailable = new UnavailableSourceReader();
  const files = new DynamoDbUploadedFileRepository(client, tableName);
  return {
    environment: options.environment,
    clock: options.clock ?? systemClock,
    organizations: new DynamoDbOrganizationRepository(client, tableName),
    apiKeys: new DynamoDbApiKeyRepository(client, tableName),
    agents: new DynamoDbAgentRepository(client, tableName),
    dataSources: new DynamoDbDataSourceRepository(client, tableName),
    rateLimiter: new DynamoDbRateLimiter(client, tableName),
    planQuota: new DynamoDbPlanQuota(client, tableName),
    syncQueue: options.syncQueue,
    outbox: new DynamoDbOutbox(client, tableName),
    webhooks: new DynamoDbWebhookRepository(client, tableName),
    deliveries: new DynamoDbDeliveryRepository(client, tableName),
    deliveryQueue: options.deliveryQueue,
    deliveryVisibility: options.deliveryVisibility,
    secretSealer: options.secretSealer,
    webhookTransport: new HttpWebhookTransport(options.outboundPolicy),
    webhookUrlVerifier: new TlsWebhookUrlVerifier(options.outboundPolicy),
    webhookTimeoutMs: options.webhookTimeoutMs ?? WEBHOOK_TIMEOUT_MS,
    retrieval: options.retrieval,
    embedder: models.embedder,
    answererFor: models.answererFor,
    interactions: new DynamoDbInteractionRepository(client, tableName),
    sessions: new DynamoDbSessionHistory(client, tableName),
    rollups: new DynamoDbAnalyticsRollups(client, tableName),
    readerFor: (source, orgId) => {
      if (source.type === 'website') return website;
      if (source.type === 'file')
        return new FileSourceReader(orgId, files, options.fileStorage, uploadedFileParser);
      return unavailable;
    },
    files,
    fileStorage: options.fileStorage,
    fileParser: uploadedFileParser,
  };
}
