import { hkdfSync } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { S3Event } from 'aws-lambda';
import type { ProviderUrls } from '../../layers/core/adapters/ai/provider-urls';
import type { ConnectorEndpoints } from '../../layers/core/adapters/connectors/connectors';
import { StaticConnectorApps } from '../../layers/core/adapters/connectors/static-connector-apps';
import type { CrawlBudget } from '../../layers/core/adapters/crawler/website-source-reader';
import { EnvelopeSecretSealer } from '../../layers/core/adapters/crypto/envelope-secret-sealer';
import { JoseOAuthStateSigner } from '../../layers/core/adapters/crypto/jose-oauth-state';
import { JoseSessionTokens } from '../../layers/core/adapters/crypto/jose-session-tokens';
import { LocalFileStorage } from '../../layers/core/adapters/local/local-file-storage';
import { LocalQueue } from '../../layers/core/adapters/local/local-queue';
import { webhookPolicy } from '../../layers/core/adapters/net/outbound-policy';
import {
  EVAL_MAX_RECEIVE_COUNT,
  type EvaluationRunMessage,
} from '../../layers/core/domain/evaluation';
import {
  type WebhookSourceAddresses,
  webhookSourceAddresses,
} from '../../layers/core/domain/webhook-source-addresses';
import { type Clock, systemClock } from '../../layers/core/ports/clock.port';
import type { OAuthApp } from '../../layers/core/ports/connector.port';
import type { Dependencies } from '../../layers/core/ports/dependencies.port';
import type { Mailer } from '../../layers/core/ports/mailer.port';
import type { RetrievalIndex } from '../../layers/core/ports/retrieval-index.port';
import type { SyncQueueMessage } from '../../layers/core/ports/sync-job-queue.port';
import type { DeliveryMessage } from '../../layers/core/ports/webhook-repository.port';
import { buildDependencies } from '../../layers/core/wiring/build-dependencies';
import type { BedrockSettings, OpenAiSettings } from '../../layers/core/wiring/model-providers';
import { LOCAL_WEBHOOK_SOURCE_IPS } from './local-config';
import { type ParsingLimits, ParsingProcess } from './parsing-process/parsing-process';

/** Local queue names; in the cloud these are SQS queues (lib/constructs/work-queue.ts). */
export const LOCAL_QUEUES = {
  syncJobs: { name: 'sync-jobs', deadLetter: 'sync-jobs-dlq' },
  webhookDeliveries: { name: 'webhook-deliveries', deadLetter: 'webhook-deliveries-dlq' },
  ingestion: { name: 'ingestion', deadLetter: 'ingestion-dlq' },
  evaluations: { name: 'eval-runs', deadLetter: 'eval-runs-dlq' },
} as const;

/**
 * The deliveries queue's redrive: above the 5 attempts of D29, so the
 * dead-letter queue only catches a dispatcher that keeps crashing.
 */
export const DELIVERY_MAX_RECEIVE_COUNT = 8;
/** How long a received delivery stays hidden while the dispatcher works on it (≥ the 10 s POST timeout). */
export const DELIVERY_VISIBILITY_TIMEOUT_SECONDS = 60;

export const queueTableName = (tableName: string) => `${tableName}-local-queues`;

