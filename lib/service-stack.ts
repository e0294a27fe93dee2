import * as path from 'node:path';
import {
  type CfnElement,
  CfnOutput,
  Duration,
  NestedStack,
  RemovalPolicy,
  Stack,
  type StackProps,
  Tags,
  Validations,
} from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3n from 'aws-cdk-lib/aws-s3-notifications';
import type { Construct } from 'constructs';
import { bedrockEmbedderIdentity } from '../layers/core/adapters/ai/bedrock-models';
import { OfflineHashEmbedder } from '../layers/core/adapters/ai/offline-embedder';
import { openAiEmbedderIdentity } from '../layers/core/adapters/ai/openai-embedder';
import { TABLE_KEYS } from '../layers/core/adapters/dynamodb/table-design';
import {
  DEFAULT_INDEX_PREFIX,
  DEFINITION_VERSION,
} from '../layers/core/adapters/opensearch/index-definition';
import type { CloudConfigKey } from '../layers/core/config';
import { connectorTokenContext } from '../layers/core/domain/connector';
import { EVAL_MAX_RECEIVE_COUNT } from '../layers/core/domain/evaluation';
import { modelKeySealingContext } from '../layers/core/domain/model-key';
import { ROUTES } from '../layers/core/http/routes/route-table';
import { clientSecretContext } from '../layers/core/use-cases/sso/sso-configuration';
import { secretContext } from '../layers/core/use-cases/webhooks/signed-request';
import { Alarms, DURATION_ALARM_RATIO } from './constructs/alarms';
import { ApiFirewall } from './constructs/api-firewall';
import { BedrockModelAccess } from './constructs/bedrock-model-access';
import { ConnectorApps } from './constructs/connector-apps';
import { ConsoleHosting } from './constructs/console-hosting';
import { DataStore } from './constructs/data-store';
import { EncryptionKey } from './constructs/encryption-key';
import { FileStore } from './constructs/file-store';
import { HttpApi } from './constructs/http-api';
import { MailSender } from './constructs/mail-sender';
import { ModelProvider } from './constructs/model-provider';
import { OriginVerifySecret } from './constructs/origin-verify-secret';
import { OutboxPublisher } from './constructs/outbox-publisher';
import { QueueWorker, VISIBILITY_TO_TIMEOUT_RATIO } from './constructs/queue-worker';
import { SearchDomain } from './constructs/search-domain';
import { type IndexedEmbedder, SearchIndexBootstrap } from './constructs/search-index-bootstrap';
import { SecretsKey } from './constructs/secrets-key';
import {
  type ServiceFunction,
  type ServiceFunctionNetworkProps,
  SOURCE_MAPS_CONTEXT,
} from './constructs/service-function';
import { ServiceNetwork } from './constructs/service-network';
import { SessionSigningSecret } from './constructs/session-signing-secret';
import { SyncScheduler } from './constructs/sync-scheduler';
import { WorkQueue } from './constructs/work-queue';
import {
  type BedrockDeploymentSettings,
  type DeploymentSettings,
  ENVIRONMENT_DEFAULTS,
  type ModelProviderSettings,
  VPC_AVAILABILITY_ZONES,
} from './deployment-settings';

export interface ServiceStackProps extends StackProps {
  /** Parsed CDK context (lib/deployment-settings.ts). */
  readonly settings: DeploymentSettings;
  /**
   * The built web console (index.html and hashed files under assets/),
   * which bin/app.ts builds first when it is missing (consoleAssetsDirectory).
   * @default the repository's web/dist
   */
  readonly consoleAssetsDirectory?: string;
}

/** The repository's web/dist, where `node web/build.mjs` writes the console. */
const DEFAULT_CONSOLE_DIRECTORY = path.resolve(__dirname, '..', 'web', 'dist');

/**
 * The families that send to the sync queue: data-sources (sync jobs, POST
 * …/sync and legacy …/process; index purges, P45) and kb (published article
 * changes for the sync worker to index, P119).
 */
export const SYNC_QUEUE_WRITERS: readonly string[] = ['data-sources', 'kb'];

/** The family that presigns uploads and deletes uploaded files (D25: …/data-sources/:id/files). */
export const FILE_UPLOADER = 'data-sources';

/**
 * The family that manages webhooks (D30): it seals new secrets, opens them
 * to sign the test event, and re-queues a delivery retried by hand.
 */
export const WEBHOOK_MANAGER = 'webhooks';

/** The encryption-context purpose of webhook signing secrets (D33), from the code that seals them. */
export const WEBHOOK_SECRET_PURPOSE = secretContext('', '').purpose;

/**
 * How long the webhooks family may run: creating a webhook resolves its
 * host and checks its certificate (5 s each at most), the test event waits
 * up to 10 s for the receiver (D29). Under API Gateway's 29 s.
 */
export const WEBHOOK_MANAGER_TIMEOUT = Duration.seconds(25);

/**
 * How long one dispatcher batch may run: its deliveries go out in parallel,
 * each POST given 10 s (D29), plus the KMS and DynamoDB calls around it.
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
 * A delivery's five attempts (D29: 0 s, 5 s, 30 s, 5 min, 1 h) span about
 * 66 minutes; a message older than this is stuck beyond the schedule.
 */
export const WEBHOOK_DELIVERY_MAX_AGE = Duration.hours(2);

/**
 * The family that configures SSO and signs people in through identity
 * providers (D14): it seals and opens OIDC client secrets (D33).
 */
export const SSO_FAMILY = 'sso';

/** The encryption-context purpose of OIDC client secrets (D33), from the code that seals them. */
export const SSO_SECRET_PURPOSE = clientSecretContext('').purpose;

/** Issue 12: the family that signs connectors in (D26) and revokes their grants; it seals tokens. */
export const CONNECTIONS_FAMILY = 'connections';

/** The encryption-context purpose of connector OAuth tokens (D33), from the code that seals them. */
export const CONNECTOR_TOKEN_PURPOSE = connectorTokenContext('', '').purpose ?? '';
/** The family that registers organizations' model keys (D33): it seals them. */
export const MODEL_KEY_MANAGER = 'model-keys';

/** The encryption-context purpose of model keys (D33), from the code that seals them. */
export const MODEL_KEY_PURPOSE = modelKeySealingContext('', '').purpose;

