import * as path from 'node:path';
import { NestedStack, RemovalPolicy, Stack, type StackProps, Tags, Validations } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3n from 'aws-cdk-lib/aws-s3-notifications';
import type { Construct } from 'constructs';
import { ENDPOINT_FAMILIES } from '../functions/families';
import {
  DEFAULT_INDEX_PREFIX,
  DEFINITION_VERSION,
} from '../layers/core/adapters/opensearch/index-definition';
import { cloudEmbedders } from './cloud-embedders';
import { Alarms } from './constructs/alarms';
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
import type { OutboxPublisher } from './constructs/outbox-publisher';
import type { QueueWorker } from './constructs/queue-worker';
import { SearchDomain } from './constructs/search-domain';
import { SearchIndexBootstrap } from './constructs/search-index-bootstrap';
import { SecretsKey } from './constructs/secrets-key';
import { SOURCE_MAPS_CONTEXT } from './constructs/service-function';
import { ServiceNetwork } from './constructs/service-network';
import { SessionSigningSecret } from './constructs/session-signing-secret';
import type { SyncScheduler } from './constructs/sync-scheduler';
import type { WorkQueue } from './constructs/work-queue';
import {
  type DeploymentSettings,
  ENVIRONMENT_DEFAULTS,
  VPC_AVAILABILITY_ZONES,
} from './deployment-settings';
import {
  connectFamily,
  type FamilyPlacements,
  familyDeclarationProblems,
  httpApiFamilies,
} from './family-infrastructure';
import type { FunctionConfig } from './function-config';
import { addServiceAlarms } from './service-alarms';
import { ServiceGrants, UPLOAD_PREFIX } from './service-grants';
import { addServiceOutputs } from './service-outputs';
import {
  createQueueWorkers,
  createTimedWorkers,
  createWorkQueues,
  grantWorkerAccess,
  type QueueName,
  type ServiceWorkerProps,
} from './service-workers';

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
 * The whole service in one stack: keys, table, queues, file bucket, search
 * domain and its index bootstrap, session secret, the HTTP API with one
 * function per endpoint family (functions/families.ts) and its firewall,
 * the sync worker and the ingestion worker fed by the bucket's upload
 * events (issue 3), the event publisher and webhook dispatcher (issue 4),
 * the sync scheduler, and alarms.
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
  /** Proves a request came through the console's distribution, so its viewer address holds. */
  readonly originVerify: OriginVerifySecret;
  /** The model provider's key (`modelApiKeySecret`); without it the offline models run. */
  readonly models: ModelProvider | undefined;
  /** Issue 32: Amazon Bedrock's models, invoked with the functions' roles (`modelProvider=bedrock`). */
  readonly bedrock: BedrockModelAccess | undefined;
  /** Issue 12: the connector providers' apps secret, when configured. */
  readonly connectorApps: ConnectorApps | undefined;
  /** The SES identity invitations and password resets are mailed from (`sesIdentity`). */
  readonly mail: MailSender | undefined;
  readonly http: HttpApi;
  /** Issue 21: the web console and, on `/api/*` of its origin, the API. */
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
    // Read by every ServiceFunction below; set before any is made.
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
      description: 'Agent Query Service: encryption at rest for the upload events queue',
      removalPolicy: statefulRemoval,
      pendingWindowDays: live ? 30 : 7,
    });
    this.queues = createWorkQueues(this, { main: key, uploadEvents: this.uploadEventsKey.key });

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
            // Live keeps the addresses receivers allowlisted even past the stack.
            egressAddressRemovalPolicy: statefulRemoval,
          })
        : undefined;
    const placements: FamilyPlacements = {
      'search-domain': this.network?.functionPlacement ?? {},
      // Whatever connects to a receiver leaves through the NAT gateways' Elastic IPs.
      'published-addresses': this.network?.deliveryPlacement ?? {},
    };

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

    const declarationProblems = familyDeclarationProblems(ENDPOINT_FAMILIES);
    if (declarationProblems.length > 0) {
      throw new Error(`functions/families.ts: ${declarationProblems.join('; ')}`);
    }
    this.http = new HttpApi(this, 'Http', {
      families: httpApiFamilies(ENDPOINT_FAMILIES, placements),
      restApiName: prefix,
      // The execute-api URL reads …/test/api/v1/agents or …/live/api/v1/agents.
      stageName: settings.environment,
      functionEnvironment,
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
      // The console's requests are counted per viewer, not per CloudFront edge.
      originVerifyHeaderValue: this.originVerify.headerValue,
    });
    this.console = this.createConsole(props.consoleAssetsDirectory ?? DEFAULT_CONSOLE_DIRECTORY);
    // The console uploads files straight to the bucket with the presigned POSTs the API
    // hands out; the browser sends them from the console's origin, so S3 must allow it.
    this.files.bucket.addCorsRule({
      allowedOrigins: [this.console.origin],
      allowedMethods: [s3.HttpMethods.POST],
      allowedHeaders: ['*'],
      maxAge: 3600,
    });

    const workerProps: ServiceWorkerProps = {
      queues: this.queues,
      data: this.data,
      encryptionKey: key,
      environment: functionEnvironment,
      concurrency: {
        sync: settings.syncWorkerConcurrency,
        ingestion: settings.ingestionWorkerConcurrency,
        webhookDispatcher: settings.webhookDispatcherConcurrency,
      },
      logRetention: settings.logRetentionDays,
      logRemovalPolicy: statefulRemoval,
      searchClients: placements['search-domain'],
      webhookSenders: placements['published-addresses'],
    };
    const queueWorkers = createQueueWorkers(this, workerProps);
    this.syncWorker = queueWorkers.syncWorker;
    this.ingestionWorker = queueWorkers.ingestionWorker;
    this.evalWorker = queueWorkers.evalWorker;
    this.webhookDispatcher = queueWorkers.webhookDispatcher;
    this.notifyUploads();

    this.searchIndexes = new SearchIndexBootstrap(this, 'SearchIndexes', {
      search: this.search,
      // The retrieval adapter's prefix: the cloud config sets none.
      indexPrefix: DEFAULT_INDEX_PREFIX,
      embedders: cloudEmbedders(settings.modelProvider, settings.bedrock),
      definitionVersion: DEFINITION_VERSION,
      logEncryptionKey: key,
      logRetention: settings.logRetentionDays,
      logRemovalPolicy: statefulRemoval,
      ...placements['search-domain'],
    });

    const timedWorkers = createTimedWorkers(this, workerProps);
    this.eventPublisher = timedWorkers.eventPublisher;
    this.syncScheduler = timedWorkers.syncScheduler;

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

    // A nested stack of their own: the API's methods and resources grow with every
    // family, and one stack holds at most 500 resources; alarms only read from the rest.
    this.alarms = new Alarms(new NestedStack(this, 'Monitoring'), 'Alarms', {
      encryptionKey: key,
      email: settings.alarmEmail,
    });
    addServiceAlarms(this);
    addServiceOutputs(this, this);
  }

  /** Every object created under files/ is an upload to ingest. */
  private notifyUploads(): void {
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
  }

  /**
   * The console on one HTTPS origin, `/api/*` forwarded to the API.
   * The API is named by its id and the literal stage name, never by the
   * stage or deployment resources: those depend on the functions, which
   * depend on the distribution for the console's origin.
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
   * Least privilege: each endpoint family gets what its declaration
   * (functions/<family>/family.ts) needs and nothing else
   * (lib/family-infrastructure.ts), then each worker its own
   * (lib/service-workers.ts). Families first: the search domain's access
   * policy lists its grantees in that order.
   */
  private grantFunctionAccess(): void {
    const grants = new ServiceGrants(this.data, this.files);
    const familyResources = {
      grants,
      sendableQueues: this.queues,
      search: this.search,
      secretsKey: this.secretsKey,
      sessionSecret: this.sessionSecret,
      originVerify: this.originVerify,
      // signed-in changes arrive through the console's distribution with its Origin.
      consoleOrigin: this.console.origin,
      network: this.network,
      models: this.models,
      bedrock: this.bedrock,
      connectorApps: this.connectorApps,
      mail: this.mail,
    };
    for (const family of ENDPOINT_FAMILIES) {
      const fn = this.http.functions.get(family.name);
      // unreachable: the API builds one function per family of the same list
      if (!fn) throw new Error(`no function for family "${family.name}"`);
      connectFamily(family, fn, familyResources);
    }
    grantWorkerAccess(this, { ...familyResources, queues: this.queues });
  }
}
