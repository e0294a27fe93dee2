import type { DataSource } from '../domain/data-source';
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
  /** D10: the environment this deployment serves. */
  readonly environment: Environment;
  readonly clock: Clock;
  readonly organizations: OrganizationRepository;
  readonly apiKeys: ApiKeyRepository;
  /** D13 users, and D12 sessions: their tokens and the revoked ones. */
  readonly users: UserRepository;
  readonly sessionTokens: SessionTokens;
  readonly sessionRevocations: SessionRevocations;
  /** P223: when `enforce_sso` ended password sessions (every HTTP family checks them). */
  readonly passwordSessionCutoffs: PasswordSessionCutoffs;
  /** Issue 9 item 5: groups, and (every HTTP family, P83) the grants a session check reads. */
  readonly groups: GroupRepository;
  readonly groupGrants: GroupGrants;
  /** P264: invitations and password resets go out by mail (SES, SMTP, or logged, P265). */
  readonly mailer: Mailer;
  /** P266: password resets issued and not yet used. */
  readonly passwordResets: PasswordResetRepository;
  readonly agents: AgentRepository;
  readonly dataSources: DataSourceRepository;
  readonly rateLimiter: RateLimiter;
  readonly planQuota: PlanQuota;
  /** D16: the plan's requests/day and tokens/day. */
  readonly dailyUsage: DailyUsage;
  /** D16: the plan's concurrent requests. */
  readonly concurrencyLeases: ConcurrencyLeases;
  readonly syncQueue: SyncJobQueue;
  readonly outbox: Outbox;
  readonly webhooks: WebhookRepository;
  readonly deliveries: DeliveryRepository;
  /** P301: what webhook management does with deliveries (the same store, fewer operations). */
  readonly deliveryRecords: DeliveryRecords;
  readonly deliveryQueue: MessageQueue<DeliveryMessage>;
  readonly deliveryVisibility: MessageVisibility;
  readonly secretSealer: SecretSealer;
  readonly webhookTransport: WebhookTransport;
  readonly webhookUrlVerifier: WebhookUrlVerifier;
  /** D29: how long a receiver has to answer. */
  readonly webhookTimeoutMs: number;
  readonly retrieval: RetrievalIndex;
  readonly embedder: Embedder;
  /** D20: the answerer for an agent's model (`offline-extractive`, or the configured provider's). */
  readonly answererFor: (model: string) => Answerer;
  /** D33: the organization's own model keys, their check at save, and answers with them. */
  readonly modelKeys: ModelKeyRepository;
  readonly modelKeyVerifier: ModelKeyVerifier;
  readonly answererForModelKey: ModelKeyAnswererFactory;
  readonly interactions: InteractionRepository;
  /** Issue 11 item 5: evaluation runs, and the queue the eval worker runs them from. */
  readonly evaluations: EvaluationRepository;
  readonly evaluationQueue: MessageQueue<EvaluationRunMessage>;
  /** D32: knowledge-base articles and their versions. */
  readonly kbArticles: KbArticleRepository;
  readonly sessions: SessionHistory;
  readonly rollups: AnalyticsRollups;
  /** How a data source's documents are read during a sync. */
  readonly readerFor: (source: DataSource, orgId: string) => SourceReader;
  /** D25: uploaded files' records, their bytes, and how they are read. */
  readonly files: UploadedFileRepository;
  readonly fileStorage: FileStorage;
  readonly fileParser: FileParser;
  /** Cuts parsed documents into chunks (P69: in a parsing process on one machine). */
  readonly chunker: DocumentChunker;
  /** D14: SSO configurations and verified domains, sign-ins in progress, DNS TXT look-ups. */
  readonly ssoRepository: SsoRepository;
  readonly ssoFlows: SsoFlowStore;
  readonly txtResolver: TxtResolver;
  readonly oidcRelyingParty: OidcRelyingParty;
  /** P220: which identity provider addresses an organization may set. */
  readonly identityProviderUrls: IdentityProviderUrlRule;
  /** D14 SAML 2.0: the service provider, and the assertions already accepted (replays). */
  readonly samlServiceProvider: SamlServiceProvider;
  /** P272: reads an IdP's SAML metadata, pasted or fetched under D35. */
  readonly samlMetadata: SamlMetadataReader;
  readonly samlAssertions: SamlAssertionLedger;
  /**
   * The API's public address for links back to it (SSO callbacks, P91):
   * the local gateway's, or the configured one; undefined: as API Gateway
   * reports it per request.
   */
  readonly publicBaseUrl: () => string | undefined;
  /**
   * P236: the web console's public origin when it is not the API's own (the
   * CloudFront distribution in front of API Gateway): a signed-in change
   * whose `Origin` is this one passes the CSRF origin check (D12, P66).
   */
  readonly consoleOrigin: string | undefined;
  /**
   * P242: the secret the console's distribution sends in `X-Svc-Origin-Verify`;
   * a request carrying it is judged by the viewer address CloudFront wrote.
   * Undefined where no trusted proxy is in front: no header moves an address.
   */
  readonly originSecret: (() => Promise<string>) | undefined;
  /**
   * P240: where webhook deliveries come from, published at `GET
   * /api/v1/webhooks/source-ips`: the NAT gateways' Elastic IPs in the
   * cloud, a setting on one machine, or why there are none.
   */
  readonly webhookSourceAddresses: WebhookSourceAddresses;
  /** Issue 12: connector sign-ins and grants (on the data source items), the providers' apps and OAuth clients. */
  readonly connections: ConnectionStore;
  readonly connectorApps: ConnectorApps;
  readonly oauthClients: ProviderOAuthClients;
  /** P146: signs and checks the connector sign-in's `state`. */
  readonly oauthState: OAuthStateSigner;
}
