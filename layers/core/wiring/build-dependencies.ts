import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { HttpModelKeyVerifier } from '../adapters/ai/model-key-verifier';
import { HOSTED_PROVIDER_URLS, type ProviderUrls } from '../adapters/ai/provider-urls';
import { type ConnectorEndpoints, connectors } from '../adapters/connectors/connectors';
import type { PageParser } from '../adapters/crawler/website-crawler';
import type { CrawlBudget } from '../adapters/crawler/website-source-reader';
import { DynamoDbAgentRepository } from '../adapters/dynamodb/agent-repository';
import { DynamoDbAnalyticsRollups } from '../adapters/dynamodb/analytics-rollups';
import { DynamoDbApiKeyRepository } from '../adapters/dynamodb/api-key-repository';
import { DynamoDbConcurrencyLeases } from '../adapters/dynamodb/concurrency-leases';
import { DynamoDbConnectionStore } from '../adapters/dynamodb/connection-store';
import { DynamoDbDailyUsage } from '../adapters/dynamodb/daily-usage';
import { DynamoDbDataSourceRepository } from '../adapters/dynamodb/data-source-repository';
import { DynamoDbDeliveryRepository } from '../adapters/dynamodb/delivery-repository';
import { DynamoDbEvaluationRepository } from '../adapters/dynamodb/evaluation-repository';
import { DynamoDbGroupRepository } from '../adapters/dynamodb/group-repository';
import {
  DynamoDbInteractionRepository,
  DynamoDbSessionHistory,
} from '../adapters/dynamodb/interaction-repository';
import { DynamoDbKbArticleRepository } from '../adapters/dynamodb/kb-article-repository';
import { DynamoDbModelKeyRepository } from '../adapters/dynamodb/model-key-repository';
import { DynamoDbOrganizationRepository } from '../adapters/dynamodb/organization-repository';
import { DynamoDbOutbox } from '../adapters/dynamodb/outbox';
import { DynamoDbPasswordResetRepository } from '../adapters/dynamodb/password-reset-repository';
import { DynamoDbPasswordSessionCutoffs } from '../adapters/dynamodb/password-session-cutoffs';
import { DynamoDbPlanQuota, DynamoDbRateLimiter } from '../adapters/dynamodb/rate-limiter';
import { DynamoDbSessionRevocations } from '../adapters/dynamodb/session-revocations';
import { DynamoDbSamlAssertionLedger, DynamoDbSsoFlowStore } from '../adapters/dynamodb/sso-flows';
import { DynamoDbSsoRepository } from '../adapters/dynamodb/sso-repository';
import { DynamoDbUploadedFileRepository } from '../adapters/dynamodb/uploaded-file-repository';
import { DynamoDbUserRepository } from '../adapters/dynamodb/user-repository';
import { DynamoDbWebhookRepository } from '../adapters/dynamodb/webhook-repository';
import { DnsTxtResolver } from '../adapters/net/dns-txt-resolver';
import {
  HttpWebhookTransport,
  TlsWebhookUrlVerifier,
} from '../adapters/net/http-webhook-transport';
import { identityProviderUrlRule } from '../adapters/net/identity-provider-urls';
import type { OutboundPolicy } from '../adapters/net/outbound-policy';
import { uploadedFileParser } from '../adapters/parsing/file-parser';
import { inProcessChunker } from '../adapters/parsing/in-process-chunker';
import { JoseOidcRelyingParty } from '../adapters/sso/jose-oidc-relying-party';
import { NodeSamlServiceProvider } from '../adapters/sso/node-saml-service-provider';
import { XmlSamlMetadataReader } from '../adapters/sso/xml-saml-metadata-reader';
import type { Environment } from '../domain/environments';
import type { EvaluationRunMessage } from '../domain/evaluation';
import { WEBHOOK_TIMEOUT_MS } from '../domain/webhook';
import type { WebhookSourceAddresses } from '../domain/webhook-source-addresses';
import { type Clock, systemClock } from '../ports/clock.port';
import type { ConnectorApps, OAuthStateSigner } from '../ports/connector.port';
import type { Dependencies } from '../ports/dependencies.port';
import type { DocumentChunker } from '../ports/document-chunker.port';
import type { FileParser } from '../ports/file-parser.port';
import type { FileStorage } from '../ports/file-storage.port';
import type { Mailer } from '../ports/mailer.port';
import type { RetrievalIndex } from '../ports/retrieval-index.port';
import type { SessionTokens } from '../ports/session.port';
import type { MessageQueue, SyncJobQueue } from '../ports/sync-job-queue.port';
import type {
  DeliveryMessage,
  MessageVisibility,
  SecretSealer,
} from '../ports/webhook-repository.port';
import { modelKeyAnswerers } from './model-key-answerers';
import { type BedrockSettings, modelProviders, type OpenAiSettings } from './model-providers';
import { sourceReaders } from './source-readers';