/** Issue 11 item 5: the family that starts evaluations: it queues their runs. */
export const EVAL_STARTER = 'evals';

/** The family that answers queries (POST /api/v1/query, legacy /api/chat), streamed (D19). */
export const QUERY_FAMILY = 'query';

/**
 * How long a query may run, streamed or not: its routes use API Gateway's
 * response streaming, whose integration may wait longer than the 29 s of a
 * buffered response (up to 15 minutes; the integration is given this same
 * timeout). A minute covers retrieval (10 s OpenSearch requests) and a model
 * writing a long answer; the stream carries keep-alive comments every 15 s,
 * well inside API Gateway's 5-minute idle timeout for regional APIs.
 */
export const QUERY_TIMEOUT = Duration.seconds(60);

/**
 * The families whose use cases read or write the OpenSearch chunk index:
 * query and semantic search retrieve. They are granted the domain, and run
 * in the VPC when the domain is in one (P50). The sync and ingestion
 * workers and the index bootstrap are granted (and placed) too; nobody else
 * is. data-sources no longer deletes chunks itself: the sync worker does (P45).
 */
export const RETRIEVAL_FAMILIES: readonly string[] = [QUERY_FAMILY, 'search'];

/** P264, P265: the families that send mail: users (invitations) and auth (password resets). */
export const MAIL_FAMILIES: readonly string[] = ['users', 'auth'];

/**
 * The buffered retrieval families' timeout: an OpenSearch request may take
 * 10 s and is retried once (layers/core/wiring/cloud/cloud-retrieval.ts), so the
 * function must outlive both to answer an outage with its 503 (D5) rather
 * than be cut off. Under API Gateway's 29 s.
 */
export const RETRIEVAL_TIMEOUT = Duration.seconds(25);

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

/**
 * One uploaded file per invocation (D25): reading up to 50 MiB from S3,
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

/** Where uploads go in the bucket (layers/core/domain/uploaded-file.ts `fileObjectKey`). */
export const UPLOAD_PREFIX = 'files/';

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

/** Receives of a sync message before redrive, as in the local runtime (lib/local/local-dependencies.ts). */
export const SYNC_MAX_RECEIVE_COUNT = 5;

/**
 * D23: how often the scheduler looks for scheduled data sources that are
 * due, so the most a scheduled sync starts late (P40). The local runtime's
 * default (SVC_SCHEDULER_INTERVAL_MS) is a minute.
 */
export const SYNC_SCHEDULE_INTERVAL = Duration.minutes(5);

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
 * The embedders the cloud functions may embed with, one chunk index each:
 * the offline embedder always (agents made before a provider was set keep
 * their index), and OpenAI's when the deployment names a model provider
 * (P55), or Bedrock's with `modelProvider=bedrock` (issue 32), which the
 * wiring then embeds with.
 */
export function cloudEmbedders(
  modelProvider: ModelProviderSettings | undefined,
  bedrock?: BedrockDeploymentSettings,
): IndexedEmbedder[] {
  const offline = new OfflineHashEmbedder();
  const embedders: IndexedEmbedder[] = [{ id: offline.id, dimensions: offline.dimensions }];
  if (modelProvider) embedders.push(openAiEmbedderIdentity());
  if (bedrock) {
    embedders.push(
      bedrockEmbedderIdentity({
        model: bedrock.embeddingModel,
        ...(bedrock.embeddingDimensions === undefined
          ? {}
          : { dimensions: bedrock.embeddingDimensions }),
      }),
    );
  }
  return embedders;
}

/**
 * The families that call the model provider: query answers and embeds the
 * question, search embeds it. With the sync and ingestion workers (which
 * embed chunks) they are the only functions that may read its key (P55).
 */
export const MODEL_FAMILIES: readonly string[] = [QUERY_FAMILY, 'search'];

/** The model provider's settings: set only on the functions that call a model (ModelProvider, P55). */
type ModelConfigKey =
  | 'MODEL_API_KEY_SECRET'
  | 'OPENAI_BASE_URL'
  | 'MODEL_API_KEY_MAX_AGE_SECONDS'
  | 'MODEL_PROVIDER'
  | 'BEDROCK_ANSWER_MODEL'
  | 'BEDROCK_EMBEDDING_MODEL'
  | 'BEDROCK_EMBEDDING_DIMENSIONS';
/** The session secret's settings: set only on the functions that check sessions (SessionSigningSecret, P64). */
type SessionConfigKey = 'SESSION_SECRET_ARN' | 'SESSION_SECRET_MAX_AGE_SECONDS';
/** SSO's optional settings: the public address (custom domain) on the sso function only (P91). */
type SsoConfigKey = 'SVC_PUBLIC_URL' | 'SVC_DNS_SERVERS';
/** P236: the console's origin, on the HTTP families only (their CSRF origin check). */
type ConsoleConfigKey = 'SVC_CONSOLE_ORIGIN';
/** P242: the distribution's origin secret, on the HTTP families only (OriginVerifySecret). */
type OriginVerifyConfigKey = 'ORIGIN_VERIFY_SECRET_ARN' | 'ORIGIN_VERIFY_MAX_AGE_SECONDS';
/** P240: the published delivery addresses, on the webhooks family only, and only with the VPC. */
type WebhookSourceConfigKey = 'SVC_WEBHOOK_SOURCE_IPS' | 'SVC_WEBHOOK_SOURCE_IPS_CHANGED_AT';
/** P265: the SES identity and From address, on the families that mail only (MailSender). */
type MailConfigKey = 'SVC_SES_IDENTITY_ARN' | 'SVC_MAIL_FROM';
/** Issue 12 (P150): the providers' apps secret, on the connections family and the sync worker only. */
type ConnectorConfigKey = 'CONNECTOR_APPS_SECRET_ARN' | 'CONNECTOR_APPS_MAX_AGE_SECONDS';
/**
 * The environment every function that builds dependencies gets: the names
 * of the stack's resources, each key layers/core/config.ts parses (a
 * function parses only the parts it uses; AWS_REGION comes from Lambda
 * itself). Names, not secrets, so every function may see them all.
 */
