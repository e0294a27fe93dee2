import type { DataSource } from '../domain/data-source';
import type { DeploymentModels } from '../domain/deployment-models';
import type { Environment } from '../domain/environments';
import type { EvaluationRunMessage } from '../domain/evaluation';
import type { WebhookSourceAddresses } from '../domain/webhook-source-addresses';
import type { AgentRepository } from './agent-repository.port';
import type { Answerer } from './answerer.port';
import type { ApiKeyRepository } from './api-key-repository.port';
import type { Clock } from './clock.port';
import type {
  ConnectionStore,
  ConnectorApps,
  OAuthStateSigner,
  ProviderOAuthClients,
} from './connector.port';
import type { DataSourceRepository } from './data-source-repository.port';
import type { DocumentChunker } from './document-chunker.port';
import type { Embedder } from './embedder.port';
import type { EvaluationRepository } from './evaluation-repository.port';
import type { FileParser } from './file-parser.port';
import type { FileStorage } from './file-storage.port';
import type { GroupGrants, GroupRepository } from './group-repository.port';
import type {
  IdentityProviderUrlRule,
  OidcRelyingParty,
  SamlMetadataReader,
  SamlServiceProvider,
} from './identity-provider.port';
import type {
  AnalyticsRollups,
  InteractionRepository,
  SessionHistory,
} from './interaction-repository.port';
import type { KbArticleRepository } from './kb-article-repository.port';
import type { Mailer } from './mailer.port';
import type {
  ModelKeyAnswererFactory,
  ModelKeyRepository,
  ModelKeyVerifier,
} from './model-key.port';
import type { OrganizationRepository } from './organization-repository.port';
import type { Outbox } from './outbox.port';
import type { PasswordResetRepository } from './password-reset.port';
import type { ConcurrencyLeases, DailyUsage, PlanQuota, RateLimiter } from './rate-limiter.port';
import type { RetrievalIndex } from './retrieval-index.port';
import type { PasswordSessionCutoffs, SessionRevocations, SessionTokens } from './session.port';
import type { SourceReader } from './source-reader.port';
import type { SamlAssertionLedger, SsoFlowStore, SsoRepository, TxtResolver } from './sso.port';
import type { MessageQueue, SyncJobQueue } from './sync-job-queue.port';
import type { UploadedFileRepository } from './uploaded-file-repository.port';
import type { UserRepository } from './user-repository.port';
import type {
  DeliveryMessage,
  DeliveryRecords,
  DeliveryRepository,
  MessageVisibility,
  SecretSealer,
  WebhookRepository,
} from './webhook-repository.port';
import type { WebhookTransport, WebhookUrlVerifier } from './webhook-transport.port';

