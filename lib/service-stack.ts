import {
  type CfnElement,
  CfnOutput,
  Duration,
  RemovalPolicy,
  Stack,
  type StackProps,
  Tags,
  Validations,
} from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import type { Construct } from 'constructs';
import { TABLE_KEYS } from '../layers/core/adapters/dynamodb/table-design';
import { Alarms } from './constructs/alarms';
import { ApiFirewall } from './constructs/api-firewall';
import { DataStore } from './constructs/data-store';
import { EncryptionKey } from './constructs/encryption-key';
import { FileStore } from './constructs/file-store';
import { HttpApi } from './constructs/http-api';
import { SearchDomain } from './constructs/search-domain';
import { SessionSigningSecret } from './constructs/session-signing-secret';
import { WorkQueue } from './constructs/work-queue';
import { type DeploymentSettings, ENVIRONMENT_DEFAULTS } from './deployment-settings';
import { ROUTES } from './routes';

export interface ServiceStackProps extends StackProps {
  /** Parsed CDK context (lib/deployment-settings.ts). */
  readonly settings: DeploymentSettings;
}

/** The family whose function queues sync jobs (POST …/sync, legacy …/process). */
export const SYNC_QUEUE_WRITER = 'data-sources';

type QueueName = 'syncJobs' | 'ingestion' | 'webhookDeliveries';

/**
 * The whole service in one stack: key, table, queues, file bucket, search
 * domain, session secret, the HTTP API with its functions and firewall, and
 * alarms.
 *
 * Not here yet (later issues): the sync worker, ingestion worker and webhook
 * dispatcher (so the queues have no consumers yet), S3 upload notifications,
 * and the OpenSearch index bootstrap.
 */
export class ServiceStack extends Stack {
  readonly settings: DeploymentSettings;
  readonly encryptionKey: EncryptionKey;
  readonly data: DataStore;
  readonly queues: Readonly<Record<QueueName, WorkQueue>>;
  readonly files: FileStore;
  readonly search: SearchDomain;
  readonly sessionSecret: SessionSigningSecret;
  readonly http: HttpApi;
  readonly alarms: Alarms;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const { settings } = props;
    this.settings = settings;
    const live = settings.environment === 'live';
    // Live data outlives the stack; a test deployment can be torn down whole
    // (the buckets excepted, see FileStore).
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

    this.data = new DataStore(this, 'Data', {
      encryptionKey: key,
      removalPolicy: statefulRemoval,
      deletionProtection: live,
    });

    this.queues = this.createQueues();

    this.files = new FileStore(this, 'Files', {
      encryptionKey: key,
      accessLogRetentionDays: settings.logRetentionDays,
    });

    this.search = this.createSearchDomain(statefulRemoval);

    this.sessionSecret = new SessionSigningSecret(this, 'SessionSigning', {
      encryptionKey: key,
      removalPolicy: statefulRemoval,
    });

    this.http = new HttpApi(this, 'Http', {
      routes: ROUTES,
      restApiName: prefix,
      // The execute-api URL reads …/test/api/v1/agents or …/live/api/v1/agents.
      stageName: settings.environment,
      functionEnvironment: {
        // layers/core/config.ts parses exactly these (AWS_REGION comes from Lambda).
        TABLE_NAME: this.data.table.tableName,
        SVC_ENVIRONMENT: settings.environment,
        SYNC_QUEUE_URL: this.queues.syncJobs.queue.queueUrl,
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
    new ApiFirewall(this, 'Firewall', { stage: this.http.stage, metricPrefix: prefix });
    this.grantFunctionAccess();

    this.alarms = new Alarms(this, 'Alarms', { encryptionKey: key, email: settings.alarmEmail });
    this.addAlarms();
    this.addOutputs();
  }

  private createQueues(): Record<QueueName, WorkQueue> {
    const encryptionKey = this.encryptionKey.key;
    return {
      syncJobs: new WorkQueue(this, 'SyncJobs', {
        encryptionKey,
        // A sync job crawls and embeds for minutes; the worker keeps its
        // progress (resumable), so a redelivery after a crash continues it.
        visibilityTimeout: Duration.minutes(15),
        maxReceiveCount: 3,
      }),
      ingestion: new WorkQueue(this, 'Ingestion', {
        encryptionKey,
        visibilityTimeout: Duration.minutes(5),
        maxReceiveCount: 5,
      }),
      webhookDeliveries: new WorkQueue(this, 'WebhookDeliveries', {
        encryptionKey,
        // ARCHITECTURE "Webhook retries": a failed delivery stays on the
        // queue and the dispatcher sets its visibility to the next delay
        // (5 s, 30 s, 5 min, 1 h; all under SQS's 12 h cap), so this default
        // only matters until it does: it covers one dispatch (10 s per
        // delivery, D29) with room to spare. ApproximateReceiveCount is the
        // attempt number and the 5th failure marks the delivery failed, so
        // redrive must never come first: 5 attempts plus 3 receives of slack
        // for dispatcher crashes, which are what the DLQ is for.
        visibilityTimeout: Duration.minutes(2),
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
    });
    // Acknowledged only when the configuration turns these off (the test
    // defaults); the reason names the setting that did it.
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
   * Least privilege: every family reads and writes table items (API keys,
   * rate-limit buckets and its own items live there); only data-sources
   * sends to the sync queue. Nothing reads the search domain or the session
   * secret yet (later issues grant them).
   */
  private grantFunctionAccess(): void {
    const tableLogicalId = this.getLogicalId(this.data.table.node.defaultChild as CfnElement);
    for (const [family, fn] of this.http.functions) {
      this.data.grantItemAccess(fn.function);
      if (family === SYNC_QUEUE_WRITER) this.queues.syncJobs.queue.grantSendMessages(fn.function);
      Validations.of(fn.role).acknowledge(
        {
          id: `AwsSolutions-IAM5[Resource::<${tableLogicalId}.Arn>/index/*]`,
          reason: `The functions query the table's ${TABLE_KEYS.gsi1.indexName} index (API keys by organization); the wildcard covers this one table's indexes only.`,
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
  }

  private addAlarms(): void {
    const labels: Record<QueueName, string> = {
      syncJobs: 'sync job',
      ingestion: 'ingestion',
      webhookDeliveries: 'webhook delivery',
    };
    for (const [name, queue] of Object.entries(this.queues) as [QueueName, WorkQueue][]) {
      this.alarms.onDeadLetters(
        `${queue.node.id}DeadLetters`,
        queue.deadLetterQueue,
        `A ${labels[name]} message was dead-lettered: its consumer crashed on it repeatedly`,
      );
    }
    this.alarms.onServerErrors('ApiServerErrors', this.http.api);
    for (const [name, fn] of [...this.http.functions, ['fallback', this.http.fallback] as const]) {
      this.alarms.onFunctionErrors(`${fn.node.id}Errors`, fn.function, name);
    }
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
        description: 'OpenSearch domain endpoint (IAM/SigV4 only)',
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
    };
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
    for (const [id, { value, description }] of Object.entries(outputs)) {
      new CfnOutput(this, id, { value, description });
    }
  }
}