export type FunctionConfig = {
  readonly [K in Exclude<
    CloudConfigKey,
    | 'AWS_REGION'
    | ModelConfigKey
    | SessionConfigKey
    | SsoConfigKey
    | ConnectorConfigKey
    | ConsoleConfigKey
    | OriginVerifyConfigKey
    | WebhookSourceConfigKey
    | MailConfigKey
  >]: string;
};

type QueueName = 'syncJobs' | 'ingestion' | 'webhookDeliveries' | 'evaluations';

/**
 * The whole service in one stack: keys, table, queues, file bucket, search
 * domain and its index bootstrap, session secret, the HTTP API with its
 * functions (the query family streaming) and firewall, the sync worker
 * and the ingestion worker fed by the bucket's upload events (issue 3), the
 * event publisher and webhook dispatcher (issue 4), the sync scheduler
 * (D23), and alarms.
 */
export class ServiceStack extends Stack {
  readonly settings: DeploymentSettings;
  /** The VPC of the search domain and the functions that reach it (`searchNetwork` `vpc`, P50). */
  readonly network: ServiceNetwork | undefined;
  readonly encryptionKey: EncryptionKey;
  readonly secretsKey: SecretsKey;
  readonly uploadEventsKey: EncryptionKey;
  readonly data: DataStore;
  readonly queues: Readonly<Record<QueueName, WorkQueue>>;
  readonly files: FileStore;
  readonly search: SearchDomain;
  readonly searchIndexes: SearchIndexBootstrap;
  readonly sessionSecret: SessionSigningSecret;
  /** P242: proves a request came through the console's distribution, so its viewer address holds. */
  readonly originVerify: OriginVerifySecret;
  /** The model provider's key (`modelApiKeySecret`, P55); without it the offline models run. */
  readonly models: ModelProvider | undefined;
  /** Issue 32: Amazon Bedrock's models, invoked with the functions' roles (`modelProvider=bedrock`). */
  readonly bedrock: BedrockModelAccess | undefined;
  /** Issue 12: the connector providers' apps secret, when configured (P150). */
  readonly connectorApps: ConnectorApps | undefined;
  /** P265: the SES identity invitations and password resets are mailed from (`sesIdentity`). */
  readonly mail: MailSender | undefined;
  readonly http: HttpApi;
  /** Issue 21: the web console and, on `/api/*` of its origin, the API (P235). */
  readonly console: ConsoleHosting;
  readonly syncWorker: QueueWorker;
  readonly ingestionWorker: QueueWorker;
  /** Issue 11 item 5: runs evaluations through the query use case. */
  readonly evalWorker: QueueWorker;
  readonly webhookDispatcher: QueueWorker;
  readonly eventPublisher: OutboxPublisher;
  readonly syncScheduler: SyncScheduler;
  readonly alarms: Alarms;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const { settings } = props;
    this.settings = settings;
    // Read by every ServiceFunction below (P54); set before any is made.
    this.node.setContext(SOURCE_MAPS_CONTEXT, settings.functionSourceMaps);
    const live = settings.environment === 'live';
    // Live data outlives the stack, and so do the keys it is encrypted with.
    // A test deployment is torn down whole: every store goes with the keys
    // (buckets emptied first), so nothing is left that no key can read.
    const statefulRemoval = live ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    const prefix = `agent-query-service-${settings.environment}`;

    Tags.of(this).add('service', 'agent-query-service');
    Tags.of(this).add('environment', settings.environment);

    this.encryptionKey = new EncryptionKey(this, 'Encryption', {
      alias: prefix,
      removalPolicy: statefulRemoval,
      pendingWindowDays: live ? 30 : 7,
    });
    const { key } = this.encryptionKey;
    this.secretsKey = new SecretsKey(this, 'Secrets', {
      alias: `${prefix}-secrets`,
      removalPolicy: statefulRemoval,
      pendingWindowDays: live ? 30 : 7,
    });

    this.data = new DataStore(this, 'Data', {
      encryptionKey: key,
      removalPolicy: statefulRemoval,
      deletionProtection: live,
      // The event publisher reads new images with a pending outbox.
      stream: dynamodb.StreamViewType.NEW_IMAGE,
    });

    // The upload-event queue's own key: S3 may only send to it if the key's
    // policy names the bucket, and the bucket is encrypted with the main key,
    // so sharing that key would make the two depend on each other.
    this.uploadEventsKey = new EncryptionKey(this, 'UploadEventsEncryption', {
      alias: `${prefix}-upload-events`,
      description: 'Agent Query Service: encryption at rest for the upload events queue (D25)',
      removalPolicy: statefulRemoval,
      pendingWindowDays: live ? 30 : 7,
    });
    this.queues = this.createQueues();

    this.files = new FileStore(this, 'Files', {
      encryptionKey: key,
      accessLogRetentionDays: settings.logRetentionDays,
      removalPolicy: statefulRemoval,
    });

    // P50: with the domain in a VPC, so are the functions that reach it.
    this.network =
      settings.searchNetwork === 'vpc'
        ? new ServiceNetwork(this, 'Network', {
            encryptionKey: key,
            availabilityZones: VPC_AVAILABILITY_ZONES,
            natGateways: settings.natGateways,
            flowLogRetention: settings.logRetentionDays,
            flowLogRemovalPolicy: statefulRemoval,
            // P239: live keeps the addresses receivers allowlisted even past the stack.
            egressAddressRemovalPolicy: statefulRemoval,
          })
        : undefined;
    const searchClients: ServiceFunctionNetworkProps = this.network?.functionPlacement ?? {};
    // P239: whatever connects to a receiver leaves through the NAT gateways' Elastic IPs.
    const webhookSenders: ServiceFunctionNetworkProps = this.network?.deliveryPlacement ?? {};

    this.search = this.createSearchDomain(statefulRemoval);

    this.sessionSecret = new SessionSigningSecret(this, 'SessionSigning', {
      encryptionKey: key,
      removalPolicy: statefulRemoval,
    });

    this.originVerify = new OriginVerifySecret(this, 'OriginVerify', {
      encryptionKey: key,
      generation: settings.console.originSecretGeneration,
    });

    const functionEnvironment = this.functionConfig();
    const workerLogs = {
      logRetention: settings.logRetentionDays,
      logEncryptionKey: key,
      logRemovalPolicy: statefulRemoval,
    };