export interface LocalWiringOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly masterKey: Buffer;
  readonly clock?: Clock;
  /** `SVC_ALLOW_PRIVATE_URLS`: local runs and tests only. */
  readonly allowPrivateUrls?: boolean;
  /** PEM certificates trusted beside the system's (a test CA). */
  readonly extraCaCertificates?: readonly string[];
  readonly webhookTimeoutMs?: number;
  /** The retrieval index: the embedded one, or OpenSearch when OPENSEARCH_URL is set. */
  readonly retrieval: RetrievalIndex;
  readonly openAi: OpenAiSettings | null;
  /** Issue 32: Amazon Bedrock instead (SVC_MODEL_PROVIDER=bedrock). */
  readonly bedrock?: BedrockSettings | null;
  /** Where organizations' OpenAI and Anthropic keys are used. @default the providers' own */
  readonly providerUrls?: ProviderUrls;
  /** Where uploaded files are kept (`<data dir>/blobs`); `null` keeps them in memory. */
  readonly blobDirectory: string | null;
  /** The gateway's upload address, once it listens. */
  readonly uploadUrl: () => string;
  /** Where the gateway serves presigned downloads (S3's presigned GET in the cloud). */
  readonly downloadUrl: () => string;
  /** The key session JWTs are signed with (`<data dir>/session.key`). */
  readonly sessionKey: Buffer;
  /** SMTP when `SVC_SMTP_URL` is set, else the terminal shows each mail's link. */
  readonly mailer: Mailer;
  /** Limits of the process that parses files and chunks documents. */
  readonly parsing: ParsingLimits;
  /** `SVC_CRAWL_MAX_MB`, `SVC_CRAWL_TIME_LIMIT_SECONDS`: one sync's crawl budget. */
  readonly crawlBudget?: CrawlBudget;
  /** `SVC_DNS_SERVERS`: where domain verification looks TXT records up. */
  readonly dnsServers?: readonly string[];
  /** The gateway's address (or `SVC_PUBLIC_URL`), for SSO callbacks. */
  readonly publicBaseUrl: () => string;
  /** `SVC_CONSOLE_ORIGIN`: the console's origin behind a proxy, for the CSRF origin check. */
  readonly consoleOrigin?: string;
  /** `SVC_ORIGIN_VERIFY_SECRET`: the secret a proxy in front sends; none trusts no header. */
  readonly originSecret?: string;
  /** `SVC_WEBHOOK_SOURCE_IPS`: where deliveries come from; loopback when not given. */
  readonly webhookSourceAddresses?: WebhookSourceAddresses;
  /** Issue 12: the providers' apps from settings, and their endpoints when not the real ones. */
  readonly connectorApps?: {
    readonly confluence?: OAuthApp;
    readonly google_drive?: OAuthApp;
    readonly slack?: OAuthApp;
  };
  readonly connectorEndpoints?: Partial<ConnectorEndpoints>;
}

export interface LocalWiring {
  readonly dependencies: Dependencies;
  readonly deliveryQueue: LocalQueue<DeliveryMessage>;
  readonly syncQueue: LocalQueue<SyncQueueMessage>;
  /** S3's event notifications for uploads, as the ingestion worker receives them. */
  readonly ingestionQueue: LocalQueue<S3Event>;
  /** Issue 11 item 5: evaluation runs, as the eval worker receives them. */
  readonly evaluationQueue: LocalQueue<EvaluationRunMessage>;
  readonly fileStorage: LocalFileStorage;
  /** Parses and chunks off the event loop; closed with the runtime. */
  readonly parsingProcess: ParsingProcess;
}

/** An ingestion message is re-tried this many times before it goes to the dead-letter queue. */
export const INGESTION_MAX_RECEIVE_COUNT = 5;
/** How long an upload being ingested stays hidden (a 50 MiB PDF parses and embeds in well under this). */
export const INGESTION_VISIBILITY_TIMEOUT_SECONDS = 5 * 60;

/**
 * An evaluation run asks its questions within this long before its message
 * may be received again (the cloud worker pauses itself before its 15 minutes).
 */
export const EVAL_VISIBILITY_TIMEOUT_SECONDS = 15 * 60;

/** A sync job runs within this long before its message may be received again (Lambda's 15-minute ceiling). */
export const SYNC_VISIBILITY_TIMEOUT_SECONDS = 15 * 60;

