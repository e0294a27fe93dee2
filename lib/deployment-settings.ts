import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import * as z from 'zod/mini';
import {
  BEDROCK_DEFAULTS,
  BEDROCK_EMBEDDING_MODEL_IDS,
  type BedrockEmbeddingModel,
  bedrockDimensionsFit,
  inferenceProfileOf,
} from '../layers/core/adapters/ai/bedrock-models';
import { bedrockEmbeddingDimensions, bedrockModelId } from '../layers/core/config';
import { ENVIRONMENTS, type Environment } from '../layers/core/domain/environments';
import '../layers/core/zod-english';

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

/** P238: the console's own DNS name; without it the distribution's `*.cloudfront.net` name serves it. */
export interface ConsoleDomainSettings {
  readonly domainName: string;
  /** An ACM certificate in us-east-1 (CloudFront only uses certificates from there) covering `domainName`. */
  readonly certificateArn: string;
}

/** Issue 21: how the web console is served (lib/constructs/console-hosting.ts). */
export interface ConsoleSettings {
  readonly domain: ConsoleDomainSettings | undefined;
  /** A CloudFront-scope (global) web ACL made in us-east-1, attached to the distribution (P238). */
  readonly webAclArn: string | undefined;
  /**
   * P243: which origin verify secret the distribution, the web ACL and the
   * functions share (P242); deploying with the next number rotates it.
   */
  readonly originSecretGeneration: number;
}

/**
 * The model provider of a deployment (issue 8, D36): a Secrets Manager
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
 * P265: mail (invitations, password resets) through Amazon SES, from an
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
  /** D10: which kind of API key the deployment accepts; also picks the defaults below. */
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
   * How many uploaded files are ingested at once (D25): the ingestion
   * worker's reserved concurrency, and the most its SQS event source scales to.
   */
  readonly ingestionWorkerConcurrency: number;
  /**
   * Where embeddings and answers come from; without it the offline embedder
   * and extractive answerer run (D36).
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
   * sources. Off by default: it slows every cold start (P54).
   */
  readonly functionSourceMaps: boolean;
  /**
   * Issue 12 (P150): the Secrets Manager secret (name or complete ARN)
   * holding the connector providers' apps as JSON; without it no connector
   * can be connected (connecting answers 409 and says so).
   */
  readonly connectorAppsSecret: string | undefined;
  /**
   * P265: mail through SES (context `sesIdentity`, `mailFrom`); without it
   * no mail is sent (each is logged by kind and ids, never its link).
   */
  readonly mail: MailSettings | undefined;
}

type EnvironmentDefaults = Omit<
  DeploymentSettings,
  | 'environment'
  | 'alarmEmail'
  | 'apiDomain'
  | 'console'
  | 'modelProvider'
  | 'bedrock'
  | 'functionSourceMaps'
  | 'connectorAppsSecret'
  | 'mail'
>;

/**
 * Per-environment defaults. `test` is small and cheap and can be torn down;
 * `live` is zone-aware, has dedicated search masters and keeps logs a year.
 */
export const ENVIRONMENT_DEFAULTS: Readonly<Record<Environment, EnvironmentDefaults>> = {
  test: {
    logRetentionDays: RetentionDays.ONE_MONTH,
    apiThrottleRateLimit: 50,
    apiThrottleBurstLimit: 100,
    apiGatewayCloudWatchRole: true,
    search: {
      instanceType: 't3.small.search',
      instanceCount: 1,
      availabilityZoneCount: 1,
      masterCount: 0,
      masterInstanceType: 'm6g.large.search',
      volumeSizeGiB: 10,
    },
    webhookDispatcherConcurrency: 10,
    syncWorkerConcurrency: 2,
    ingestionWorkerConcurrency: 2,
    // Today's behaviour: no VPC, no NAT gateway, no endpoints to pay for.
    searchNetwork: 'public',
    natGateways: 1,
  },
  live: {
    logRetentionDays: RetentionDays.ONE_YEAR,
    apiThrottleRateLimit: 500,
    apiThrottleBurstLimit: 1000,
    apiGatewayCloudWatchRole: true,
    search: {
      instanceType: 'r6g.large.search',
      instanceCount: 2,
      availabilityZoneCount: 2,
      masterCount: 3,
      masterInstanceType: 'm6g.large.search',
      volumeSizeGiB: 100,
    },
    webhookDispatcherConcurrency: 50,
    syncWorkerConcurrency: 10,
    ingestionWorkerConcurrency: 10,
    // P50: the search domain is not reachable from the internet, and each
    // zone keeps its own way out if the other zone fails.
    searchNetwork: 'vpc',
    natGateways: VPC_AVAILABILITY_ZONES,
  },
};