    this.http = new HttpApi(this, 'Http', {
      routes: ROUTES,
      restApiName: prefix,
      // The execute-api URL reads …/test/api/v1/agents or …/live/api/v1/agents.
      stageName: settings.environment,
      functionEnvironment,
      familyTimeouts: {
        [WEBHOOK_MANAGER]: WEBHOOK_MANAGER_TIMEOUT,
        ...Object.fromEntries(RETRIEVAL_FAMILIES.map((family) => [family, RETRIEVAL_TIMEOUT])),
        [QUERY_FAMILY]: QUERY_TIMEOUT,
      },
      familyNetworks: {
        ...Object.fromEntries(RETRIEVAL_FAMILIES.map((family) => [family, searchClients])),
        // The URL check and the test event connect to the receiver (P239).
        [WEBHOOK_MANAGER]: webhookSenders,
      },
      encryptionKey: key,
      throttlingRateLimit: settings.apiThrottleRateLimit,
      throttlingBurstLimit: settings.apiThrottleBurstLimit,
      logRetention: settings.logRetentionDays,
      logRemovalPolicy: statefulRemoval,
      cloudWatchRole: settings.apiGatewayCloudWatchRole,
      domain: settings.apiDomain && {
        domainName: settings.apiDomain.domainName,
        certificate: acm.Certificate.fromCertificateArn(
          this,
          'ApiCertificate',
          settings.apiDomain.certificateArn,
        ),
      },
    });
    new ApiFirewall(this, 'Firewall', {
      stage: this.http.stage,
      metricPrefix: prefix,
      // P242: the console's requests are counted per viewer, not per CloudFront edge.
      originVerifyHeaderValue: this.originVerify.headerValue,
    });
    this.console = this.createConsole(props.consoleAssetsDirectory ?? DEFAULT_CONSOLE_DIRECTORY);
    // P251: the console uploads files straight to the bucket with the presigned POSTs the API
    // hands out (D25); the browser sends them from the console's origin, so S3 must allow it.
    this.files.bucket.addCorsRule({
      allowedOrigins: [this.console.origin],
      allowedMethods: [s3.HttpMethods.POST],
      allowedHeaders: ['*'],
      maxAge: 3600,
    });

    // Crawls customer websites (the crawler refuses private addresses, D35)
    // and indexes into the search domain: in the VPC with it, out through NAT.
    this.syncWorker = new QueueWorker(this, 'SyncWorker', {
      folder: 'sync-worker',
      description:
        'Agent Query Service: runs sync jobs (crawl, chunk, embed, index), one at a time',
      queue: this.queues.syncJobs,
      environment: functionEnvironment,
      timeout: SYNC_WORKER_TIMEOUT,
      memorySize: SYNC_WORKER_MEMORY_MB,
      concurrency: settings.syncWorkerConcurrency,
      // One job per invocation, as soon as it is queued: a batch would share
      // one 15-minute run.
      batchSize: 1,
      maxBatchingWindow: Duration.seconds(0),
      ...workerLogs,
      ...searchClients,
    });