/** The local wiring: the cloud's DynamoDB adapters on dynalite, the local queue for SQS. Local runs are `test`. */
export function localDependencies(options: LocalWiringOptions): LocalWiring {
  const clock = options.clock ?? systemClock;
  const now = () => clock.now().getTime();
  const queueTable = queueTableName(options.tableName);
  const syncQueue = new LocalQueue<SyncQueueMessage>(
    options.client,
    queueTable,
    LOCAL_QUEUES.syncJobs.name,
    {
      deadLetterQueue: LOCAL_QUEUES.syncJobs.deadLetter,
      maxReceiveCount: 5,
      now,
    },
  );
  const deliveryQueue = new LocalQueue<DeliveryMessage>(
    options.client,
    queueTable,
    LOCAL_QUEUES.webhookDeliveries.name,
    {
      deadLetterQueue: LOCAL_QUEUES.webhookDeliveries.deadLetter,
      maxReceiveCount: DELIVERY_MAX_RECEIVE_COUNT,
      visibilityTimeoutSeconds: DELIVERY_VISIBILITY_TIMEOUT_SECONDS,
      now,
    },
  );
  const ingestionQueue = new LocalQueue<S3Event>(
    options.client,
    queueTable,
    LOCAL_QUEUES.ingestion.name,
    {
      deadLetterQueue: LOCAL_QUEUES.ingestion.deadLetter,
      maxReceiveCount: INGESTION_MAX_RECEIVE_COUNT,
      visibilityTimeoutSeconds: INGESTION_VISIBILITY_TIMEOUT_SECONDS,
      now,
    },
  );
  const evaluationQueue = new LocalQueue<EvaluationRunMessage>(
    options.client,
    queueTable,
    LOCAL_QUEUES.evaluations.name,
    {
      deadLetterQueue: LOCAL_QUEUES.evaluations.deadLetter,
      // The eval worker's last delivery ends the run.
      maxReceiveCount: EVAL_MAX_RECEIVE_COUNT,
      visibilityTimeoutSeconds: EVAL_VISIBILITY_TIMEOUT_SECONDS,
      now,
    },
  );
  const fileStorage = new LocalFileStorage({
    directory: options.blobDirectory,
    // Its own key, derived: the master key itself never signs anything a caller sees.
    signingKey: Buffer.from(hkdfSync('sha256', options.masterKey, '', 'local-upload-policy', 32)),
    uploadUrl: options.uploadUrl,
    downloadUrl: options.downloadUrl,
    now,
  });
  const parsingProcess = new ParsingProcess(options.parsing);
  const dependencies = buildDependencies({
    client: options.client,
    tableName: options.tableName,
    environment: 'test',
    clock,
    syncQueue,
    deliveryQueue,
    deliveryVisibility: {
      change: (receipt, seconds) => deliveryQueue.changeVisibility(receipt, seconds),
    },
    evaluationQueue,
    secretSealer: new EnvelopeSecretSealer({ localMasterKey: options.masterKey }),
    outboundPolicy: webhookPolicy({
      allowPrivateAddresses: options.allowPrivateUrls ?? false,
      ...(options.extraCaCertificates ? { extraCaCertificates: options.extraCaCertificates } : {}),
    }),
    ...(options.webhookTimeoutMs ? { webhookTimeoutMs: options.webhookTimeoutMs } : {}),
    ...(options.crawlBudget ? { crawlBudget: options.crawlBudget } : {}),
    retrieval: options.retrieval,
    openAi: options.openAi,
    bedrock: options.bedrock ?? null,
    ...(options.providerUrls ? { providerUrls: options.providerUrls } : {}),
    fileStorage,
    sessionTokens: new JoseSessionTokens(async () => options.sessionKey),
    mailer: options.mailer,
    documentWork: {
      fileParser: parsingProcess.fileParser,
      chunker: parsingProcess.chunker,
      pageParser: parsingProcess.pageParser,
    },
    ...(options.dnsServers ? { dnsServers: options.dnsServers } : {}),
    publicBaseUrl: options.publicBaseUrl,
    ...(options.consoleOrigin ? { consoleOrigin: options.consoleOrigin } : {}),
    ...(options.originSecret ? { originSecret: options.originSecret } : {}),
    webhookSourceAddresses:
      options.webhookSourceAddresses ??
      webhookSourceAddresses(LOCAL_WEBHOOK_SOURCE_IPS.split(','), null),
    connectorApps: new StaticConnectorApps(options.connectorApps ?? {}),
    // Its own key, derived inside the signer from the session key.
    oauthState: new JoseOAuthStateSigner(async () => options.sessionKey),
    ...(options.connectorEndpoints ? { connectorEndpoints: options.connectorEndpoints } : {}),
  });
  return {
    dependencies,
    deliveryQueue,
    syncQueue,
    ingestionQueue,
    evaluationQueue,
    fileStorage,
    parsingProcess,
  };
}
