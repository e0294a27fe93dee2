import * as z from 'zod';
import { ENVIRONMENTS } from './domain/environments';

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
    TABLE_NAME: z.string().min(3),
    /** D10: which keys this deployment accepts. */
    SVC_ENVIRONMENT: z.enum(ENVIRONMENTS),
    AWS_REGION: z.string().min(1),
  }),
  syncQueue: z.object({ SYNC_QUEUE_URL: z.url(), AWS_REGION: z.string().min(1) }),
  deliveryQueue: z.object({ DELIVERY_QUEUE_URL: z.url(), AWS_REGION: z.string().min(1) }),
  /** D33: the KMS key that seals webhook secrets (and, later, model keys and OAuth tokens). */
  secretsKey: z.object({ SECRETS_KEY_ARN: z.string().startsWith('arn:') }),
  /** D25: the bucket uploaded files go to (lib/constructs/file-store.ts). */
  fileBucket: z.object({ FILE_BUCKET_NAME: z.string().min(3), AWS_REGION: z.string().min(1) }),
  /** The OpenSearch domain's endpoint (host, https), SigV4-signed. */
  search: z.object({ OPENSEARCH_ENDPOINT: z.string().min(1), AWS_REGION: z.string().min(1) }),
  /**
   * D36 in the cloud: with `MODEL_API_KEY_SECRET` (a Secrets Manager secret
   * holding the provider's API key) embeddings and answers come from OpenAI
   * or the compatible endpoint `OPENAI_BASE_URL`; without it the offline
   * defaults run. The key itself is never in the environment.
   */
  /**
   * D12, P64: the Secrets Manager secret whose value signs session JWTs
   * (lib/constructs/session-signing-secret.ts), read when a session is first
   * checked and trusted this long, so a rotation takes effect without a deploy.
   */
  sessions: z.object({
    SESSION_SECRET_ARN: z.string().startsWith('arn:'),
    SESSION_SECRET_MAX_AGE_SECONDS: z.coerce.number().int().min(0).max(3600).default(300),
  }),
  /**
   * D14 (P91): the API's public address for SSO callbacks when it is not the
   * one API Gateway reports (set by the stack for a custom domain), and the
   * DNS servers domain verification asks (`host` or `host:port`, comma-separated;
   * the system's by default).
   */
  sso: z.object({
    SVC_PUBLIC_URL: z.url({ protocol: /^https$/ }).optional(),
    SVC_DNS_SERVERS: z
      .string()
      .optional()
      .transform((value) =>
        value
          ? value
              .split(',')
              .map((server) => server.trim())
              .filter(Boolean)
          : [],
      ),
  }),
  models: z.object({
    MODEL_API_KEY_SECRET: z.string().min(1).optional(),
    OPENAI_BASE_URL: z.url().optional(),
    /** How long a read secret is trusted, so a rotation takes effect without a deploy. */
    MODEL_API_KEY_MAX_AGE_SECONDS: z.coerce.number().int().min(0).max(3600).default(300),
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