    // D25: every object created under files/ is an upload to ingest.
    this.ingestionWorker = new QueueWorker(this, 'IngestionWorker', {
      folder: 'ingestion-worker',
      description:
        'Agent Query Service: ingests uploaded files (parse, chunk, embed, index), one at a time',
      queue: this.queues.ingestion,
      environment: functionEnvironment,
      timeout: INGESTION_WORKER_TIMEOUT,
      memorySize: INGESTION_WORKER_MEMORY_MB,
      concurrency: settings.ingestionWorkerConcurrency,
      batchSize: 1,
      maxBatchingWindow: Duration.seconds(0),
      ...workerLogs,
      ...searchClients,
    });
    this.files.bucket.addEventNotification(
      s3.EventType.OBJECT_CREATED,
      new s3n.SqsDestination(this.queues.ingestion.queue),
      { prefix: UPLOAD_PREFIX },
    );
    // CDK configures the notification with a singleton handler of its own
    // (a custom resource, run at deploy time only), which logs through the
    // AWS managed basic execution role.
    const notificationsHandler = this.node.children.find((child) =>
      child.node.id.startsWith('BucketNotificationsHandler'),
    );
    if (notificationsHandler) {
      Validations.of(notificationsHandler).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason:
          "CDK's bucket-notifications custom resource (runs only when the stack deploys, to set the upload notification) is created with the AWS managed basic execution role; its other permission is s3:PutBucketNotification.",
      });
    }

    // Asks each question as a query would (P139): the index, the models and model keys, so
    // placed like the query function.
    this.evalWorker = new QueueWorker(this, 'EvalWorker', {
      folder: 'eval-worker',
      description:
        'Agent Query Service: runs evaluations (each question through the query use case, scored offline)',
      queue: this.queues.evaluations,
      environment: functionEnvironment,
      timeout: EVAL_WORKER_TIMEOUT,
      concurrency: EVAL_WORKER_CONCURRENCY,
      batchSize: 1,
      maxBatchingWindow: Duration.seconds(0),
      ...workerLogs,
      ...searchClients,
    });

    this.searchIndexes = new SearchIndexBootstrap(this, 'SearchIndexes', {
      search: this.search,
      // The retrieval adapter's prefix: the cloud config sets none.
      indexPrefix: DEFAULT_INDEX_PREFIX,
      embedders: cloudEmbedders(settings.modelProvider, settings.bedrock),
      definitionVersion: DEFINITION_VERSION,
      logEncryptionKey: key,
      logRetention: settings.logRetentionDays,
      logRemovalPolicy: statefulRemoval,
      ...searchClients,
    });

    this.webhookDispatcher = new QueueWorker(this, 'WebhookDispatcher', {
      folder: 'webhook-dispatcher',
      description: 'Agent Query Service: signs and sends webhook deliveries on the D29 schedule',
      queue: this.queues.webhookDeliveries,
      environment: functionEnvironment,
      timeout: WEBHOOK_DISPATCHER_TIMEOUT,
      concurrency: settings.webhookDispatcherConcurrency,
      ...workerLogs,
      ...webhookSenders,
    });

    this.eventPublisher = new OutboxPublisher(this, 'EventPublisher', {
      table: this.data.table,
      encryptionKey: key,
      environment: functionEnvironment,
      ...workerLogs,
    });

    this.syncScheduler = new SyncScheduler(this, 'SyncScheduler', {
      environment: functionEnvironment,
      interval: SYNC_SCHEDULE_INTERVAL,
      ...workerLogs,
    });

    this.models =
      settings.modelProvider &&
      new ModelProvider(this, 'Models', {
        apiKeySecret: settings.modelProvider.apiKeySecret,
        baseUrl: settings.modelProvider.baseUrl,
      });
    this.bedrock =
      settings.bedrock &&
      new BedrockModelAccess(this, 'Bedrock', {
        answerModel: settings.bedrock.answerModel,
        embeddingModel: settings.bedrock.embeddingModel,
        embeddingDimensions: settings.bedrock.embeddingDimensions,
        profileRegions: settings.bedrock.profileRegions,
      });
    this.connectorApps =
      settings.connectorAppsSecret === undefined
        ? undefined
        : new ConnectorApps(this, 'ConnectorApps', { secret: settings.connectorAppsSecret });
    this.mail =
      settings.mail &&
      new MailSender(this, 'Mail', {
        sesIdentity: settings.mail.sesIdentity,
        from: settings.mail.from,
      });
    this.grantFunctionAccess();

    // A nested stack of their own (P94): the API's methods and resources grow with every
    // family, and one stack holds at most 500 resources; alarms only read from the rest.
    this.alarms = new Alarms(new NestedStack(this, 'Monitoring'), 'Alarms', {
      encryptionKey: key,
      email: settings.alarmEmail,
    });
    this.addAlarms();
    this.addOutputs();
  }

  /**
   * P235: the console on one HTTPS origin, `/api/*` forwarded to the API.
   * The API is named by its id and the literal stage name, never by the
   * stage or deployment resources: those depend on the functions, which
   * depend on the distribution for the console's origin (P236).
   */
  private createConsole(assetsDirectory: string): ConsoleHosting {
    const { settings } = this;
    const consoleDomain = settings.console.domain;
    return new ConsoleHosting(this, 'Console', {
      assetsDirectory,
      // A custom API domain turns the execute-api endpoint off; its mapping names the stage.
      api: settings.apiDomain
        ? { domainName: settings.apiDomain.domainName }
        : {
            domainName: `${this.http.api.restApiId}.execute-api.${this.region}.${this.urlSuffix}`,
            originPath: `/${settings.environment}`,
          },
      domain: consoleDomain && {
        domainName: consoleDomain.domainName,
        certificate: acm.Certificate.fromCertificateArn(
          this,
          'ConsoleCertificate',
          consoleDomain.certificateArn,
        ),
      },
      webAclArn: settings.console.webAclArn,
      originVerifyHeaderValue: this.originVerify.headerValue,
      serverAccessLogsBucket: this.files.accessLogBucket,
      logRetentionDays: settings.logRetentionDays,
      // As every bucket of the stack: a live one stays, a test one is emptied and goes.
      removalPolicy: settings.environment === 'live' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
  }

  private createQueues(): Record<QueueName, WorkQueue> {
    const encryptionKey = this.encryptionKey.key;
    return {
      syncJobs: new WorkQueue(this, 'SyncJobs', {
        encryptionKey,
        // A sync job crawls and embeds for up to the worker's 15 minutes; the
        // worker keeps its progress (resumable), so a redelivery after a
        // crash continues it.
        visibilityTimeout: SYNC_JOB_VISIBILITY,
        maxReceiveCount: SYNC_MAX_RECEIVE_COUNT,
      }),
      // S3 announces each upload here (D25); the ingestion worker consumes it.
      ingestion: new WorkQueue(this, 'Ingestion', {
        encryptionKey: this.uploadEventsKey.key,
        visibilityTimeout: INGESTION_VISIBILITY,
        // As the local runtime's INGESTION_MAX_RECEIVE_COUNT; the worker
        // marks the file failed on the last one.
        maxReceiveCount: 5,
      }),
      // Issue 11 item 5: evaluation runs; the worker ends a run on its last receive.
      evaluations: new WorkQueue(this, 'EvalRuns', {
        encryptionKey,
        visibilityTimeout: EVAL_VISIBILITY,
        maxReceiveCount: EVAL_MAX_RECEIVE_COUNT,
      }),
      webhookDeliveries: new WorkQueue(this, 'WebhookDeliveries', {
        encryptionKey,
        // ARCHITECTURE "Webhook retries": a failed delivery stays on the
        // queue and the dispatcher sets its visibility to the next delay
        // (5 s, 30 s, 5 min, 1 h; all under SQS's 12 h cap), so this default
        // only matters until it does (see WEBHOOK_DELIVERY_VISIBILITY).
        visibilityTimeout: WEBHOOK_DELIVERY_VISIBILITY,
        // ApproximateReceiveCount is the attempt number and the 5th failure
        // marks the delivery failed (D29), so redrive must never come first:
        // 5 attempts plus 3 receives of slack for dispatcher crashes, which
        // are all the DLQ is for. Same as the local runtime's
        // DELIVERY_MAX_RECEIVE_COUNT.
        maxReceiveCount: 8,
        // Far more than the ~66 minutes the five attempts span.
        retentionPeriod: Duration.days(4),
      }),
    };
  }

  private createSearchDomain(removalPolicy: RemovalPolicy): SearchDomain {
    const { search, environment, logRetentionDays } = this.settings;
    const domain = new SearchDomain(this, 'Search', {
      domainName: `aqs-${environment}`,
      encryptionKey: this.encryptionKey.key,
      instanceType: search.instanceType,
      instanceCount: search.instanceCount,
      availabilityZoneCount: search.availabilityZoneCount,
      masterCount: search.masterCount,
      masterInstanceType: search.masterInstanceType,
      volumeSizeGiB: search.volumeSizeGiB,
      logRetention: logRetentionDays,
      removalPolicy,
      ...(this.network && {
        vpc: this.network.vpc,
        vpcSubnets: this.network.searchSubnets,
        securityGroups: [this.network.searchSecurityGroup],
      }),
    });
    // Acknowledged only when the configuration turns these off (the test
    // defaults); the reason names the setting that did it.
    if (!domain.inVpc) {
      Validations.of(domain.domain).acknowledge({
        id: 'AwsSolutions-OS1',
        reason: `The domain is outside a VPC by configuration (searchNetwork=public, the "test" default and allowed for "test" only, P50: no NAT gateways or endpoints to pay for in a deployment holding test data). Its public endpoint accepts only HTTPS (TLS 1.2+) requests SigV4-signed by the IAM roles its access policy names. "live" refuses searchNetwork=public and puts the domain in the VPC.`,
      });
    }
    if (search.masterCount === 0) {
      Validations.of(domain.domain).acknowledge({
        id: 'AwsSolutions-OS4',
        reason: `Dedicated master nodes are off by configuration (searchMasterCount=0, the "test" default: one small data node keeps test deployments cheap); "live" defaults to ${ENVIRONMENT_DEFAULTS.live.search.masterCount} dedicated masters.`,
      });
    }
    if (search.availabilityZoneCount === 1) {
      Validations.of(domain.domain).acknowledge({
        id: 'AwsSolutions-OS7',
        reason: `Zone awareness is off by configuration (searchAvailabilityZones=1, the "test" default: a single data node cannot span zones); "live" defaults to ${ENVIRONMENT_DEFAULTS.live.search.availabilityZoneCount} zones.`,
      });
    }
    return domain;
  }

  /**
   * What layers/core/config.ts requires at every cold start, derived here
   * once for every function that builds dependencies (families and
   * workers; the fallback builds none). The type lists every key the config
   * parses, so a new required variable fails the compile here, not a cold
   * start in the cloud.
   */
  private functionConfig(): FunctionConfig {
    return {
      TABLE_NAME: this.data.table.tableName,
      SVC_ENVIRONMENT: this.settings.environment,
      SYNC_QUEUE_URL: this.queues.syncJobs.queue.queueUrl,
      DELIVERY_QUEUE_URL: this.queues.webhookDeliveries.queue.queueUrl,
      EVAL_QUEUE_URL: this.queues.evaluations.queue.queueUrl,
      SECRETS_KEY_ARN: this.secretsKey.key.keyArn,
      FILE_BUCKET_NAME: this.files.bucket.bucketName,
      // The domain's host name; the retrieval adapter signs its requests (SigV4).
      OPENSEARCH_ENDPOINT: this.search.domainEndpoint,
    };
  }

  /**
   * Least privilege. Every family and worker reads and writes table items
   * (API keys, rate-limit buckets, outbox and deliveries live there).
   * Sending: data-sources, kb (P119) and the scheduler (D23) to the sync queue; webhooks (manual retry) and the
   * publisher (fan-out) to the deliveries queue. The dispatcher consumes
   * that queue (its event source grants receive, delete and
   * ChangeMessageVisibility, which schedules retries); the sync worker
   * consumes the sync queue the same way. The secrets key (D33): webhooks
   * seals and opens webhook secrets, the dispatcher only opens them; model-keys
   * seals model keys and query only opens them (P130); nobody else may use it. The search domain: the retrieval families, the sync
   * worker and the index bootstrap (granted by its construct). The session
   * secret (D12): every HTTP family, since each checks sessions (P63), and
   * nothing else; the origin verify secret (P242) the same families, since
   * each judges addresses.
   */
  private grantFunctionAccess(): void {
    const deliveries = this.queues.webhookDeliveries.queue;
    // P236: signed-in changes arrive through the console's distribution with its Origin.
    const consoleOrigin = this.console.origin;
    for (const [family, fn] of this.http.functions) {
      this.grantItemAccess(fn);
      this.sessionSecret.connect(fn);
      fn.function.addEnvironment('SVC_CONSOLE_ORIGIN', consoleOrigin);
      // P242: the console's requests are judged by the viewer's address, proven by this secret.
      this.originVerify.connect(fn);
      if (RETRIEVAL_FAMILIES.includes(family)) this.search.grantReadWrite(fn.role);
      // P265: ses:SendEmail for the deployment's identity, to the families that mail, when set.
      if (MAIL_FAMILIES.includes(family)) this.mail?.connect(fn);
      if (SYNC_QUEUE_WRITERS.includes(family))
        this.queues.syncJobs.queue.grantSendMessages(fn.function);
      if (family === SSO_FAMILY) {
        this.secretsKey.grantSealAndOpen(fn.function, SSO_SECRET_PURPOSE);
        // P91, P237: browsers reach the service at the console's origin, so SSO callbacks
        // land there and the session cookie is the console's.
        fn.function.addEnvironment('SVC_PUBLIC_URL', consoleOrigin);
      }
      if (family === CONNECTIONS_FAMILY) {
        this.secretsKey.grantSealAndOpen(fn.function, CONNECTOR_TOKEN_PURPOSE);
        this.connectorApps?.connect(fn);
        // P237: the provider sends the administrator back to the console's origin too.
        fn.function.addEnvironment('SVC_PUBLIC_URL', consoleOrigin);
      }
      // D33: model keys are sealed where they are registered and opened only where agents answer.
      if (family === MODEL_KEY_MANAGER)
        this.secretsKey.grantSealAndOpen(fn.function, MODEL_KEY_PURPOSE);
      if (family === QUERY_FAMILY) this.secretsKey.grantOpen(fn.function, MODEL_KEY_PURPOSE);
      if (family === EVAL_STARTER) this.queues.evaluations.queue.grantSendMessages(fn.function);
      if (family === WEBHOOK_MANAGER) {
        deliveries.grantSendMessages(fn.function);
        this.secretsKey.grantSealAndOpen(fn.function, WEBHOOK_SECRET_PURPOSE);
        // P240: published at GET /api/v1/webhooks/source-ips; unset without the VPC, which says so.
        if (this.network) {
          fn.function.addEnvironment('SVC_WEBHOOK_SOURCE_IPS', this.network.egressCidrs);
          fn.function.addEnvironment(
            'SVC_WEBHOOK_SOURCE_IPS_CHANGED_AT',
            this.network.egressCidrsChangedAt,
          );
        }
      }
    }

    const syncWorker = this.syncWorker.worker;
    this.grantItemAccess(syncWorker);
    this.search.grantReadWrite(syncWorker.role);
    // Issue 12: connectors open their grants and seal the renewed ones (D33), with the providers' apps.
    this.secretsKey.grantSealAndOpen(syncWorker.function, CONNECTOR_TOKEN_PURPOSE);
    this.connectorApps?.connect(syncWorker);

    // D25: data-sources presigns uploads (a presigned POST is signed with
    // its role, so the role needs PutObject), presigns the downloads cited
    // files open at (GetObject, for the same reason) and deletes files; the
    // ingestion worker reads them and deletes orphans. Both already use the
    // main key, which encrypts the bucket, through their table access.
    const uploader = this.http.functions.get(FILE_UPLOADER);
    if (uploader)
      this.grantFileAccess(uploader, ['s3:PutObject', 's3:GetObject', 's3:DeleteObject'], true);
    const ingestion = this.ingestionWorker.worker;
    this.grantItemAccess(ingestion);
    this.search.grantReadWrite(ingestion.role);
    this.grantFileAccess(ingestion, ['s3:GetObject', 's3:DeleteObject'], false);

    // Issue 11 item 5: the eval worker answers as the query function does (P139), and queues
    // a paused run again.
    const evalWorker = this.evalWorker.worker;
    this.grantItemAccess(evalWorker);
    this.search.grantReadWrite(evalWorker.role);
    this.secretsKey.grantOpen(evalWorker.function, MODEL_KEY_PURPOSE);
    this.queues.evaluations.queue.grantSendMessages(evalWorker.function);

    const dispatcher = this.webhookDispatcher.worker;
    this.grantItemAccess(dispatcher);
    this.secretsKey.grantOpen(dispatcher.function, WEBHOOK_SECRET_PURPOSE);

    const publisher = this.eventPublisher.publisher;
    this.grantItemAccess(publisher);
    deliveries.grantSendMessages(publisher.function);

    const scheduler = this.syncScheduler.scheduler;
    this.grantItemAccess(scheduler);
    this.queues.syncJobs.queue.grantSendMessages(scheduler.function);

    if (this.models) {
      for (const family of MODEL_FAMILIES) {
        const fn = this.http.functions.get(family);
        if (fn) this.models.connect(fn);
      }
      this.models.connect(syncWorker);
      this.models.connect(ingestion);
      this.models.connect(evalWorker);
    }
    // Issue 32: answers where agents answer (query, evaluations), embeddings where text is embedded.
    if (this.bedrock) {
      for (const family of MODEL_FAMILIES) {
        const fn = this.http.functions.get(family);
        if (fn) this.bedrock.connect(fn, family === QUERY_FAMILY ? 'answers' : 'embeddings');
      }
      this.bedrock.connect(evalWorker, 'answers');
      this.bedrock.connect(syncWorker, 'embeddings');
      this.bedrock.connect(ingestion, 'embeddings');
    }
  }

  /**
   * Object actions on uploads only (`files/*`), and listing that prefix
   * (deleting a data source's files). Exact actions, not the bucket's
   * grant helpers, which add wildcards such as `s3:GetObject*` and `s3:List*`.
   */
  private grantFileAccess(fn: ServiceFunction, actions: string[], list: boolean): void {
    const { bucket } = this.files;
    fn.function.addToRolePolicy(
      new iam.PolicyStatement({ actions, resources: [bucket.arnForObjects(`${UPLOAD_PREFIX}*`)] }),
    );
    if (list) {
      fn.function.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['s3:ListBucket'],
          resources: [bucket.bucketArn],
          conditions: { StringLike: { 's3:prefix': [`${UPLOAD_PREFIX}*`] } },
        }),
      );
    }
    const bucketLogicalId = this.getLogicalId(bucket.node.defaultChild as CfnElement);
    Validations.of(fn.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketLogicalId}.Arn>/${UPLOAD_PREFIX}*]`,
      reason:
        'Uploaded files are objects named by organization, data source and document id under files/; the wildcard is that prefix of this one bucket.',
    });
  }

  /** Table item access, with the findings it brings acknowledged on that role only. */
  private grantItemAccess(fn: ServiceFunction): void {
    this.data.grantItemAccess(fn.function);
    const tableLogicalId = this.getLogicalId(this.data.table.node.defaultChild as CfnElement);
    Validations.of(fn.role).acknowledge(
      {
        id: `AwsSolutions-IAM5[Resource::<${tableLogicalId}.Arn>/index/*]`,
        reason: `The functions query the table's ${TABLE_KEYS.gsi1.indexName} index (API keys by organization, the outbox partitions) and ${TABLE_KEYS.gsi2.indexName} (the sync schedule, D23); the wildcard covers this one table's indexes only.`,
      },
      {
        id: 'AwsSolutions-IAM5[Action::kms:ReEncrypt*]',
        reason:
          "DynamoDB and SQS re-encrypt under the service's customer-managed key on the caller's behalf; the statement names that one key ARN.",
      },
      {
        id: 'AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
        reason:
          "DynamoDB and SQS generate data keys under the service's customer-managed key for writes; the statement names that one key ARN.",
      },
    );
  }

  private addAlarms(): void {
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
    for (const [name, queue] of Object.entries(this.queues) as [QueueName, WorkQueue][]) {
      this.alarms.onDeadLetters(
        `${queue.node.id}DeadLetters`,
        queue.deadLetterQueue,
        deadLetterMeaning[name],
      );
    }
    this.alarms.onDeadLetters(
      'EventPublisherFailedBatches',
      this.eventPublisher.failedBatches,
      'The event publisher gave up on a stream batch after its retries; its events wait in the outbox for the sweep',
    );
    this.alarms.onQueueAge(
      'WebhookDeliveriesStuck',
      this.queues.webhookDeliveries.queue,
      WEBHOOK_DELIVERY_MAX_AGE,
      `A webhook delivery has waited over ${WEBHOOK_DELIVERY_MAX_AGE.toHumanString()}, longer than its five attempts take (D29): the dispatcher is not keeping up or not running`,
    );
    this.alarms.onServerErrors('ApiServerErrors', this.http.api);
    for (const [name, fn] of [...this.http.functions, ['fallback', this.http.fallback] as const]) {
      this.alarms.onFunctionErrors(`${fn.node.id}Errors`, fn.function, name);
    }
    // The workers' functions are each a construct's "Function": name them by the worker.
    this.alarms.onFunctionErrors(
      'SyncWorkerErrors',
      this.syncWorker.worker.function,
      'sync-worker',
    );
    this.alarms.onFunctionErrors(
      'IngestionWorkerErrors',
      this.ingestionWorker.worker.function,
      'ingestion-worker',
    );
    this.alarms.onFunctionErrors(
      'EvalWorkerErrors',
      this.evalWorker.worker.function,
      'eval-worker',
    );
    this.alarms.onFunctionErrors(
      'WebhookDispatcherErrors',
      this.webhookDispatcher.worker.function,
      'webhook-dispatcher',
    );
    this.alarms.onFunctionErrors(
      'EventPublisherErrors',
      this.eventPublisher.publisher.function,
      'event-publisher',
    );
    this.alarms.onFunctionErrors(
      'SyncSchedulerErrors',
      this.syncScheduler.scheduler.function,
      'scheduler',
    );

    // Throttles and durations near the timeout, for every function of ours
    // (CDK's deploy-time handlers excepted).
    for (const { idPrefix, name, fn } of this.serviceFunctions()) {
      this.alarms.onFunctionThrottles(`${idPrefix}Throttles`, fn.function, name);
      const timeout = fn.function.timeout ?? Duration.seconds(3);
      this.alarms.onFunctionDuration(
        `${idPrefix}Duration`,
        fn.function,
        name,
        fn === this.syncWorker.worker
          ? SYNC_WORKER_DURATION_ALARM
          : Duration.millis(Math.round(timeout.toMilliseconds() * DURATION_ALARM_RATIO)),
      );
    }

    const indexNames = [TABLE_KEYS.gsi1.indexName, TABLE_KEYS.gsi2.indexName];
    this.alarms.onTableThrottles('DataReadThrottles', this.data.table, indexNames, 'Read');
    this.alarms.onTableThrottles('DataWriteThrottles', this.data.table, indexNames, 'Write');

    this.alarms.onSearchDomainHealth('Search', this.search);
  }

  /**
   * Every function built from functions/, with the alarm id prefix and name
   * it is known by (the workers' functions are each a construct's "Function").
   */
  private serviceFunctions(): Array<{ idPrefix: string; name: string; fn: ServiceFunction }> {
    return [
      ...[...this.http.functions, ['fallback', this.http.fallback] as const].map(([name, fn]) => ({
        idPrefix: fn.node.id,
        name,
        fn,
      })),
      { idPrefix: 'SyncWorker', name: 'sync-worker', fn: this.syncWorker.worker },
      { idPrefix: 'IngestionWorker', name: 'ingestion-worker', fn: this.ingestionWorker.worker },
      { idPrefix: 'EvalWorker', name: 'eval-worker', fn: this.evalWorker.worker },
      {
        idPrefix: 'WebhookDispatcher',
        name: 'webhook-dispatcher',
        fn: this.webhookDispatcher.worker,
      },
      { idPrefix: 'EventPublisher', name: 'event-publisher', fn: this.eventPublisher.publisher },
      { idPrefix: 'SyncScheduler', name: 'scheduler', fn: this.syncScheduler.scheduler },
      {
        idPrefix: 'SearchIndexes',
        name: 'search-index-bootstrap',
        fn: this.searchIndexes.handler,
      },
    ];
  }

  private addOutputs(): void {
    const outputs: Record<string, { value: string; description: string }> = {
      ApiUrl: { value: this.http.url, description: 'Base URL of the API (append api/v1/…)' },
      TableName: { value: this.data.table.tableName, description: 'DynamoDB table' },
      SyncQueueUrl: { value: this.queues.syncJobs.queue.queueUrl, description: 'Sync jobs queue' },
      IngestionQueueUrl: {
        value: this.queues.ingestion.queue.queueUrl,
        description: 'Ingestion queue',
      },
      WebhookDeliveryQueueUrl: {
        value: this.queues.webhookDeliveries.queue.queueUrl,
        description: 'Webhook deliveries queue',
      },
      FileBucketName: { value: this.files.bucket.bucketName, description: 'Uploaded files bucket' },
      SearchDomainEndpoint: {
        value: `https://${this.search.domainEndpoint}`,
        description: this.search.inVpc
          ? 'OpenSearch domain endpoint, reachable from inside the VPC only (IAM/SigV4)'
          : 'OpenSearch domain endpoint (IAM/SigV4 only)',
      },
      SessionSecretArn: {
        value: this.sessionSecret.secret.secretArn,
        description: 'Web session signing secret (D12)',
      },
      AlarmTopicArn: { value: this.alarms.topic.topicArn, description: 'SNS topic of all alarms' },
      EncryptionKeyArn: {
        value: this.encryptionKey.key.keyArn,
        description: 'KMS key of every store',
      },
      SecretsKeyArn: {
        value: this.secretsKey.key.keyArn,
        description: 'KMS key that seals stored secrets (D33)',
      },
    };
    if (this.network) {
      outputs.WebhookSourceIps = {
        value: this.network.egressCidrs,
        description:
          "Addresses webhook deliveries come from (CIDR, comma-separated; also GET /api/v1/webhooks/source-ips): the NAT gateways' Elastic IPs, kept across deployments (P239)",
      };
    }
    const { domainName } = this.http;
    if (domainName && this.settings.apiDomain) {
      outputs.ApiDomainTarget = {
        value: domainName.domainNameAliasDomainName,
        // Output descriptions must be literals: the name from context, not the resource.
        description: `DNS target for ${this.settings.apiDomain.domainName}: a CNAME, or a Route 53 alias with ApiDomainHostedZoneId`,
      };
      outputs.ApiDomainHostedZoneId = {
        value: domainName.domainNameAliasHostedZoneId,
        description: 'Hosted zone id for a Route 53 alias record to ApiDomainTarget',
      };
    }
    outputs.ConsoleUrl = {
      value: this.console.url,
      description: 'The web console: sign in here (the API answers on /api/* of the same origin)',
    };
    const consoleDomain = this.settings.console.domain;
    if (consoleDomain) {
      outputs.ConsoleDomainTarget = {
        value: this.console.distribution.distributionDomainName,
        description: `DNS target for ${consoleDomain.domainName}: a CNAME, or a Route 53 alias to the CloudFront distribution`,
      };
    }
    for (const [id, { value, description }] of Object.entries(outputs)) {
      new CfnOutput(this, id, { value, description });
    }
  }
}