/** Retention values CloudWatch Logs accepts, without "never expire" (logs must age out). */
const RETENTION_CHOICES: readonly number[] = Object.values(RetentionDays).filter(
  (value): value is number => typeof value === 'number' && value !== RetentionDays.INFINITE,
);

/** `-c key=value` arrives as a string, cdk.json values keep their JSON type: accept both. */
const wholeNumber = (min: number, max: number) =>
  z.pipe(
    z.union(
      [
        z.number(),
        z.pipe(
          z.string().check(z.trim(), z.regex(/^\d+$/)),
          z.transform((text: string) => Number(text)),
        ),
      ],
      { error: 'must be a whole number' },
    ),
    z
      .number()
      .check(
        z.int({ error: 'must be a whole number' }),
        z.minimum(min, { error: `must be at least ${min}` }),
        z.maximum(max, { error: `must be at most ${max}` }),
      ),
  );

const flag = z.union(
  [
    z.boolean(),
    z.pipe(
      z.enum(['true', 'false']),
      z.transform((text: 'true' | 'false') => text === 'true'),
    ),
  ],
  { error: 'must be true or false' },
);

const searchInstanceType = z.string().check(
  z.regex(/^[a-z][a-z0-9]*\.[a-z0-9]+\.search$/, {
    error: 'must be an OpenSearch instance type such as t3.small.search',
  }),
);

