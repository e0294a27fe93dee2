import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import * as z from 'zod/mini';
import { BEDROCK_EMBEDDING_MODEL_IDS } from '../../layers/core/adapters/ai/bedrock-models';
import { bedrockEmbeddingDimensions, bedrockModelId } from '../../layers/core/config';
import { ENVIRONMENTS } from '../../layers/core/domain/environments';
import '../../layers/core/zod-english';
import { SEARCH_NETWORKS, VPC_AVAILABILITY_ZONES } from './deployment-settings-shape';

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

/** Every CDK context value a deployment reads, each checked with a message that names what it must be. */
export const contextSchema = z.object({
  environment: z.enum(ENVIRONMENTS, {
    error: `must be one of ${ENVIRONMENTS.map((name) => `"${name}"`).join(', ')}`,
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

export type ContextKey = keyof typeof contextSchema.shape;

/** Every context key the app reads; docs/deployment/configuration.md describes each. */
export const CONTEXT_KEYS = Object.keys(contextSchema.shape) as readonly ContextKey[];

/** The context as parsed, before the environment's defaults fill it in. */
export type ParsedContext = z.infer<typeof contextSchema>;
