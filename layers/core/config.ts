import * as z from 'zod/mini';
import { DEPLOYMENT_PROVIDERS } from './domain/deployment-provider';
import { ENVIRONMENTS } from './domain/environments';
import './zod-english';

const region = z.string().check(z.minLength(1));
const arn = z.string().check(z.startsWith('arn:'));
/**
 * Issue 32: an Amazon Bedrock model id (`amazon.nova-lite-v1:0`,
 * `anthropic.claude-3-5-haiku-20241022-v1:0`) or a cross-region inference
 * profile id (`us.amazon.nova-lite-v1:0`).
 */
export const bedrockModelId = z.string().check(
  z.maxLength(200),
  z.regex(/^[a-z0-9][a-z0-9.-]*[a-z0-9](:[a-z0-9]+)*$/, {
    error:
      'must be a Bedrock model id such as amazon.nova-lite-v1:0, or an inference profile id such as us.amazon.nova-lite-v1:0',
  }),
);
export const bedrockEmbeddingDimensions = z.coerce.number().check(z.int(), z.positive());

/** Seconds a read secret is trusted (0–3600, 300 when unset). */
/**
 * A web origin, `https://host[:port]` and nothing more (no path, no
 * trailing slash), as browsers send it in `Origin`.
 */
export const webOrigin = z.string().check(
  z.refine((value) => {
    try {
      const url = new URL(value);
      return url.origin === value && (url.protocol === 'https:' || url.protocol === 'http:');
    } catch {
      return false;
    }
  }, 'must be an origin such as https://console.example.com (scheme and host, no path)'),
);
/** When the list last changed, an ISO 8601 time with its offset. */
export const webhookSourceIpsChangedAt = z.pipe(
  z.iso.datetime({ offset: true, error: 'must be an ISO 8601 time such as 2026-01-31T12:00:00Z' }),
  z.transform((text: string) => new Date(text)),
);

const secretMaxAgeSeconds = z._default(
  z.coerce.number().check(z.int(), z.minimum(0), z.maximum(3600)),
  300,
);

/**
 * The cloud functions' configuration, parsed from the environment the CDK
 * stack sets (STYLE.md §5). Each cloud adapter parses only the part it
 * needs (layers/core/wiring/cloud/), so a function is configured for what
 * it builds and nothing else. A missing or wrong value fails the cold start
 * with a message naming it, rather than a request later.
 */