const DNS_NAME = /^(?=.{4,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** P265: the address of a From (`Name <address>` or the bare address). */
function fromAddress(from: string): string {
  return (/<([^>]+)>$/.exec(from)?.[1] ?? from).toLowerCase();
}

/** P265: SES sends from an address of the identity: itself, or within its domain. */
function fromFitsIdentity(from: string, identity: string): boolean {
  const address = fromAddress(from);
  if (identity.includes('@')) return address === identity.toLowerCase();
  const domain = address.slice(address.lastIndexOf('@') + 1);
  return domain === identity || domain.endsWith(`.${identity}`);
}

const contextSchema = z.object({
  environment: z.enum(ENVIRONMENTS, {
    error: `must be one of ${ENVIRONMENTS.map((name) => `"${name}"`).join(', ')} (D10)`,
  }),
  logRetentionDays: z.optional(
    wholeNumber(1, 3653).check(
      z.refine((days) => RETENTION_CHOICES.includes(days), {
        error: `must be one of the CloudWatch Logs retention periods: ${RETENTION_CHOICES.join(', ')}`,
      }),
    ),
  ),
  alarmEmail: z.optional(z.email({ error: 'must be an e-mail address' })),
  apiThrottleRateLimit: z.optional(wholeNumber(1, 10_000)),
  apiThrottleBurstLimit: z.optional(wholeNumber(1, 5_000)),
  apiDomainName: z.optional(
    z.string().check(
      z.regex(/^(?=.{4,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, {
        error: 'must be a lower-case DNS name such as api.example.com',
      }),
    ),
  ),
  apiCertificateArn: z.optional(
    z.string().check(
      z.regex(/^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[0-9a-f-]{36}$/, {
        error: 'must be an ACM certificate ARN',
      }),
    ),
  ),
  consoleDomainName: z.optional(
    z.string().check(
      z.regex(/^(?=.{4,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, {
        error: 'must be a lower-case DNS name such as console.example.com',
      }),
    ),
  ),
  // CloudFront takes certificates from us-east-1 only, whatever the stack's region.
  consoleCertificateArn: z.optional(
    z.string().check(
      z.regex(/^arn:aws[a-z-]*:acm:us-east-1:\d{12}:certificate\/[0-9a-f-]{36}$/, {
        error:
          'must be the ARN of an ACM certificate in us-east-1 (CloudFront uses no other region)',
      }),
    ),
  ),
  consoleWebAclArn: z.optional(
    z.string().check(
      z.regex(
        /^arn:aws[a-z-]*:wafv2:us-east-1:\d{12}:global\/webacl\/[\w-]{1,128}\/[0-9a-f-]{36}$/,
        {
          error:
            'must be the ARN of a CloudFront-scope (global) WAF web ACL, which lives in us-east-1',
        },
      ),
    ),
  ),
  consoleOriginSecretGeneration: z.optional(wholeNumber(0, 9999)),
  apiGatewayCloudWatchRole: z.optional(flag),
  searchInstanceType: z.optional(searchInstanceType),
  searchInstanceCount: z.optional(wholeNumber(1, 80)),
  searchAvailabilityZones: z.optional(wholeNumber(1, 3)),
  searchMasterInstanceType: z.optional(searchInstanceType),
  searchMasterCount: z.optional(wholeNumber(0, 5)),
  searchVolumeGiB: z.optional(wholeNumber(10, 1024)),
  // 2 is the least an SQS event source's maximum concurrency accepts.
  webhookDispatcherConcurrency: z.optional(wholeNumber(2, 1000)),
  syncWorkerConcurrency: z.optional(wholeNumber(2, 1000)),
  ingestionWorkerConcurrency: z.optional(wholeNumber(2, 1000)),
  searchNetwork: z.optional(
    z.enum(SEARCH_NETWORKS, {
      error: `must be one of ${SEARCH_NETWORKS.map((name) => `"${name}"`).join(', ')}`,
    }),
  ),
  // No NAT gateway would leave the crawler and a model API unreachable.
  natGateways: z.optional(wholeNumber(1, VPC_AVAILABILITY_ZONES)),
  modelApiKeySecret: z.optional(
    z.union(
      [
        z
          .string()
          .check(
            z.regex(
              /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[\w/+=.@-]+-[A-Za-z0-9]{6}$/,
            ),
          ),
        z.string().check(z.regex(/^(?!arn:)[\w/+=.@-]{1,512}$/)),
      ],
      {
        error:
          'must be the name of a Secrets Manager secret (letters, digits and /_+=.@-) or its complete ARN',
      },
    ),
  ),
  connectorAppsSecret: z.optional(
    z.union(
      [
        z
          .string()
          .check(
            z.regex(
              /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[\w/+=.@-]+-[A-Za-z0-9]{6}$/,
            ),
          ),
        z.string().check(z.regex(/^(?!arn:)[\w/+=.@-]{1,512}$/)),
      ],
      {
        error:
          'must be the name of a Secrets Manager secret (letters, digits and /_+=.@-) or its complete ARN',
      },
    ),
  ),
  modelBaseUrl: z.optional(z.url({ protocol: /^https$/, error: 'must be an https:// URL' })),
  modelProvider: z.optional(z.enum(['bedrock'], { error: 'must be "bedrock" when set' })),
  bedrockAnswerModel: z.optional(bedrockModelId),
  bedrockEmbeddingModel: z.optional(
    z.enum(BEDROCK_EMBEDDING_MODEL_IDS, {
      error: `must be one of ${BEDROCK_EMBEDDING_MODEL_IDS.join(', ')}`,
    }),
  ),
  bedrockEmbeddingDimensions: z.optional(bedrockEmbeddingDimensions),
  bedrockModelRegions: z.optional(
    z.pipe(
      z.string().check(
        z.regex(/^[a-z]{2}(-[a-z]+)+-\d(,[a-z]{2}(-[a-z]+)+-\d)*$/, {
          error: 'must be AWS regions separated by commas, such as us-east-1,us-west-2',
        }),
      ),
      z.transform((text: string) => text.split(',')),
    ),
  ),
  functionSourceMaps: z.optional(flag),
  sesIdentity: z.optional(
    z.union([z.email(), z.string().check(z.regex(DNS_NAME))], {
      error:
        'must be an SES identity: a lower-case domain such as example.com or an address such as no-reply@example.com',
    }),
  ),
  mailFrom: z.optional(
    z.string().check(
      z.regex(/^([^<>\r\n]{1,100} <[^<>\s@]+@[^<>\s@]+>|[^<>\s@]+@[^<>\s@]+)$/, {
        error:
          'must be an address, or a name and an address such as "Agent Query Service <no-reply@example.com>"',
      }),
    ),
  ),
});

type ContextKey = keyof typeof contextSchema.shape;

/** Every context key the app reads; docs/deployment/configuration.md describes each. */
export const CONTEXT_KEYS = Object.keys(contextSchema.shape) as readonly ContextKey[];

/** Thrown for a missing or malformed context value, naming the key and how to set it. */
export class DeploymentSettingsError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DeploymentSettingsError';
  }
}

function readRawContext(scope: Construct): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  for (const key of CONTEXT_KEYS) {
    const value: unknown = scope.node.tryGetContext(key);
    // `-c alarmEmail=` means "not set", not "set to the empty string".
    if (value !== undefined && value !== null && value !== '') raw[key] = value;
  }
  return raw;
}

/**
 * Reads the deployment's CDK context (cdk.json `context`, `-c key=value`),
 * validates it and fills in the environment's defaults. A bad value fails
 * the synth with a message naming the key, before any construct is built.
 */
export function readDeploymentSettings(scope: Construct): DeploymentSettings {
  const raw = readRawContext(scope);
  const parsed = contextSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const key = String(issue.path[0] ?? '(context)');
      const given = key in raw ? ` (got ${JSON.stringify(raw[key])})` : ' (not set)';
      return `context "${key}" ${issue.message}${given}`;
    });
    throw new DeploymentSettingsError(
      `Invalid CDK context: ${problems.join('; ')}. Set it in cdk.json or pass it as -c key=value, e.g. npx cdk synth -c environment=test.`,
    );
  }
  const context = parsed.data;
  const defaults = ENVIRONMENT_DEFAULTS[context.environment];

  if ((context.apiDomainName === undefined) !== (context.apiCertificateArn === undefined)) {
    throw new DeploymentSettingsError(
      'Invalid CDK context: "apiDomainName" and "apiCertificateArn" go together; set both or neither.',
    );
  }

  if ((context.consoleDomainName === undefined) !== (context.consoleCertificateArn === undefined)) {
    throw new DeploymentSettingsError(
      'Invalid CDK context: "consoleDomainName" and "consoleCertificateArn" go together; set both or neither.',
    );
  }

  if (context.modelBaseUrl !== undefined && context.modelApiKeySecret === undefined) {
    throw new DeploymentSettingsError(
      'Invalid CDK context: "modelBaseUrl" needs "modelApiKeySecret" (the secret holding that endpoint\'s API key).',
    );
  }

  const bedrock = bedrockSettingsOf(context);

  if (context.mailFrom !== undefined && context.sesIdentity === undefined) {
    throw new DeploymentSettingsError(
      'Invalid CDK context: "mailFrom" needs "sesIdentity" (the SES identity it sends from).',
    );
  }
  if (
    context.mailFrom !== undefined &&
    context.sesIdentity !== undefined &&
    !fromFitsIdentity(context.mailFrom, context.sesIdentity)
  ) {
    throw new DeploymentSettingsError(
      `Invalid CDK context: "mailFrom" must be an address of the SES identity "${context.sesIdentity}" (SES sends from no other).`,
    );
  }

  const searchNetwork = context.searchNetwork ?? defaults.searchNetwork;
  const searchAvailabilityZones =
    context.searchAvailabilityZones ?? defaults.search.availabilityZoneCount;
  if (context.environment === 'live' && searchNetwork === 'public') {
    // P50: a live domain with a public endpoint would not pass a security review.
    throw new DeploymentSettingsError(
      'Invalid CDK context: "searchNetwork" must be "vpc" for a live deployment (P50: its search domain is never reachable from the internet); "public" is for test deployments.',
    );
  }
  if (searchNetwork === 'vpc' && searchAvailabilityZones > VPC_AVAILABILITY_ZONES) {
    throw new DeploymentSettingsError(
      `Invalid CDK context: "searchAvailabilityZones" must be at most ${VPC_AVAILABILITY_ZONES} with "searchNetwork" "vpc" (got ${searchAvailabilityZones}): the stack is environment-agnostic, so its VPC spans ${VPC_AVAILABILITY_ZONES} zones.`,
    );
  }

  return {
    environment: context.environment,
    logRetentionDays:
      (context.logRetentionDays as RetentionDays | undefined) ?? defaults.logRetentionDays,
    alarmEmail: context.alarmEmail,
    apiThrottleRateLimit: context.apiThrottleRateLimit ?? defaults.apiThrottleRateLimit,
    apiThrottleBurstLimit: context.apiThrottleBurstLimit ?? defaults.apiThrottleBurstLimit,
    apiDomain:
      context.apiDomainName !== undefined && context.apiCertificateArn !== undefined
        ? { domainName: context.apiDomainName, certificateArn: context.apiCertificateArn }
        : undefined,
    console: {
      domain:
        context.consoleDomainName !== undefined && context.consoleCertificateArn !== undefined
          ? { domainName: context.consoleDomainName, certificateArn: context.consoleCertificateArn }
          : undefined,
      webAclArn: context.consoleWebAclArn,
      originSecretGeneration: context.consoleOriginSecretGeneration ?? 0,
    },
    apiGatewayCloudWatchRole: context.apiGatewayCloudWatchRole ?? defaults.apiGatewayCloudWatchRole,
    search: {
      instanceType: context.searchInstanceType ?? defaults.search.instanceType,
      instanceCount: context.searchInstanceCount ?? defaults.search.instanceCount,
      availabilityZoneCount: searchAvailabilityZones,
      masterCount: context.searchMasterCount ?? defaults.search.masterCount,
      masterInstanceType: context.searchMasterInstanceType ?? defaults.search.masterInstanceType,
      volumeSizeGiB: context.searchVolumeGiB ?? defaults.search.volumeSizeGiB,
    },
    webhookDispatcherConcurrency:
      context.webhookDispatcherConcurrency ?? defaults.webhookDispatcherConcurrency,
    syncWorkerConcurrency: context.syncWorkerConcurrency ?? defaults.syncWorkerConcurrency,
    ingestionWorkerConcurrency:
      context.ingestionWorkerConcurrency ?? defaults.ingestionWorkerConcurrency,
    searchNetwork,
    natGateways: context.natGateways ?? defaults.natGateways,
    modelProvider:
      context.modelApiKeySecret === undefined
        ? undefined
        : { apiKeySecret: context.modelApiKeySecret, baseUrl: context.modelBaseUrl },
    bedrock,
    functionSourceMaps: context.functionSourceMaps ?? false,
    connectorAppsSecret: context.connectorAppsSecret,
    mail:
      context.sesIdentity === undefined
        ? undefined
        : { sesIdentity: context.sesIdentity, from: context.mailFrom },
  };
}

