import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { BedrockEmbeddingModel } from '../../layers/core/adapters/ai/bedrock-models';
import type { Environment } from '../../layers/core/domain/environments';

/** The OpenSearch domain's shape (see lib/constructs/search-domain.ts). */
export interface SearchSettings {
  readonly instanceType: string;
  readonly instanceCount: number;
  /** 1 turns zone awareness off; 2 or 3 spread the data nodes over that many zones. */
  readonly availabilityZoneCount: number;
  /** 0 means no dedicated master nodes. */
  readonly masterCount: number;
  readonly masterInstanceType: string;
  readonly volumeSizeGiB: number;
}

/**
 * How the search domain is reached (P50). `vpc`: the domain sits in private
 * subnets of the stack's VPC with no public endpoint, and the functions that
 * talk to it run in that VPC. `public`: a public endpoint that accepts only
 * SigV4-signed requests from the roles its access policy names, and no VPC.
 */
export const SEARCH_NETWORKS = ['vpc', 'public'] as const;
export type SearchNetwork = (typeof SEARCH_NETWORKS)[number];

/**
 * Zones the VPC spans. The stack is environment-agnostic (no account or
 * region at synth time), and CDK then knows only two zones of any region.
 */
export const VPC_AVAILABILITY_ZONES = 2;

/** A custom domain for the API; when set, the default execute-api endpoint is turned off. */
export interface ApiDomainSettings {
  readonly domainName: string;
  /** A regional ACM certificate (same region as the stack) covering `domainName`. */
  readonly certificateArn: string;
}

/** The console's own DNS name; without it the distribution's `*.cloudfront.net` name serves it. */
export interface ConsoleDomainSettings {
  readonly domainName: string;
  /** An ACM certificate in us-east-1 (CloudFront only uses certificates from there) covering `domainName`. */
  readonly certificateArn: string;
}

/** Issue 21: how the web console is served (lib/constructs/console-hosting.ts). */
export interface ConsoleSettings {
  readonly domain: ConsoleDomainSettings | undefined;
  /** A CloudFront-scope (global) web ACL made in us-east-1, attached to the distribution. */
  readonly webAclArn: string | undefined;
  /**
   * Which origin verify secret the distribution, the web ACL and the
   * functions share; deploying with the next number rotates it.
   */
  readonly originSecretGeneration: number;
}

/**
 * The model provider of a deployment (issue 8): a Secrets Manager
 * secret, made by the operator, holding the OpenAI (or compatible) API key.
 */
export interface ModelProviderSettings {
  /** The secret's name, or its complete ARN (for a secret in another account or with a KMS key of its own). */
  readonly apiKeySecret: string;
  /** An OpenAI-compatible endpoint instead of OpenAI's. */
  readonly baseUrl: string | undefined;
}

/**
 * Issue 32: Amazon Bedrock as the deployment's model provider
 * (`modelProvider=bedrock`), reached with the functions' roles: no key.
 */
export interface BedrockDeploymentSettings {
  /** A foundation model id or a cross-region inference profile id (`bedrockAnswerModel`). */
  readonly answerModel: string;
  readonly embeddingModel: BedrockEmbeddingModel;
  /** @default the embedding model's own length */
  readonly embeddingDimensions: number | undefined;
  /**
   * The regions the inference profiles among the models route requests to,
   * whose foundation models the roles may invoke (`bedrockModelRegions`);
   * empty when both models are foundation models of the stack's region.
   */
  readonly profileRegions: readonly string[];
}

/**
 * The regions a geographic inference profile routes to, as AWS documents
 * them for Amazon Nova and Anthropic Claude (some models reach fewer; the
 * console's Cross-region inference page lists each profile's). A profile of
 * another geography needs `bedrockModelRegions`. `global.` profiles route to
 * any commercial region, which IAM names with an empty region (below).
 */
export const INFERENCE_PROFILE_REGIONS: Readonly<Record<string, readonly string[]>> = {
  us: ['us-east-1', 'us-east-2', 'us-west-2'],
  eu: ['eu-central-1', 'eu-north-1', 'eu-west-1', 'eu-west-3'],
  apac: ['ap-northeast-1', 'ap-northeast-2', 'ap-south-1', 'ap-southeast-1', 'ap-southeast-2'],
  global: [],
};

/**
 * Mail (invitations, password resets) through Amazon SES, from an
 * identity the operator verified in SES in the stack's region.
 */
export interface MailSettings {
  /** A domain (`example.com`) or an address (`no-reply@example.com`). */
  readonly sesIdentity: string;
  /** The From address, within the identity. @default the identity's address, or `no-reply@` its domain */
  readonly from: string | undefined;
}

/** Everything a deployment can be told through CDK context, parsed and defaulted. */
export interface DeploymentSettings {
  /** Which kind of API key the deployment accepts; also picks the defaults below. */
  readonly environment: Environment;
  /** Days CloudWatch log groups and S3 access logs are kept. */
  readonly logRetentionDays: RetentionDays;
  /** Subscribed to the alarm topic when set. */
  readonly alarmEmail: string | undefined;
  /** Stage-wide API Gateway throttling: steady requests per second. */
  readonly apiThrottleRateLimit: number;
  /** Stage-wide API Gateway throttling: burst size. */
  readonly apiThrottleBurstLimit: number;
  readonly apiDomain: ApiDomainSettings | undefined;
  /** Issue 21: the web console's domain and web ACL, both optional. */
  readonly console: ConsoleSettings;
  /** Whether the stack sets the account-wide API Gateway CloudWatch Logs role. */
  readonly apiGatewayCloudWatchRole: boolean;
  readonly search: SearchSettings;
  /** Where the search domain lives, and so whether the stack has a VPC (P50). */
  readonly searchNetwork: SearchNetwork;
  /**
   * NAT gateways of the VPC (with `searchNetwork` `vpc`): 1 puts the only one
   * in one zone (cheaper; that zone's outage cuts the other's egress), 2 one
   * per zone.
   */
  readonly natGateways: number;
  /**
   * How many webhook deliveries run at once: the dispatcher's reserved
   * concurrency, and the most its SQS event source scales to.
   */
  readonly webhookDispatcherConcurrency: number;
  /**
   * How many sync jobs run at once: the sync worker's reserved concurrency,
   * and the most its SQS event source scales to (one job per invocation).
   */
  readonly syncWorkerConcurrency: number;
  /**
   * How many uploaded files are ingested at once: the ingestion
   * worker's reserved concurrency, and the most its SQS event source scales to.
   */
  readonly ingestionWorkerConcurrency: number;
  /**
   * Where embeddings and answers come from; without it the offline embedder
   * and extractive answerer run.
   */
  readonly modelProvider: ModelProviderSettings | undefined;
  /**
   * Issue 32: Amazon Bedrock instead (`modelProvider=bedrock`); never
   * together with `modelProvider` above.
   */
  readonly bedrock: BedrockDeploymentSettings | undefined;
  /**
   * Ship source maps with every function and turn on Node.js's
   * `--enable-source-maps`, so logged stack traces name the TypeScript
   * sources. Off by default: it slows every cold start.
   */
  readonly functionSourceMaps: boolean;
  /**
   * Issue 12: the Secrets Manager secret (name or complete ARN)
   * holding the connector providers' apps as JSON; without it no connector
   * can be connected (connecting answers 409 and says so).
   */
  readonly connectorAppsSecret: string | undefined;
  /**
   * Mail through SES (context `sesIdentity`, `mailFrom`); without it
   * no mail is sent (each is logged by kind and ids, never its link).
   */
  readonly mail: MailSettings | undefined;
}