/**
 * Every adapter at once, for the local runtime, which runs every function
 * in one process (lib/local/local-dependencies.ts picks the local queues,
 * keyring, storage and index): the DynamoDB adapters the cloud functions use
 * too, pointed at dynalite, and the same outbound HTTP under the runtime's
 * address policy. In the cloud each function composes only its own
 * (functions/<family>/wiring.ts).
 */
export function buildDependencies(options: {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly environment: Environment;
  readonly syncQueue: SyncJobQueue;
  readonly deliveryQueue: MessageQueue<DeliveryMessage>;
  readonly deliveryVisibility: MessageVisibility;
  /** Issue 11 item 5: where evaluation runs wait for the eval worker. */
  readonly evaluationQueue: MessageQueue<EvaluationRunMessage>;
  readonly secretSealer: SecretSealer;
  readonly outboundPolicy: OutboundPolicy;
  readonly webhookTimeoutMs?: number;
  /** One sync's crawl budget (`SVC_CRAWL_*` on one machine); the crawler's defaults if not given. */
  readonly crawlBudget?: CrawlBudget;
  readonly clock?: Clock;
  readonly retrieval: RetrievalIndex;
  readonly openAi: OpenAiSettings | null;
  /** Issue 32: Amazon Bedrock instead of OpenAI and the offline models. */
  readonly bedrock?: BedrockSettings | null;
  /** Where organizations' OpenAI and Anthropic keys are used. @default the providers' own */
  readonly providerUrls?: ProviderUrls;
  /** S3 in the cloud, the local blob store on one machine. */
  readonly fileStorage: FileStorage;
  /** Session JWTs under the runtime's signing key. */
  readonly sessionTokens: SessionTokens;
  /** How invitations and password resets are mailed (SMTP, or printed, on one machine). */
  readonly mailer: Mailer;
  /**
   * Where files and crawled pages are parsed and documents chunked: in this
   * process unless given (the local runtime gives its parsing process).
   */
  readonly documentWork?: {
    readonly fileParser: FileParser;
    readonly chunker: DocumentChunker;
    readonly pageParser?: PageParser;
  };
  /** The DNS servers domain verification asks (`host[:port]`); the system's when empty. */
  readonly dnsServers?: readonly string[];
  /** The API's public address (the local gateway's, once it listens). */
  readonly publicBaseUrl?: () => string | undefined;
  /** The console's origin when a proxy serves it on another origin than the API's. */
  readonly consoleOrigin?: string;
  /** The secret a trusted proxy in front sends (`X-Svc-Origin-Verify`); none trusts no header. */
  readonly originSecret?: string;
  /** Where webhook deliveries come from (`SVC_WEBHOOK_SOURCE_IPS` on one machine). */
  readonly webhookSourceAddresses: WebhookSourceAddresses;
  /** Issue 12: the providers' apps (settings on one machine), the state signer, the providers' endpoints. */
  readonly connectorApps: ConnectorApps;
  readonly oauthState: OAuthStateSigner;
  readonly connectorEndpoints?: Partial<ConnectorEndpoints>;
}): Dependencies {
  const { client, tableName } = options;
  const models = modelProviders(options.openAi, options.bedrock ?? null);
  const files = new DynamoDbUploadedFileRepository(client, tableName);
  const clock = options.clock ?? systemClock;
  const { fileParser, chunker, pageParser } = options.documentWork ?? {
    fileParser: uploadedFileParser,
    chunker: inProcessChunker,
  };
  const groups = new DynamoDbGroupRepository(client, tableName);
  const connections = new DynamoDbConnectionStore(client, tableName);
  // Provider endpoints under the runtime's policy (https only unless private addresses are allowed).
  const builtConnectors = connectors({
    policy: options.outboundPolicy,
    clock,
    fileParser,
    ...(options.connectorEndpoints ? { endpoints: options.connectorEndpoints } : {}),
  });
  const kbArticles = new DynamoDbKbArticleRepository(client, tableName);
  const deliveries = new DynamoDbDeliveryRepository(client, tableName);
  return {
    environment: options.environment,
    clock,
    organizations: new DynamoDbOrganizationRepository(client, tableName),
    apiKeys: new DynamoDbApiKeyRepository(client, tableName),
    users: new DynamoDbUserRepository(client, tableName),
    sessionTokens: options.sessionTokens,
    sessionRevocations: new DynamoDbSessionRevocations(client, tableName),
    passwordSessionCutoffs: new DynamoDbPasswordSessionCutoffs(client, tableName, clock),
    groups,
    groupGrants: groups,
    mailer: options.mailer,
    passwordResets: new DynamoDbPasswordResetRepository(client, tableName),
    agents: new DynamoDbAgentRepository(client, tableName),
    dataSources: new DynamoDbDataSourceRepository(client, tableName),
    rateLimiter: new DynamoDbRateLimiter(client, tableName),
    planQuota: new DynamoDbPlanQuota(client, tableName),
    dailyUsage: new DynamoDbDailyUsage(client, tableName),
    concurrencyLeases: new DynamoDbConcurrencyLeases(client, tableName),
    syncQueue: options.syncQueue,
    outbox: new DynamoDbOutbox(client, tableName),
    webhooks: new DynamoDbWebhookRepository(client, tableName),
    deliveries,
    deliveryRecords: deliveries,
    deliveryQueue: options.deliveryQueue,
    deliveryVisibility: options.deliveryVisibility,
    secretSealer: options.secretSealer,
    webhookTransport: new HttpWebhookTransport(options.outboundPolicy),
    webhookUrlVerifier: new TlsWebhookUrlVerifier(options.outboundPolicy),
    webhookTimeoutMs: options.webhookTimeoutMs ?? WEBHOOK_TIMEOUT_MS,
    retrieval: options.retrieval,
    embedder: models.embedder,
    answererFor: models.answererFor,
    deploymentModels: models.deployment,
    // Customer endpoints are customer input: the runtime's D35 policy, as for webhooks.
    modelKeys: new DynamoDbModelKeyRepository(client, tableName),
    modelKeyVerifier: new HttpModelKeyVerifier(
      options.outboundPolicy,
      options.providerUrls ?? HOSTED_PROVIDER_URLS,
    ),
    answererForModelKey: modelKeyAnswerers({
      policy: options.outboundPolicy,
      urls: options.providerUrls ?? HOSTED_PROVIDER_URLS,
    }),
    interactions: new DynamoDbInteractionRepository(client, tableName),
    evaluations: new DynamoDbEvaluationRepository(client, tableName),
    evaluationQueue: options.evaluationQueue,
    sessions: new DynamoDbSessionHistory(client, tableName),
    rollups: new DynamoDbAnalyticsRollups(client, tableName),
    readerFor: sourceReaders({
      outboundPolicy: options.outboundPolicy,
      files,
      fileStorage: options.fileStorage,
      fileParser,
      connectors: {
        built: builtConnectors,
        grants: {
          connections,
          secretSealer: options.secretSealer,
          connectorApps: options.connectorApps,
          clock,
        },
      },
      kbArticles,
      ...(options.crawlBudget ? { crawlBudget: options.crawlBudget } : {}),
      ...(pageParser ? { pageParser } : {}),
    }),
    kbArticles,
    files,
    fileStorage: options.fileStorage,
    fileParser,
    chunker,
    ssoRepository: new DynamoDbSsoRepository(client, tableName),
    ssoFlows: new DynamoDbSsoFlowStore(client, tableName),
    txtResolver: new DnsTxtResolver(options.dnsServers ? { servers: options.dnsServers } : {}),
    // Identity providers are customer-supplied addresses: the runtime's D35 policy, as for webhooks.
    oidcRelyingParty: new JoseOidcRelyingParty(options.outboundPolicy, clock),
    identityProviderUrls: identityProviderUrlRule(options.outboundPolicy),
    samlServiceProvider: new NodeSamlServiceProvider(),
    samlMetadata: new XmlSamlMetadataReader(options.outboundPolicy),
    samlAssertions: new DynamoDbSamlAssertionLedger(client, tableName),
    publicBaseUrl: options.publicBaseUrl ?? (() => undefined),
    consoleOrigin: options.consoleOrigin,
    originSecret: originSecretOf(options.originSecret),
    webhookSourceAddresses: options.webhookSourceAddresses,
    connections,
    connectorApps: options.connectorApps,
    oauthClients: builtConnectors.oauth,
    oauthState: options.oauthState,
  };
}

/** A configured secret as the getter the clientAddress middleware asks; none, nothing trusted. */
function originSecretOf(secret: string | undefined): (() => Promise<string>) | undefined {
  return secret ? async () => secret : undefined;
}