export const CLOUD_CONFIG = {
  /** Every function that reads or writes the table (all but the fallback). */
  table: z.object({
    TABLE_NAME: z.string().check(z.minLength(3)),
    /** Which keys this deployment accepts. */
    SVC_ENVIRONMENT: z.enum(ENVIRONMENTS),
    AWS_REGION: region,
  }),
  syncQueue: z.object({ SYNC_QUEUE_URL: z.url(), AWS_REGION: region }),
  deliveryQueue: z.object({ DELIVERY_QUEUE_URL: z.url(), AWS_REGION: region }),
  /** Issue 11 item 5: the queue evaluation runs wait on (the eval worker's). */
  evalQueue: z.object({ EVAL_QUEUE_URL: z.url(), AWS_REGION: region }),
  /** The KMS key that seals webhook secrets (and, later, model keys and OAuth tokens). */
  secretsKey: z.object({ SECRETS_KEY_ARN: arn }),
  /** The bucket uploaded files go to (lib/constructs/file-store.ts). */
  fileBucket: z.object({ FILE_BUCKET_NAME: z.string().check(z.minLength(3)), AWS_REGION: region }),
  /** The OpenSearch domain's endpoint (host, https), SigV4-signed. */
  search: z.object({ OPENSEARCH_ENDPOINT: z.string().check(z.minLength(1)), AWS_REGION: region }),
  /**
   * D36 in the cloud: with `MODEL_API_KEY_SECRET` (a Secrets Manager secret
   * holding the provider's API key) embeddings and answers come from OpenAI
   * or the compatible endpoint `OPENAI_BASE_URL`; without it the offline
   * defaults run. The key itself is never in the environment.
   */
  /**
   * The Secrets Manager secret whose value signs session JWTs
   * (lib/constructs/session-signing-secret.ts), read when a session is first
   * checked and trusted this long, so a rotation takes effect without a deploy.
   */
  sessions: z.object({
    SESSION_SECRET_ARN: arn,
    SESSION_SECRET_MAX_AGE_SECONDS: secretMaxAgeSeconds,
  }),
  /**
   * D14: the API's public address for SSO callbacks when it is not the
   * one API Gateway reports (set by the stack for a custom domain), and the
   * DNS servers domain verification asks (`host` or `host:port`, comma-separated;
   * the system's by default).
   */
  sso: z.object({
    SVC_PUBLIC_URL: z.optional(z.url({ protocol: /^https$/ })),
    SVC_DNS_SERVERS: z.pipe(
      z.optional(z.string()),
      z.transform((value: string | undefined) =>
        value
          ? value
              .split(',')
              .map((server) => server.trim())
              .filter(Boolean)
          : [],
      ),
    ),
  }),
  /**
   * Issue 12: the Secrets Manager secret holding the providers' apps
   * as JSON (`{"confluence": {"client_id": "…", "client_secret": "…"}}`),
   * read when first needed and trusted this long; unset: no app is
   * configured and connecting says so. The API's public address for
   * the redirect URI when a custom domain fronts the API.
   */
  connectors: z.object({
    /** The secret's name or complete ARN. */
    CONNECTOR_APPS_SECRET_ARN: z.optional(z.string().check(z.minLength(1))),
    CONNECTOR_APPS_MAX_AGE_SECONDS: secretMaxAgeSeconds,
    SVC_PUBLIC_URL: z.optional(z.url({ protocol: /^https$/ })),
  }),
  /**
   * The web console's public origin (the CloudFront distribution's
   * domain, or its custom domain), set by the stack on every HTTP family.
   * Through the distribution the browser's `Origin` is the console's while
   * API Gateway reports its own host, so a signed-in change is accepted
   * from this origin as from the API's own (CSRF).
   */
  console: z.object({
    SVC_CONSOLE_ORIGIN: z.optional(
      webOrigin.check(z.startsWith('https://', 'must be an https:// origin')),
    ),
  }),
  /**
   * The Secrets Manager secret the console's distribution sends as
   * `X-Svc-Origin-Verify` (lib/constructs/origin-verify-secret.ts), set by
   * the stack on every HTTP family; read when a request first carries the
   * header and trusted this long. Unset: no request is believed to come
   * through CloudFront, and every one is judged by API Gateway's `sourceIp`.
   */
  originVerify: z.object({
    ORIGIN_VERIFY_SECRET_ARN: z.optional(arn),
    ORIGIN_VERIFY_MAX_AGE_SECONDS: secretMaxAgeSeconds,
  }),
  /**
   * Where webhook deliveries come from, for `GET
   * /api/v1/webhooks/source-ips`: the NAT gateways' Elastic IPs and when
   * that list last changed (a deploy-time record), set by the stack on
   * the `webhooks` family when the deployment has its VPC. Unset: no fixed
   * addresses, and the answer says so.
   */
  webhookSources: z.object({
    // Its ranges are checked where they are used (cloudWebhookSourceAddresses), with
    // ipaddr.js, which this module must not pull into every function's bundle.
    SVC_WEBHOOK_SOURCE_IPS: z.optional(z.string()),
    SVC_WEBHOOK_SOURCE_IPS_CHANGED_AT: z.optional(webhookSourceIpsChangedAt),
  }),
  /**
   * Amazon SES, set by the stack (context `sesIdentity`, `mailFrom`)
   * on the families that mail (users: invitations; auth: password resets):
   * the verified identity's ARN, which the function may `ses:SendEmail`
   * for and nothing else, and the From address. Unset: mail is not sent but
   * logged by kind and ids (never its link).
   */
  mail: z.object({
    SVC_SES_IDENTITY_ARN: z.optional(arn.check(z.includes(':identity/'))),
    SVC_MAIL_FROM: z.optional(z.string().check(z.minLength(3), z.maxLength(320))),
    AWS_REGION: region,
  }),
  /**
   * Issue 32: `MODEL_PROVIDER=bedrock` answers and embeds through Amazon
   * Bedrock with the function's role (no key) in its own region; the
   * models are the deployment's (`bedrockAnswerModel`,
   * `bedrockEmbeddingModel`, `bedrockEmbeddingDimensions`), Bedrock's
   * defaults when unset.
   */
  models: z.object({
    MODEL_PROVIDER: z.optional(z.enum(['bedrock'])),
    BEDROCK_ANSWER_MODEL: z.optional(bedrockModelId),
    // Which models the embedder can call, and their lengths, is checked when it is built
    // (cloud-models.ts): the list would otherwise be in every function's bundle.
    BEDROCK_EMBEDDING_MODEL: z.optional(bedrockModelId),
    BEDROCK_EMBEDDING_DIMENSIONS: z.optional(bedrockEmbeddingDimensions),
    MODEL_API_KEY_SECRET: z.optional(z.string().check(z.minLength(1))),
    OPENAI_BASE_URL: z.optional(z.url()),
    /** How long a read secret is trusted, so a rotation takes effect without a deploy. */
    MODEL_API_KEY_MAX_AGE_SECONDS: secretMaxAgeSeconds,
  }),
  /**
   * What the deployment's provider answers with, told to the agents family
   * (which calls no model) so it can list the models and refuse one nothing
   * can serve: `offline`, `openai`, `openai_compatible` or `bedrock` with its
   * answer model. Unset: offline.
   */
  deploymentModels: z.object({
    SVC_DEPLOYMENT_MODEL_PROVIDER: z._default(z.enum(DEPLOYMENT_PROVIDERS), 'offline'),
    SVC_DEPLOYMENT_ANSWER_MODEL: z.optional(bedrockModelId),
  }),
} as const;

export type CloudConfigPart = keyof typeof CLOUD_CONFIG;
export type CloudConfigOf<P extends CloudConfigPart> = z.infer<(typeof CLOUD_CONFIG)[P]>;

/** Every key the cloud configuration parses: what the stack may set. */
export type CloudConfigKey = {
  [P in CloudConfigPart]: keyof CloudConfigOf<P>;
}[CloudConfigPart];

/** One part of the cloud configuration, or an error naming every problem in it. */
export function parseCloudConfig<P extends CloudConfigPart>(
  part: P,
  env: NodeJS.ProcessEnv = process.env,
): CloudConfigOf<P> {
  const parsed = CLOUD_CONFIG[part].safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.')}: ${issue.message}`,
    );
    throw new Error(`Invalid function configuration (${part}): ${problems.join('; ')}`);
  }
  return parsed.data as CloudConfigOf<P>;
}

/**
 * True inside a Lambda execution environment, where a function builds its
 * adapters during the init phase (which runs before the first request, with
 * a full CPU) rather than on its first request.
 */
export function runsOnLambda(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.AWS_LAMBDA_FUNCTION_NAME);
}
