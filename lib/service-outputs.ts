import { CfnOutput } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { Alarms } from './constructs/alarms';
import type { ConsoleHosting } from './constructs/console-hosting';
import type { DataStore } from './constructs/data-store';
import type { EncryptionKey } from './constructs/encryption-key';
import type { FileStore } from './constructs/file-store';
import type { HttpApi } from './constructs/http-api';
import type { SearchDomain } from './constructs/search-domain';
import type { SecretsKey } from './constructs/secrets-key';
import type { ServiceNetwork } from './constructs/service-network';
import type { SessionSigningSecret } from './constructs/session-signing-secret';
import type { WorkQueue } from './constructs/work-queue';
import type { DeploymentSettings } from './deployment-settings';
import type { QueueName } from './service-workers';

/** What the stack's outputs name. */
export interface OutputSource {
  readonly settings: DeploymentSettings;
  readonly http: HttpApi;
  readonly data: DataStore;
  readonly queues: Readonly<Record<QueueName, WorkQueue>>;
  readonly files: FileStore;
  readonly search: SearchDomain;
  readonly sessionSecret: SessionSigningSecret;
  readonly alarms: Alarms;
  readonly encryptionKey: EncryptionKey;
  readonly secretsKey: SecretsKey;
  readonly network: ServiceNetwork | undefined;
  readonly console: ConsoleHosting;
}

/** The stack's outputs: where the API, the console and each store are, for operators and scripts. */
export function addServiceOutputs(scope: Construct, service: OutputSource): void {
  const outputs: Record<string, { value: string; description: string }> = {
    ApiUrl: { value: service.http.url, description: 'Base URL of the API (append api/v1/…)' },
    TableName: { value: service.data.table.tableName, description: 'DynamoDB table' },
    SyncQueueUrl: { value: service.queues.syncJobs.queue.queueUrl, description: 'Sync jobs queue' },
    IngestionQueueUrl: {
      value: service.queues.ingestion.queue.queueUrl,
      description: 'Ingestion queue',
    },
    WebhookDeliveryQueueUrl: {
      value: service.queues.webhookDeliveries.queue.queueUrl,
      description: 'Webhook deliveries queue',
    },
    FileBucketName: {
      value: service.files.bucket.bucketName,
      description: 'Uploaded files bucket',
    },
    SearchDomainEndpoint: {
      value: `https://${service.search.domainEndpoint}`,
      description: service.search.inVpc
        ? 'OpenSearch domain endpoint, reachable from inside the VPC only (IAM/SigV4)'
        : 'OpenSearch domain endpoint (IAM/SigV4 only)',
    },
    SessionSecretArn: {
      value: service.sessionSecret.secret.secretArn,
      description: 'Web session signing secret',
    },
    AlarmTopicArn: { value: service.alarms.topic.topicArn, description: 'SNS topic of all alarms' },
    EncryptionKeyArn: {
      value: service.encryptionKey.key.keyArn,
      description: 'KMS key of every store',
    },
    SecretsKeyArn: {
      value: service.secretsKey.key.keyArn,
      description: 'KMS key that seals stored secrets',
    },
  };
  if (service.network) {
    outputs.WebhookSourceIps = {
      value: service.network.egressCidrs,
      description:
        "Addresses webhook deliveries come from (CIDR, comma-separated; also GET /api/v1/webhooks/source-ips): the NAT gateways' Elastic IPs, kept across deployments",
    };
  }
  const { domainName } = service.http;
  if (domainName && service.settings.apiDomain) {
    outputs.ApiDomainTarget = {
      value: domainName.domainNameAliasDomainName,
      // Output descriptions must be literals: the name from context, not the resource.
      description: `DNS target for ${service.settings.apiDomain.domainName}: a CNAME, or a Route 53 alias with ApiDomainHostedZoneId`,
    };
    outputs.ApiDomainHostedZoneId = {
      value: domainName.domainNameAliasHostedZoneId,
      description: 'Hosted zone id for a Route 53 alias record to ApiDomainTarget',
    };
  }
  outputs.ConsoleUrl = {
    value: service.console.url,
    description: 'The web console: sign in here (the API answers on /api/* of the same origin)',
  };
  const consoleDomain = service.settings.console.domain;
  if (consoleDomain) {
    outputs.ConsoleDomainTarget = {
      value: service.console.distribution.distributionDomainName,
      description: `DNS target for ${consoleDomain.domainName}: a CNAME, or a Route 53 alias to the CloudFront distribution`,
    };
  }
  for (const [id, { value, description }] of Object.entries(outputs)) {
    new CfnOutput(scope, id, { value, description });
  }
}