/** Everything the use cases may need, as ports. The cloud and local wiring fill it in. */
export interface Dependencies {
  /** The environment this deployment serves. */
  readonly environment: Environment;
  readonly clock: Clock;
  readonly organizations: OrganizationRepository;
  readonly apiKeys: ApiKeyRepository;
  /** Users, and sessions: their tokens and the revoked ones. */
  readonly users: UserRepository;
  readonly sessionTokens: SessionTokens;
  readonly sessionRevocations: SessionRevocations;
  /** When `enforce_sso` ended password sessions (every HTTP family checks them). */
  readonly passwordSessionCutoffs: PasswordSessionCutoffs;
  /** Issue 9 item 5: groups, and (every HTTP family) the grants a session check reads. */
  readonly groups: GroupRepository;
  readonly groupGrants: GroupGrants;
  /** Invitations and password resets go out by mail (SES, SMTP, or logged). */
  readonly mailer: Mailer;
  /** Password resets issued and not yet used. */
  readonly passwordResets: PasswordResetRepository;
  readonly agents: AgentRepository;
  readonly dataSources: DataSourceRepository;
  readonly rateLimiter: RateLimiter;
  readonly planQuota: PlanQuota;
  /** The plan's requests/day and tokens/day. */
  readonly dailyUsage: DailyUsage;
  /** The plan's concurrent requests. */
  readonly concurrencyLeases: ConcurrencyLeases;
  readonly syncQueue: SyncJobQueue;
  readonly outbox: Outbox;
  readonly webhooks: WebhookRepository;
  readonly deliveries: DeliveryRepository;
  /** What webhook management does with deliveries (the same store, fewer operations). */
  readonly deliveryRecords: DeliveryRecords;
  readonly deliveryQueue: MessageQueue<DeliveryMessage>;
  readonly deliveryVisibility: MessageVisibility;
  readonly secretSealer: SecretSealer;
  readonly webhookTransport: WebhookTransport;
  readonly webhookUrlVerifier: WebhookUrlVerifier;
  /** How long a receiver has to answer. */
  readonly webhookTimeoutMs: number;
  readonly retrieval: RetrievalIndex;
  readonly embedder: Embedder;
  /** The answerer for an agent's model (`offline-extractive`, or the configured provider's). */
  readonly answererFor: (model: string) => Answerer;
  /** What `answererFor` can answer with: which provider, and for Bedrock its one model. */
  readonly deploymentModels: DeploymentModels;
  /** The organization's own model keys, their check at save, and answers with them. */
  readonly modelKeys: ModelKeyRepository;
  readonly modelKeyVerifier: ModelKeyVerifier;
  readonly answererForModelKey: ModelKeyAnswererFactory;
  readonly interactions: InteractionRepository;
  /** Issue 11 item 5: evaluation runs, and the queue the eval worker runs them from. */
  readonly evaluations: EvaluationRepository;
  readonly evaluationQueue: MessageQueue<EvaluationRunMessage>;
  /** knowledge-base articles and their versions. */
  readonly kbArticles: KbArticleRepository;
  readonly sessions: SessionHistory;
  readonly rollups: AnalyticsRollups;
  /** How a data source's documents are read during a sync. */
  readonly readerFor: (source: DataSource, orgId: string) => SourceReader;
  /** Uploaded files' records, their bytes, and how they are read. */
  readonly files: UploadedFileRepository;
  readonly fileStorage: FileStorage;
  readonly fileParser: FileParser;
  /** Cuts parsed documents into chunks (in a parsing process on one machine). */
  readonly chunker: DocumentChunker;
  /** SSO configurations and verified domains, sign-ins in progress, DNS TXT look-ups. */
  readonly ssoRepository: SsoRepository;
  readonly ssoFlows: SsoFlowStore;
  readonly txtResolver: TxtResolver;
  readonly oidcRelyingParty: OidcRelyingParty;
  /** Which identity provider addresses an organization may set. */
  readonly identityProviderUrls: IdentityProviderUrlRule;
  /** SAML 2.0: the service provider, and the assertions already accepted (replays). */
  readonly samlServiceProvider: SamlServiceProvider;
  /** Reads an IdP's SAML metadata, pasted or fetched under the SSRF guard. */
  readonly samlMetadata: SamlMetadataReader;
  readonly samlAssertions: SamlAssertionLedger;
  /**
   * The API's public address for links back to it (SSO callbacks):
   * the local gateway's, or the configured one; undefined: as API Gateway
   * reports it per request.
   */
  readonly publicBaseUrl: () => string | undefined;
  /**
   * The web console's public origin when it is not the API's own (the
   * CloudFront distribution in front of API Gateway): a signed-in change
   * whose `Origin` is this one passes the CSRF origin check.
   */
  readonly consoleOrigin: string | undefined;
  /**
   * The secret the console's distribution sends in `X-Svc-Origin-Verify`;
   * a request carrying it is judged by the viewer address CloudFront wrote.
   * Undefined where no trusted proxy is in front: no header moves an address.
   */
  readonly originSecret: (() => Promise<string>) | undefined;
  /**
   * Where webhook deliveries come from, published at `GET
   * /api/v1/webhooks/source-ips`: the NAT gateways' Elastic IPs in the
   * cloud, a setting on one machine, or why there are none.
   */
  readonly webhookSourceAddresses: WebhookSourceAddresses;
  /** Issue 12: connector sign-ins and grants (on the data source items), the providers' apps and OAuth clients. */
  readonly connections: ConnectionStore;
  readonly connectorApps: ConnectorApps;
  readonly oauthClients: ProviderOAuthClients;
  /** Signs and checks the connector sign-in's `state`. */
  readonly oauthState: OAuthStateSigner;
}