/**
 * Issue 32: the Bedrock settings, checked: `modelProvider=bedrock` and an
 * API key secret exclude each other, the `bedrock*` keys need the provider,
 * the dimensions must be the embedding model's, and an inference profile
 * must route to regions the stack knows (or names in `bedrockModelRegions`).
 */
function bedrockSettingsOf(
  context: z.infer<typeof contextSchema>,
): BedrockDeploymentSettings | undefined {
  const keys = [
    'bedrockAnswerModel',
    'bedrockEmbeddingModel',
    'bedrockEmbeddingDimensions',
    'bedrockModelRegions',
  ] as const;
  if (context.modelProvider !== 'bedrock') {
    const stray = keys.find((key) => context[key] !== undefined);
    if (stray) {
      throw new DeploymentSettingsError(
        `Invalid CDK context: "${stray}" needs "modelProvider" "bedrock" (-c modelProvider=bedrock).`,
      );
    }
    return undefined;
  }
  if (context.modelApiKeySecret !== undefined) {
    throw new DeploymentSettingsError(
      'Invalid CDK context: "modelProvider" "bedrock" and "modelApiKeySecret" exclude each other; a deployment has one model provider.',
    );
  }
  const embeddingModel = context.bedrockEmbeddingModel ?? BEDROCK_DEFAULTS.embeddingModel;
  if (!bedrockDimensionsFit(embeddingModel, context.bedrockEmbeddingDimensions)) {
    throw new DeploymentSettingsError(
      `Invalid CDK context: "bedrockEmbeddingDimensions" ${context.bedrockEmbeddingDimensions} is not a vector length ${embeddingModel} makes.`,
    );
  }
  const answerModel = context.bedrockAnswerModel ?? BEDROCK_DEFAULTS.answerModel;
  const profile = inferenceProfileOf(answerModel);
  let profileRegions: readonly string[] = [];
  if (profile) {
    const known = INFERENCE_PROFILE_REGIONS[profile.geography];
    profileRegions = context.bedrockModelRegions ?? known ?? [];
    if (!context.bedrockModelRegions && !known) {
      throw new DeploymentSettingsError(
        `Invalid CDK context: the inference profile "${answerModel}" routes to regions this stack does not know; name them in "bedrockModelRegions" (the Bedrock console's Cross-region inference page lists them).`,
      );
    }
  } else if (context.bedrockModelRegions) {
    throw new DeploymentSettingsError(
      'Invalid CDK context: "bedrockModelRegions" is for an inference profile; "bedrockAnswerModel" names a foundation model of the stack\'s region.',
    );
  }
  return {
    answerModel,
    embeddingModel,
    embeddingDimensions: context.bedrockEmbeddingDimensions,
    profileRegions,
  };
}
